"""The emulator's media are safe on its origin and its URLs are its own: content types come
from the bytes, never the uploader; nothing is served as active content; the private-address
rule and the result URLs ignore the ``Host`` header; media tokens are not seeded; uploads are
bounded in count as well as bytes."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mediagen_nb.emulator import create_app, start_emulator
from mediagen_nb.emulator._uploads import UploadStore
from tests._emulator_helpers import client, make_app
from tests._support import KEY, FakeClock

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
HOSTILE: dict[str, tuple[str, bytes]] = {
    "html-in-type": ("image/x, text/html", b"<html><script>alert(document.domain)</script>"),
    "svg-script": (
        "image/svg+xml",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script>',
    ),
    "html-as-png": ("image/png", b"<!doctype html><script>alert(1)</script>"),
}
ACTIVE = ("text/html", "image/svg+xml", "text/xml", "application/xhtml+xml", "text/javascript")


async def upload(http: httpx2.AsyncClient, ctype: str, data: bytes, name: str) -> str:
    answer = await http.post(
        "/uploads", params={"name": name}, content=data, headers={"Content-Type": ctype}
    )
    assert answer.status_code == 200, answer.text
    url = answer.json()["data"]["url"]
    assert isinstance(url, str)
    return url


def assert_safe_media_headers(response: httpx2.Response) -> None:
    """What every media response must carry, whatever its bytes."""
    assert response.headers["x-content-type-options"] == "nosniff"
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "sandbox" in policy
    assert "content-disposition" in response.headers


@pytest.mark.parametrize("name", sorted(HOSTILE))
async def test_uploaded_active_content_is_never_served_as_such(name: str) -> None:
    ctype, data = HOSTILE[name]
    async with client(make_app()) as http:
        url = await upload(http, ctype, data, "page.html")
        served = await httpx2.AsyncClient(transport=http._transport).get(url)  # no key
    assert served.status_code == 200
    assert served.content == data
    served_type = served.headers["content-type"].split(";")[0].strip()
    assert not any(kind in served.headers["content-type"] for kind in ACTIVE)
    assert served_type == "application/octet-stream"
    assert served.headers["content-disposition"].startswith("attachment")
    assert_safe_media_headers(served)


async def test_real_media_is_served_inline_with_its_sniffed_type() -> None:
    async with client(make_app()) as http:
        url = await upload(http, "image/gif", PNG, "pic.png")  # declared wrongly
        served = await http.get(url)
    assert served.headers["content-type"] == "image/png"
    assert served.headers["content-disposition"].startswith("inline")
    assert 'filename="pic.png"' in served.headers["content-disposition"]
    assert_safe_media_headers(served)


async def test_result_media_carry_the_same_headers() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as http:
        body = {"model": "gpt-image-2", "prompt": "a lighthouse", "ratio": "1:1"}
        task_id = (await http.post("/v1/image2/images", json=body)).json()["id"]
        clock.advance(3600)
        result = (await http.get(f"/v1/result/{task_id}")).json()
        served = await http.get(result["image_url"])
    assert served.headers["content-type"] == "image/png"
    assert served.content.startswith(b"\x89PNG")
    assert_safe_media_headers(served)


# -- row 8: the Host header decides nothing ------------------------------------------------


def sd2_upload(url: str) -> dict[str, Any]:
    return {"imageUrls": [url]}


@pytest.mark.parametrize("host", ["169.254.169.254", "127.0.0.1:1", "10.0.0.5", "localhost"])
async def test_private_asset_urls_are_refused_whatever_host_says(host: str) -> None:
    url = f"http://{host}/latest/meta-data/iam"
    with start_emulator(api_key=KEY) as handle:
        headers = {"Authorization": f"Bearer {KEY}", "Host": host}
        async with httpx2.AsyncClient(base_url=handle.base_url, headers=headers) as http:
            answer = await http.post("/asset/sd2Manxue/assetUpload", json=sd2_upload(url))
    assert answer.status_code == 200
    assert answer.json()["code"] == "400"
    assert answer.json()["data"]["items"] == []


async def test_result_and_upload_urls_ignore_a_hostile_host_header() -> None:
    with start_emulator(api_key=KEY, speed=1000) as handle:
        headers = {"Authorization": f"Bearer {KEY}", "Host": "evil.example"}
        async with httpx2.AsyncClient(base_url=handle.base_url, headers=headers) as http:
            url = await upload(http, "image/png", PNG, "a.png")
    assert url.startswith(handle.base_url + "/media/uploads/")
    assert "evil.example" not in url


async def test_own_upload_urls_are_still_accepted_as_assets() -> None:
    with start_emulator(api_key=KEY) as handle:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with httpx2.AsyncClient(base_url=handle.base_url, headers=headers) as http:
            url = await upload(http, "image/png", PNG, "a.png")
            answer = await http.post("/asset/sd2Manxue/assetUpload", json=sd2_upload(url))
    assert answer.json()["code"] == "0"


# -- row 9: media tokens are not reproducible from the seed --------------------------------


async def _result_url(seed: int) -> str:
    clock = FakeClock()
    app = create_app(api_key=KEY, seed=seed, clock=clock)
    async with client(app) as http:
        body = {"model": "gpt-image-2", "prompt": "same prompt", "ratio": "1:1"}
        task_id = (await http.post("/v1/image2/images", json=body)).json()["id"]
        clock.advance(3600)
        url = (await http.get(f"/v1/result/{task_id}")).json()["image_url"]
    assert isinstance(url, str)
    return url


async def test_same_seed_gives_different_media_links() -> None:
    first, second = await _result_url(5), await _result_url(5)
    assert first != second


# -- row 13: uploads bounded in count, total kept as a running sum ----------------------------


def test_store_is_bounded_in_count_and_keeps_its_total() -> None:
    store = UploadStore(max_bytes=10**9, max_files=5)
    kept = [store.put(bytes([n]) * (n + 1), f"{n}.png", "image/png") for n in range(12)]
    assert len(store) == 5
    assert store.stored_bytes == sum(s.size for s in kept[-5:])
    assert all(store.get(s.token) is None for s in kept[:-5])
