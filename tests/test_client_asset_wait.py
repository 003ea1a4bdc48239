"""``assets.wait_active`` reports progress (``on_update``), polls at ``poll_interval``, and
stops at an id the library lists in ``failedItems``; batch answers carry typed failed items."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from mediagen_nb.client import AssetNotUsableError, AsyncClient
from mediagen_nb.types import AssetFailure, AssetInfo
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT

STATUS = "/api/asset/sd2Manxue/assetStatus"
UPLOAD = "/api/asset/sd2Manxue/assetUpload"


def sd2_service(
    statuses: dict[str, list[str]], missing: dict[str, str]
) -> tuple[httpx2.MockTransport, list[list[str]]]:
    """The sd2 library: each known id walks through its statuses (one per query); ids in
    ``missing`` come back as ``failedItems`` with their reason. Returns the ids of each query."""
    queries: list[list[str]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if request.url.path == UPLOAD:
            failed: list[Any] = [
                {"url": body["imageUrls"][0], "assetType": "Image", "reason": "too small"},
                "quota exceeded",  # the spec does not show the entries: any shape is kept
            ]
            data: dict[str, Any] = {"items": [], "failedItems": failed}
            return httpx2.Response(200, json={"code": "0", "msg": None, "data": data})
        assert request.url.path == STATUS
        queries.append(list(body["assetIds"]))
        items = []
        for asset_id in body["assetIds"]:
            if asset_id in statuses:
                walk = statuses[asset_id]
                items.append(
                    {"assetId": asset_id, "status": walk.pop(0) if len(walk) > 1 else walk[0]}
                )
        failed = [
            {"assetId": i, "reason": missing[i], "checkedBy": "review-7"}
            for i in body["assetIds"]
            if i in missing
        ]
        data = {"items": items, "failedItems": failed}
        return httpx2.Response(200, json={"code": "0", "msg": "success", "data": data})

    return httpx2.MockTransport(handler), queries


def _client(transport: httpx2.MockTransport, clock: FakeClock) -> AsyncClient:
    return AsyncClient(KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=None)


async def test_on_update_hears_each_first_read_and_change_at_the_given_interval() -> None:
    transport, queries = sd2_service(
        {"a": ["submitted", "Processing", "Processing", "Active"], "b": ["Processing", "Active"]},
        {},
    )
    clock = FakeClock()
    heard: list[tuple[str, str | None]] = []

    def on_update(update: AssetInfo | AssetFailure) -> None:
        assert isinstance(update, AssetInfo)
        heard.append((update.assetId, update.status))

    async with _client(transport, clock) as c:
        done = await c.assets.wait_active(["a", "b"], poll_interval=0.5, on_update=on_update)
    assert {k: v.status for k, v in done.items()} == {"a": "Active", "b": "Active"}
    assert heard == [
        ("a", "submitted"),
        ("b", "Processing"),
        ("a", "Processing"),
        ("b", "Active"),
        ("a", "Active"),  # the second "Processing" of a is no change: not reported
    ]
    assert queries == [["a", "b"], ["a", "b"], ["a"], ["a"]]
    assert clock.sleeps == [0.5, 0.5, 0.5]


async def test_an_id_the_library_lists_as_failed_is_reported_with_its_reason_then_raised() -> None:
    transport, queries = sd2_service({"ok": ["Processing"]}, {"gone": "asset gone not found"})
    clock = FakeClock()
    heard: list[AssetInfo | AssetFailure] = []
    async with _client(transport, clock) as c:
        with pytest.raises(AssetNotUsableError) as refused:
            await c.assets.wait_active(["ok", "gone"], on_update=heard.append)
    assert (refused.value.asset_id, refused.value.status) == ("gone", "Failed")
    assert queries == [["ok", "gone"]]  # at once, not at the 600 s deadline
    assert clock.sleeps == []
    (read, failure) = heard
    assert isinstance(read, AssetInfo)
    assert (read.assetId, read.status) == ("ok", "Processing")
    assert isinstance(failure, AssetFailure)
    assert (failure.assetId, failure.reason, failure.url) == ("gone", "asset gone not found", None)
    assert failure.model_extra == {"checkedBy": "review-7"}  # unknown fields are kept


async def test_batch_answers_carry_typed_failed_items() -> None:
    transport, _ = sd2_service({}, {"x": "asset x not found"})
    async with _client(transport, FakeClock()) as c:
        upload = await c.assets.sd2_upload(image_urls=["https://example.com/tiny.png"])
        status = await c.assets.sd2_status(["x"])
    assert upload.items == []
    assert [(f.url, f.assetType, f.reason) for f in upload.failed_items] == [
        ("https://example.com/tiny.png", "Image", "too small"),
        (None, None, "quota exceeded"),
    ]
    assert [(f.assetId, f.reason) for f in status.failed_items] == [("x", "asset x not found")]
    assert all(isinstance(f, AssetFailure) for f in [*upload.failed_items, *status.failed_items])
