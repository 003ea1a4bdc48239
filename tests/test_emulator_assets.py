"""Both asset libraries of the emulator, and how generation tasks use (and lose) assets."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import pytest

from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import FakeClock

REVIEW_MAX = 60.0


async def upload_seedance2(c: httpx2.AsyncClient, url: str, **extra: Any) -> str:
    body = {"assetType": "Image", "url": url, **extra}
    data = (await c.post("/svcVideo2/asset/upload", json=body)).json()
    assert data["code"] == "0", data
    asset_id: str = data["data"]["assetId"]
    return asset_id


async def test_seedance2_upload_review_and_detail() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        asset_id = await upload_seedance2(c, "https://example.com/actor.png", name="lead")
        assert re.fullmatch(r"asset-\d{13}-[0-9a-f]{8}", asset_id)
        first = (await c.get(f"/svcVideo2/asset/{asset_id}")).json()
        assert first["code"] == "0"
        assert first["data"] == {
            "assetId": asset_id,
            "name": "lead",
            "assetType": "Image",
            "status": "Processing",
            "url": "https://example.com/actor.png",
            "createTime": "2025-06-15 15:06:40",
        }
        clock.advance(REVIEW_MAX)
        later = (await c.get(f"/svcVideo2/asset/{asset_id}")).json()
    assert later["data"]["status"] == "Active"


@pytest.mark.parametrize("url", ["https://example.com/reject.png", "https://x.org/NSFW/a.jpg"])
async def test_review_fails_for_marked_urls(url: str) -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        asset_id = await upload_seedance2(c, url)
        clock.advance(REVIEW_MAX)
        data = (await c.get(f"/svcVideo2/asset/{asset_id}")).json()
    assert data["data"]["status"] == "Failed"


async def test_delete_makes_an_id_permanently_invalid() -> None:
    async with client(make_app(FakeClock())) as c:
        asset_id = await upload_seedance2(c, "https://example.com/a.png")
        deleted = (await c.delete(f"/svcVideo2/asset/{asset_id}")).json()
        assert deleted["code"] == "0"
        assert deleted["data"] is None
        assert "deleted" in deleted["msg"]
        again = (await c.get(f"/svcVideo2/asset/{asset_id}")).json()
        assert again["code"] != "0"
        assert "deleted" in again["msg"]
        assert (await c.delete(f"/svcVideo2/asset/{asset_id}")).json()["code"] != "0"


@pytest.mark.parametrize(
    "body",
    [
        {"url": "https://example.com/a.png"},
        {"assetType": "Picture", "url": "https://example.com/a.png"},
        {"assetType": "Image", "url": "file:///etc/passwd"},
        {"assetType": "Image", "url": 7},
        [],
    ],
)
async def test_seedance2_upload_rejects_invalid_bodies(body: Any) -> None:
    async with client(make_app(FakeClock())) as c:
        data = (await c.post("/svcVideo2/asset/upload", json=body)).json()
    assert data["code"] == "400"
    assert data["data"] is None
    assert ":" in data["msg"]


async def test_unknown_asset_ids_answer_non_zero_codes() -> None:
    async with client(make_app(FakeClock())) as c:
        for asset_id in ("asset-1-deadbeef", "upload", "%E2%80%AE", "a" * 300):
            response = await c.get(f"/svcVideo2/asset/{asset_id}")
            assert response.status_code == 200
            assert response.json()["code"] == "404"
            assert response.json()["data"] is None
        control = await c.get("/svcVideo2/asset/%00")
    assert control.status_code == 400
    assert control.json()["error"]["type"] == "invalid_request_error"


async def test_sd2_upload_items_failed_items_and_status() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        body = {
            "imageUrls": ["https://example.com/a.png"],
            "audioUrls": ["https://example.com/voice.mp3#t=4"],
        }
        data = (await c.post("/asset/sd2Manxue/assetUpload", json=body)).json()
        assert data["code"] == "0"
        items = data["data"]["items"]
        assert [(i["assetType"], i["originalUrl"], i["status"]) for i in items] == [
            ("Image", "https://example.com/a.png", "submitted"),
            ("Audio", "https://example.com/voice.mp3#t=4", "submitted"),
        ]
        assert data["data"]["failedItems"] == []
        ids = [i["assetId"] for i in items]
        status = (
            await c.post("/asset/sd2Manxue/assetStatus", json={"assetIds": [*ids, "nope"]})
        ).json()
        assert status["code"] == "0"
        assert [i["status"] for i in status["data"]["items"]] == ["Processing", "Processing"]
        assert status["data"]["failedItems"] == [
            {"assetId": "nope", "reason": "asset nope not found"}
        ]
        clock.advance(REVIEW_MAX)
        status = (await c.post("/asset/sd2Manxue/assetStatus", json={"assetIds": ids})).json()
    assert [i["status"] for i in status["data"]["items"]] == ["Active", "Active"]


async def test_sd2_invalid_upload_names_the_bad_urls() -> None:
    async with client(make_app(FakeClock())) as c:
        body = {"imageUrls": ["https://example.com/a.png", "ftp://x/y.png"]}
        data = (await c.post("/asset/sd2Manxue/assetUpload", json=body)).json()
        empty = (await c.post("/asset/sd2Manxue/assetUpload", json={"imageUrls": []})).json()
        no_ids = (await c.post("/asset/sd2Manxue/assetStatus", json={})).json()
    assert data["code"] == "400"
    assert data["msg"].startswith("imageUrls[1]:")
    assert data["data"]["items"] == []
    assert data["data"]["failedItems"][0]["url"] == "ftp://x/y.png"
    assert empty["code"] == "400"
    assert no_ids["code"] == "400"
    assert "assetIds" in no_ids["msg"]


async def test_libraries_do_not_see_each_others_ids() -> None:
    async with client(make_app(FakeClock())) as c:
        sd2 = (
            await c.post(
                "/asset/sd2Manxue/assetUpload", json={"imageUrls": ["https://e.com/a.png"]}
            )
        ).json()
        sd2_id = sd2["data"]["items"][0]["assetId"]
        assert (await c.get(f"/svcVideo2/asset/{sd2_id}")).json()["code"] == "404"
        s2_id = await upload_seedance2(c, "https://e.com/b.png")
        status = (await c.post("/asset/sd2Manxue/assetStatus", json={"assetIds": [s2_id]})).json()
    assert status["data"]["failedItems"][0]["assetId"] == s2_id


# -- assets in generation requests ----------------------------------------------------------


def seedance2_body(*refs: str) -> dict[str, Any]:
    return {**VALID_BODIES["seedance2"], "referenceImages": list(refs)}


async def first_result(
    c: httpx2.AsyncClient, clock: FakeClock, body: dict[str, Any], family: str = "seedance2"
) -> dict[str, Any]:
    created = (await c.post(path_of(family), json=body)).json()
    assert created["status"] == "queued", created
    clock.advance(30)
    result: dict[str, Any] = (await c.get(f"/v1/result/{created['id']}")).json()
    return result


async def test_active_asset_reference_completes() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        asset_id = await upload_seedance2(c, "https://example.com/face.png")
        clock.advance(REVIEW_MAX)
        created = (
            await c.post(path_of("seedance2"), json=seedance2_body(f"asset://{asset_id}"))
        ).json()
        clock.advance(3600)
        result = (await c.get(f"/v1/result/{created['id']}")).json()
    assert result["status"] == "completed"


async def test_processing_failed_unknown_and_deleted_assets_fail_the_task() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        pending = await upload_seedance2(c, "https://example.com/a.png")
        processing = await first_result(c, clock, seedance2_body(f"asset://{pending}"))
        rejected = await upload_seedance2(c, "https://example.com/reject.png")
        clock.advance(REVIEW_MAX)
        failed = await first_result(c, clock, seedance2_body(f"asset://{rejected}"))
        unknown = await first_result(c, clock, seedance2_body("asset://asset-1-00000000"))
        gone = await upload_seedance2(c, "https://example.com/b.png")
        await c.delete(f"/svcVideo2/asset/{gone}")
        deleted = await first_result(c, clock, seedance2_body(f"asset://{gone}"))
    assert processing["status"] == "failed"
    assert processing["error"].startswith("referenceImages[0]: ")
    assert "Processing" in processing["error"]
    assert "Failed" in failed["error"]
    assert "not found" in unknown["error"]
    assert "deleted" in deleted["error"]


async def test_deleting_an_asset_fails_pending_tasks_only() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        asset_id = await upload_seedance2(c, "https://example.com/a.png")
        clock.advance(REVIEW_MAX)
        body = seedance2_body(f"asset://{asset_id}")
        done = (await c.post(path_of("seedance2"), json=body)).json()["id"]
        clock.advance(3600)
        pending = (await c.post(path_of("seedance2"), json=body)).json()["id"]
        clock.advance(30)
        assert (await c.get(f"/v1/result/{pending}")).json()["status"] == "queued"
        await c.delete(f"/svcVideo2/asset/{asset_id}")
        clock.advance(30)
        pending_result = (await c.get(f"/v1/result/{pending}")).json()
        done_result = (await c.get(f"/v1/result/{done}")).json()
    assert pending_result["status"] == "failed"
    assert pending_result["error"] == f"referenced asset {asset_id} was deleted"
    assert pending_result["video_url"] is None
    assert done_result["status"] == "completed"
