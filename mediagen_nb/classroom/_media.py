"""Results on the gateway: fetched once, streamed to disk, typed from their bytes, served safely.

Only image and video formats a browser shows passively are kept (``RESULT_TYPES``); result
URLs on a private address are fetched only from the upstream's own host. Every media answer
carries ``nosniff`` and a sandbox CSP, and a hidden item's media answers 404.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import secrets
import socket
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import httpx2
from starlette.responses import FileResponse, Response

from mediagen_nb._serverkit.errors import error_response
from mediagen_nb._serverkit.media_types import media_headers, sniff
from mediagen_nb.classroom._upstream import Upstream

MAX_MEDIA_BYTES: Final = 512 * 1024 * 1024
SNIFF_BYTES: Final = 64
RESULT_TYPES: Final = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "video/mp4": ".mp4",
    "video/quicktime": ".mov",
    "video/webm": ".webm",
}
"""The only results kept, by the type their bytes are, and the extension they are stored as."""
CACHE_CONTROL: Final = "private, no-cache"
"""Browsers ask again each time, so a hidden item stops showing at once (a 304 is cheap)."""


class MediaRefusedError(Exception):
    """A result the gateway will not keep (the sentence says why); trying again cannot help."""


def _host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


async def check_address(url: str, upstream: Upstream) -> None:
    """Refuse a result URL that is not http(s), or that names a non-public address on another
    host than the upstream's: every address its host name resolves to must be public.

    Raises:
        MediaRefusedError: the URL is refused.
        OSError: the host name does not resolve now (the caller tries again later).
    """
    parts = urlsplit(url)
    host = _host_of(url)
    if parts.scheme not in ("http", "https") or not host:
        raise MediaRefusedError("the service's result URL is not an http(s) URL")
    if host in {_host_of(upstream.base_url), _host_of(upstream.text_base_url)}:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not address.is_global:
            raise MediaRefusedError(
                f"the service's result URL points at a private address ({host}); "
                "the gateway does not fetch it"
            )


async def download(
    http: httpx2.AsyncClient, url: str, headers: dict[str, str], folder: Path
) -> str:
    """Stream the result at ``url`` into ``folder``; the stored file's name.

    Raises:
        MediaRefusedError: the bytes are no image or video kept here, or larger than the cap.
        httpx2.HTTPError: the download failed (the caller tries again).
    """
    part = folder / f".{secrets.token_urlsafe(12)}.part"
    try:
        async with http.stream("GET", url, headers=headers) as response:
            response.raise_for_status()
            head = await _stream_to(part, response)
        kind = sniff(head)
        suffix = RESULT_TYPES.get(kind or "")
        if suffix is None:
            raise MediaRefusedError(
                "the service's result is not an image or video the gateway shows"
            )
        name = secrets.token_urlsafe(16) + suffix
        os.replace(part, folder / name)
        return name
    finally:
        part.unlink(missing_ok=True)


async def _stream_to(path: Path, response: httpx2.Response) -> bytes:
    """Write the response body to ``path`` chunk by chunk; its first ``SNIFF_BYTES``."""
    head = b""
    size = 0
    with path.open("wb") as file:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > MAX_MEDIA_BYTES:
                raise MediaRefusedError(
                    f"the service's result is larger than {MAX_MEDIA_BYTES // 2**20} MiB"
                )
            if len(head) < SNIFF_BYTES:
                head += chunk[: SNIFF_BYTES - len(head)]
            await asyncio.to_thread(file.write, chunk)
    return head


def media_response(path: Path, name: str) -> Response:
    """A stored result, typed from its bytes (``application/octet-stream`` as an attachment
    for anything else), with ``nosniff`` and a sandbox CSP."""
    try:
        with path.open("rb") as file:
            head = file.read(SNIFF_BYTES)
    except OSError:
        return error_response(404, "no such media on this gateway")
    kind = sniff(head)
    media_type = kind if kind in RESULT_TYPES else "application/octet-stream"
    headers = {**media_headers(media_type, name), "cache-control": CACHE_CONTROL}
    return FileResponse(path, media_type=media_type, headers=headers)
