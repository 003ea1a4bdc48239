"""Asset-library request models (both libraries)."""

from __future__ import annotations

from collections.abc import Iterator

from mediagen_nb.catalog._params import AssetType
from mediagen_nb.types._problem import Problem, RequestModel, RuleContext, check_reference


class Seedance2AssetUpload(RequestModel):
    """``POST {base_url}/svcVideo2/asset/upload``."""

    assetType: AssetType  # noqa: N815 - the service's field name
    url: str
    name: str | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from check_reference(self.url, "url", allow_asset=False)
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
                yield from check_reference(url, f"{name}[{index}]", allow_asset=False)
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
