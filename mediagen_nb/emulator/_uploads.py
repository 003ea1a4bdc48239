"""Files uploaded to the emulator, served back under its own media root (demo mode only).

The real service fetches asset media from public URLs; in demo mode the panels post a picked
file here and get a URL the emulator's asset libraries accept.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from mediagen_nb._serverkit import body as bodies
from mediagen_nb._serverkit.errors import JSON_TYPE, dumps, error_response
from mediagen_nb._serverkit.media_types import media_headers, served_type
from mediagen_nb._serverkit.urls import media_root
from mediagen_nb.emulator._task_routes import MEDIA_CACHE_CONTROL

UPLOAD_PATH: Final = "/uploads"
SERVE_PATH: Final = "/media/uploads/{token}/{name}"
MAX_UPLOAD_BYTES: Final = 20 * 1024 * 1024
MAX_STORED_BYTES: Final = 256 * 1024 * 1024
MAX_STORED_FILES: Final = 1_000
ALLOWED_PREFIXES: Final = ("image/", "video/", "audio/")
ALLOWED_TYPES: Final = frozenset({"application/pdf"})
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(name: str | None) -> str:
    """A file name that is one harmless URL path segment (``upload`` when nothing is left)."""
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = _UNSAFE.sub("-", base).strip(".-")[:80]
    return cleaned or "upload"


def allowed_type(content_type: str) -> bool:
    """Whether a media type is one the asset libraries take (image, video, audio, PDF)."""
    return content_type.startswith(ALLOWED_PREFIXES) or content_type in ALLOWED_TYPES


@dataclass(frozen=True)
class StoredFile:
    """One uploaded file."""

    token: str
    name: str
    content_type: str
    size: int


class UploadStore:
    """Uploaded files by token, bounded in total size; on disk when given a folder."""

    def __init__(
        self,
        folder: Path | None = None,
        max_bytes: int = MAX_STORED_BYTES,
        max_files: int = MAX_STORED_FILES,
    ) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self.max_files = max_files
        self._files: OrderedDict[str, StoredFile] = OrderedDict()
        self._data: dict[str, bytes] = {}
        self._stored = 0
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            self._load(folder)

    def _load(self, folder: Path) -> None:
        found = sorted(folder.glob("*.bin"), key=lambda p: p.stat().st_mtime)
        for path in found:
            meta = path.with_suffix(".type")
            token = path.stem
            if not _TOKEN.match(token) or not meta.is_file():
                continue
            content_type, _, name = meta.read_text("utf-8").partition("\n")
            size = path.stat().st_size
            self._files[token] = StoredFile(token, safe_name(name), content_type, size)
            self._stored += size
        while len(self._files) > self.max_files or self._stored > self.max_bytes:
            self._forget(next(iter(self._files)))

    @property
    def stored_bytes(self) -> int:
        """Bytes held by all remembered uploads (a running sum)."""
        return self._stored

    def __len__(self) -> int:
        return len(self._files)

    def put(self, data: bytes, name: str | None, content_type: str) -> StoredFile:
        """Keep ``data``; forgets the oldest uploads when the total would exceed the cap."""
        token = secrets.token_urlsafe(18)
        stored = StoredFile(token, safe_name(name), content_type, len(data))
        while self._files and (
            self._stored + stored.size > self.max_bytes or len(self._files) >= self.max_files
        ):
            self._forget(next(iter(self._files)))
        if self.folder is not None:
            (self.folder / f"{token}.type").write_text(f"{content_type}\n{stored.name}", "utf-8")
            (self.folder / f"{token}.bin").write_bytes(data)
        else:
            self._data[token] = data
        self._files[token] = stored
        self._stored += stored.size
        return stored

    def get(self, token: str) -> tuple[StoredFile, bytes] | None:
        """The file and its bytes, or None when unknown or forgotten."""
        stored = self._files.get(token)
        if stored is None:
            return None
        if self.folder is None:
            return stored, self._data[token]
        try:
            return stored, (self.folder / f"{token}.bin").read_bytes()
        except OSError:
            self._forget(token)
            return None

    def _forget(self, token: str) -> None:
        gone = self._files.pop(token, None)
        if gone is not None:
            self._stored -= gone.size
        self._data.pop(token, None)
        if self.folder is not None:
            for suffix in (".bin", ".type"):
                (self.folder / f"{token}{suffix}").unlink(missing_ok=True)


async def _read_capped(request: Request, cap: int) -> bytes | None:
    """The body, or None as soon as it is longer than ``cap``."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def upload_store(state_dir: Path | None = None) -> UploadStore:
    """The store of an emulator (on disk under ``state_dir/uploads`` when given)."""
    return UploadStore(state_dir / "uploads" if state_dir is not None else None)


def upload_routes(
    state_dir: Path | None = None, store: UploadStore | None = None
) -> list[BaseRoute]:
    """Routes (relative to the ``/api`` mount) that take a file and serve it back."""
    store = store if store is not None else upload_store(state_dir)
    too_big = f"the file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MiB"

    async def upload(request: Request) -> Response:
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if not allowed_type(content_type):
            shown = content_type or "none"
            return error_response(
                415, f"Content-Type must be an image, video, audio or PDF type (got {shown})"
            )
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_UPLOAD_BYTES:
            return error_response(413, too_big)
        wait = bodies.UPLOAD_DEADLINE_S
        try:
            async with asyncio.timeout(wait):
                data = await _read_capped(request, MAX_UPLOAD_BYTES)
        except TimeoutError:
            return error_response(408, f"the file did not arrive within {wait:g} s")
        if data is None:
            return error_response(413, too_big)
        if not data:
            return error_response(400, "the file is empty")
        kind = served_type(data)
        stored = store.put(data, request.query_params.get("name"), kind)
        configured = getattr(getattr(request.app.state, "emulator", None), "public_origin", None)
        url = f"{media_root(request.scope, configured)}uploads/{stored.token}/{stored.name}"
        body = {
            "code": "0",
            "msg": "success",
            "data": {"url": url, "bytes": stored.size, "contentType": kind},
        }
        return Response(dumps(body), media_type=JSON_TYPE)

    async def serve(request: Request) -> Response:
        token: str = request.path_params["token"]
        found = store.get(token) if _TOKEN.match(token) else None
        if found is None or found[0].name != request.path_params["name"]:
            return error_response(404, "no such uploaded file (unknown or forgotten)")
        stored, data = found
        kind = served_type(data)  # from the bytes, whatever was stored or declared
        headers = {"cache-control": MEDIA_CACHE_CONTROL, **media_headers(kind, stored.name)}
        return Response(data, media_type=kind, headers=headers)

    return [
        Route(UPLOAD_PATH, upload, methods=["POST"]),
        Route(SERVE_PATH, serve, methods=["GET"]),
    ]
