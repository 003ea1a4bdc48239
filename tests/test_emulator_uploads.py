"""The emulator's file upload (demo mode): stored bytes come back from the URL it returns,
without auth; wrong types, empty and oversize bodies are refused; the store is bounded; with a
state folder a new emulator still serves the files."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette

from mediagen_nb.client import APIError, AsyncClient
from mediagen_nb.emulator import create_app
from mediagen_nb.emulator._uploads import MAX_UPLOAD_BYTES, UploadStore, safe_name
from tests._support import KEY

PNG_BYTES = b"\x89PNG\r\n\x1a\n fake rest"
BASE = "http://emulator.test/api"


def _client(app: Starlette) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url=BASE)


async def _upload(http: httpx2.AsyncClient, data: bytes, ctype: str, name: str) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": ctype}
    return await http.post(f"{BASE}/uploads", params={"name": name}, content=data, headers=headers)


async def test_upload_then_download_without_auth() -> None:
    app = create_app(api_key=KEY, seed=1)
    async with _client(app) as http:
        answer = await _upload(http, PNG_BYTES, "image/png", "../My Photo (1).png")
        assert answer.status_code == 200
        data = answer.json()["data"]
        assert data["bytes"] == len(PNG_BYTES)
        assert data["contentType"] == "image/png"
        url = data["url"]
        assert url.startswith(f"{BASE}/media/uploads/")
        assert url.endswith("/My-Photo-1-.png")
        served = await http.get(url)  # no Authorization header
        assert served.status_code == 200
        assert served.content == PNG_BYTES
        assert served.headers["content-type"] == "image/png"
        wrong_name = await http.get(url.rsplit("/", 1)[0] + "/other.png")
        assert wrong_name.status_code == 404
        unknown = await http.get(f"{BASE}/media/uploads/{'A' * 24}/x.png")
        assert unknown.status_code == 404


@pytest.mark.parametrize(
    ("data", "ctype", "status", "message"),
    [
        (b"hello", "text/plain", 415, "Content-Type must be an image, video, audio or PDF type"),
        (b"", "image/png", 400, "the file is empty"),
        (b"\0" * (MAX_UPLOAD_BYTES + 1), "video/mp4", 413, "larger than 20 MiB"),
    ],
)
async def test_refusals(data: bytes, ctype: str, status: int, message: str) -> None:
    async with _client(create_app(api_key=KEY)) as http:
        answer = await _upload(http, data, ctype, "x")
        assert answer.status_code == status
        assert message in answer.json()["error"]["message"]


async def test_upload_needs_the_key() -> None:
    async with _client(create_app(api_key=KEY)) as http:
        answer = await http.post(
            f"{BASE}/uploads", content=b"x", headers={"Content-Type": "image/png"}
        )
        assert answer.status_code == 401


def test_store_forgets_the_oldest_beyond_its_cap() -> None:
    store = UploadStore(max_bytes=10)
    first = store.put(b"123456", "a.png", "image/png")
    second = store.put(b"7890", "b.png", "image/png")
    assert store.stored_bytes == 10
    third = store.put(b"xyz", "c.png", "image/png")
    assert store.get(first.token) is None
    assert [store.get(s.token) for s in (second, third)] == [
        (second, b"7890"),
        (third, b"xyz"),
    ]
    assert store.stored_bytes == 7


def test_files_survive_in_the_state_folder(tmp_path: Path) -> None:
    stored = UploadStore(tmp_path / "uploads").put(b"RIFF....WEBP", "w.webp", "image/webp")
    again = UploadStore(tmp_path / "uploads")
    assert again.get(stored.token) == (stored, b"RIFF....WEBP")


def test_safe_names() -> None:
    assert safe_name("C:\\Users\\me\\Ünïcode photo.JPG") == "n-code-photo.JPG"
    assert safe_name("...") == "upload"
    assert safe_name(None) == "upload"
    assert len(safe_name("a" * 300)) == 80


async def test_client_host_file_is_refused_by_a_service_without_uploads() -> None:
    async def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(404, json={"error": {"type": "not_found_error", "message": "no"}})

    async with AsyncClient(
        api_key="k",
        base_url="https://api.example.com/api",
        transport=httpx2.MockTransport(handler),
        recorder=None,
    ) as client:
        with pytest.raises(APIError, match="404"):
            await client.assets.host_file(b"x", name="a.png", content_type="image/png")
