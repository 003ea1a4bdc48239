"""Asset-library request models (both libraries).

Both upload endpoints take only publicly reachable URLs, by one rule (``_urls``: loopback,
private and local hosts are refused, the service's own URLs are not).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mediagen_nb.catalog._params import AssetType
from mediagen_nb.types._problem import (
    Problem,
    RequestModel,
    RuleContext,
    check_reference,
    is_url,
)
from mediagen_nb.types._urls import not_public_reason


def check_upload_url(value: Any, field: str, ctx: RuleContext) -> Iterator[Problem]:
    """An upload URL: an http(s) URL the service can fetch (its own URLs included)."""
    problems = list(check_reference(value, field, allow_asset=False))
    yield from problems
    if problems or not isinstance(value, str) or not is_url(value):
        return
    reason = not_public_reason(value, ctx.service_origins)
    if reason is not None:
        yield Problem(field, f"must be publicly reachable by the service: {reason}")


class Seedance2AssetUpload(RequestModel):
    """``POST {base_url}/svcVideo2/asset/upload``."""

    assetType: AssetType  # noqa: N815 - the service's field name
    url: str
    name: str | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from check_upload_url(self.url, "url", ctx)
        yield from self.unknown_field_warnings("the seedance 2.0 asset library")


class Sd2AssetUpload(RequestModel):
    """``POST {base_url}/asset/sd2Manxue/assetUpload``: at least one list non-empty."""

    imageUrls: list[str] | None = None  # noqa: N815 - the service's field name
    videoUrls: list[str] | None = None  # noqa: N815 - the service's field name
    audioUrls: list[str] | None = None  # noqa: N815 - the service's field name

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        lists = {
            "imageUrls": self.imageUrls,
            "videoUrls": self.videoUrls,
            "audioUrls": self.audioUrls,
        }
        if not any(lists.values()):
            yield Problem(
                "imageUrls", "at least one of imageUrls, videoUrls, audioUrls must be non-empty"
            )
        for name, values in lists.items():
            for index, url in enumerate(values or ()):
                yield from check_upload_url(url, f"{name}[{index}]", ctx)
        yield from self.unknown_field_warnings("the sd2 asset library")


class Sd2AssetStatus(RequestModel):
    """``POST {base_url}/asset/sd2Manxue/assetStatus``."""

    assetIds: list[str]  # noqa: N815 - the service's field name

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        if not self.assetIds:
            yield Problem("assetIds", "must contain at least one asset id")
        for index, asset_id in enumerate(self.assetIds):
            if not asset_id.strip():
                yield Problem(f"assetIds[{index}]", "must not be empty")
        yield from self.unknown_field_warnings("the sd2 asset library")
