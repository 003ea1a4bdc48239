"""The gateway's memory stays bounded however large the files it carries: 30 concurrent
20 MiB uploads (row 8 of issue 31) and two 150 MiB results (row 10) are streamed through
files, never held whole. Measured with tracemalloc: every Python allocation of this process
(the gateway, its built-in emulator and the test's clients), so any whole-file copy shows."""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2

from mediagen_nb.classroom import start_classroom
from tests._stub_upstream import Media, stub_upstream, wait_all

MIB = 1024 * 1024
UPLOADS = 30
UPLOAD_BYTES = 20 * MIB
UPLOAD_GROWTH_LIMIT = 256 * MIB
"""Two uploads in flight may each be held whole by the built-in emulator (about 40 MiB each
with its join); before the fix the gateway read all 30 whole and copied them (1.4-2 GB)."""
PNG_HEAD = b"\x89PNG\r\n\x1a\n"


async def _chunks(data: bytes, size: int = 256 * 1024) -> AsyncIterator[bytes]:
    view = memoryview(data)
    for start in range(0, len(data), size):
        yield bytes(view[start : start + size])


def test_thirty_concurrent_uploads_keep_the_gateway_memory_bounded(tmp_path: Path) -> None:
    payload = PNG_HEAD + bytes(UPLOAD_BYTES - len(PNG_HEAD))
    with start_classroom(["amy"], upstream="emulator", folder=tmp_path / "class") as gateway:
        code = gateway.codes["amy"]

        async def upload(http: httpx2.AsyncClient, n: int) -> dict[str, object]:
            response = await http.post(
                f"{gateway.base_url}/uploads",
                params={"name": f"big-{n}.png"},
                content=_chunks(payload),
                headers={
                    "authorization": f"Bearer {code}",
                    "content-type": "image/png",
                    "content-length": str(len(payload)),
                },
            )
            assert response.status_code == 200, response.text
            data: dict[str, object] = response.json()["data"]
            return data

        async def run() -> list[dict[str, object]]:
            limits = httpx2.Limits(max_connections=UPLOADS)
            async with httpx2.AsyncClient(timeout=300, limits=limits) as http:
                return await asyncio.gather(*(upload(http, n) for n in range(UPLOADS)))

        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            stored = asyncio.run(run())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    growth = peak - before
    print(f"{UPLOADS} uploads of {UPLOAD_BYTES // MIB} MiB: peak grew by {growth / MIB:.0f} MiB")
    assert [item["bytes"] for item in stored] == [UPLOAD_BYTES] * UPLOADS
    assert {item["contentType"] for item in stored} == {"image/png"}
    assert growth < UPLOAD_GROWTH_LIMIT


RESULT_BYTES = 150 * MIB
DOWNLOAD_GROWTH_LIMIT = 64 * MIB
"""Streamed to disk, a download holds one chunk at a time; before the fix each of the two
results was held whole, then joined (about 650 MiB)."""


def test_two_large_results_download_with_bounded_memory(tmp_path: Path) -> None:
    chunk = PNG_HEAD + bytes(MIB - len(PNG_HEAD))
    media = {key: Media(chunk, "image/png", repeat=RESULT_BYTES // MIB) for key in ("a", "b")}
    with (
        stub_upstream(media) as (stub, upstream),
        start_classroom(["amy"], upstream=upstream, folder=tmp_path / "class") as gateway,
    ):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            results = asyncio.run(wait_all(gateway, gateway.codes["amy"], ["a", "b"]))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        sizes = sorted(p.stat().st_size for p in gateway.media_dir.iterdir())
    growth = peak - before
    print(f"two results of {RESULT_BYTES // MIB} MiB: peak grew by {growth / MIB:.0f} MiB")
    assert [r["status"] for r in results] == ["completed", "completed"]
    assert dict(stub.downloads) == {"a": 1, "b": 1}
    assert sizes == [RESULT_BYTES, RESULT_BYTES]
    assert growth < DOWNLOAD_GROWTH_LIMIT
