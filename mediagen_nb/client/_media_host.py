"""A place the service can fetch local files from: any fsspec bucket (S3, GCS, Azure...).

``MEDIAGEN_MEDIA_HOST=s3://bucket/prefix`` (``pip install "mediagen_nb[host]"``; gcsfs or
adlfs for the others). Keys are content hashes; the service gets a signed URL, or the plain
one for a public bucket (see ``MediaHost``). Credentials come from the store's settings.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from mediagen_nb._imagesize import media_type

from ._config import ENV_MEDIA_HOST, ENV_MEDIA_HOST_PUBLIC
from ._exceptions import ConfigurationError

DEFAULT_EXPIRES_S = 3600
_SUFFIX = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "image/bmp": ".bmp",
    "video/mp4": ".mp4",
    "video/webm": ".webm",
}
_TRUE = {"1", "true", "yes", "on"}


class MediaHost:
    """Uploads bytes to a bucket once per content and returns a URL the service can fetch.

    Decisions: the key is ``{prefix}/{sha256}{suffix}``, so a picture is uploaded once (an
    existing key is not written again). The service gets a signed URL valid ``expires``
    seconds (default 3600, ``?expires=`` on the URL); a bucket the user declares public
    (``MEDIAGEN_MEDIA_HOST_PUBLIC=1`` or ``?public=1``) gets the signed URL without its query
    string, the object's plain address. Endpoints and keys come from the store's own settings
    (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``...). Async filesystems run on the running
    loop; others in a worker thread.

    Args:
        url: An fsspec URL of a folder (``s3://bucket/prefix``); ``?public=1`` and
            ``?expires=SECONDS`` may follow it.
        public: The bucket serves its objects publicly (plain URLs, no signature).
        expires: Lifetime of signed URLs, in seconds.
        storage_options: Passed to the fsspec filesystem (e.g. ``endpoint_url``).
    """

    def __init__(
        self,
        url: str,
        *,
        public: bool | None = None,
        expires: int | None = None,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query))
        self.url = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        if not parts.scheme or not parts.netloc:
            raise ConfigurationError(
                f"{ENV_MEDIA_HOST}: {url!r} is not a bucket URL (e.g. s3://bucket/prefix)"
            )
        self.public = public if public is not None else query.get("public", "") in _TRUE
        self.expires = int(expires or query.get("expires") or DEFAULT_EXPIRES_S)
        self.storage_options = dict(storage_options or {})
        self.uploads = 0
        """How many files were written (a content already there is not written again)."""
        self._fs: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"MediaHost({self.url!r}, public={self.public}, expires={self.expires})"

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> MediaHost | None:
        """The host named by ``MEDIAGEN_MEDIA_HOST`` (None when unset).

        Args:
            environ: The variables to read; by default ``os.environ``.
                ``MEDIAGEN_MEDIA_HOST_PUBLIC`` set to ``1``, ``true``, ``yes`` or ``on``
                declares the bucket public.

        Returns:
            The host, or None when the variable is unset or empty.
        """
        env = os.environ if environ is None else environ
        url = env.get(ENV_MEDIA_HOST, "").strip()
        if not url:
            return None
        public = env.get(ENV_MEDIA_HOST_PUBLIC, "").strip().lower()
        return cls(url, public=True if public in _TRUE else None)

    def key_for(self, data: bytes) -> str:
        """Where a file is stored: one object per content, so each is uploaded once.

        Args:
            data: The file's bytes.

        Returns:
            ``{bucket/prefix}/{sha256}{suffix}`` without the scheme; the suffix comes from
            the content (``.png``, ``.mp4``...; ``.bin`` when unknown).
        """
        digest = hashlib.sha256(data).hexdigest()
        base = self.url.split("://", 1)[1]
        return f"{base}/{digest}{_SUFFIX.get(media_type(data), '.bin')}"

    async def _filesystem(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._fs is not None and self._loop is loop:
            return self._fs
        try:
            import fsspec
        except ImportError as exc:
            raise ConfigurationError(
                f"{ENV_MEDIA_HOST} needs fsspec and the store's package: "
                'pip install "mediagen_nb[host]" (S3), or gcsfs / adlfs'
            ) from exc
        scheme = self.url.split("://", 1)[0]
        cls = fsspec.get_filesystem_class(scheme)
        if getattr(cls, "async_impl", False):
            fs = cls(asynchronous=True, skip_instance_cache=True, **self.storage_options)
            if hasattr(fs, "set_session"):
                await fs.set_session()
        else:
            fs = cls(skip_instance_cache=True, **self.storage_options)
        self._fs, self._loop = fs, loop
        return fs

    async def put(self, data: bytes) -> str:
        """Upload ``data`` unless its key exists; return the URL the service fetches.

        Args:
            data: The file's bytes.

        Returns:
            A signed URL valid ``expires`` seconds, or the plain URL of a public bucket.
        """
        fs = await self._filesystem()
        key = self.key_for(data)
        if fs.async_impl:
            if not await fs._exists(key):
                await fs._pipe_file(key, data, **self._write_options(data))
                self.uploads += 1
            signed = await fs._url(key, expires=self.expires)
        else:
            if not await asyncio.to_thread(fs.exists, key):
                await asyncio.to_thread(fs.pipe_file, key, data)
                self.uploads += 1
            signed = await asyncio.to_thread(fs.sign, key, self.expires)
        if self.public:
            parts = urlsplit(str(signed))
            return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        return str(signed)

    async def aclose(self) -> None:
        """Close the filesystem's connections (s3fs keeps an aiohttp session open)."""
        fs, self._fs, self._loop = self._fs, None, None
        creator = getattr(fs, "_s3creator", None)
        if creator is not None:
            await creator.__aexit__(None, None, None)

    def _write_options(self, data: bytes) -> dict[str, Any]:
        """The object's content type where the store takes one (S3's ``ContentType``)."""
        if self.url.startswith(("s3://", "s3a://")):
            return {"ContentType": media_type(data)}
        return {}
