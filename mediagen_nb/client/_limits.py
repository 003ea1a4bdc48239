"""How much of an answer the client reads: result downloads (a cap per kind) and JSON answers.

Bodies are read in chunks and refused (``ResponseTooLargeError``) once past their cap, or at
once when ``Content-Length`` says so. Result caps are raised with ``max_download_bytes`` or
``MEDIAGEN_MAX_DOWNLOAD_MB``; the JSON cap is fixed (no answer of the spec comes near it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

import httpx2

from ._config import ENV_MAX_DOWNLOAD_MB
from ._exceptions import ConfigurationError, ResponseTooLargeError

MIB: Final = 1024 * 1024
DEFAULT_MAX_DOWNLOAD: Final[Mapping[str, int]] = {"image": 64 * MIB, "video": 512 * MIB}
"""Largest result read per kind unless raised (the spec's results are a few MB)."""
MAX_JSON_BYTES: Final = 32 * MIB
"""Largest JSON answer read (task results, chat replies, asset envelopes)."""
MaxDownload = int | Mapping[str, int] | None
"""``max_download_bytes``: one cap for every kind, a cap per kind (``image``, ``video``), or
None for ``MEDIAGEN_MAX_DOWNLOAD_MB`` (MiB) or else ``DEFAULT_MAX_DOWNLOAD``."""
DOWNLOAD_HINT: Final = (
    f"raise it with AsyncClient(max_download_bytes=...) or {ENV_MAX_DOWNLOAD_MB} (MiB)"
)
JSON_HINT: Final = f"JSON answers are read up to {MAX_JSON_BYTES // MIB} MiB"


def _positive(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(f"{where}: must be a positive whole number of bytes")
    return value


def download_limits(value: MaxDownload, environ: Mapping[str, str] | None = None) -> dict[str, int]:
    """The cap per kind (``image``, ``video``) from the argument, else the environment.

    Raises:
        ConfigurationError: a cap that is not a positive whole number, or an unknown kind.
    """
    limits = dict(DEFAULT_MAX_DOWNLOAD)
    if value is None:
        raw = (os.environ if environ is None else environ).get(ENV_MAX_DOWNLOAD_MB, "").strip()
        if not raw:
            return limits
        try:
            megabytes = float(raw)
        except ValueError:
            megabytes = -1.0
        if not 0 < megabytes < 2**43:
            raise ConfigurationError(f"{ENV_MAX_DOWNLOAD_MB}: must be a positive number of MiB")
        return dict.fromkeys(limits, max(1, int(megabytes * MIB)))
    if isinstance(value, Mapping):
        for kind, cap in value.items():
            if kind not in limits:
                raise ConfigurationError(
                    f"max_download_bytes[{kind!r}]: the kinds are {', '.join(limits)}"
                )
            limits[kind] = _positive(cap, f"max_download_bytes[{kind!r}]")
        return limits
    return dict.fromkeys(limits, _positive(value, "max_download_bytes"))


def declared_size(response: httpx2.Response) -> int | None:
    """The body's size from ``Content-Length`` (None when absent, malformed or encoded)."""
    declared = response.headers.get("content-length", "").strip()
    encoded = response.headers.get("content-encoding", "identity").lower() != "identity"
    return int(declared) if declared.isdigit() and not encoded else None


async def read_capped(response: httpx2.Response, limit: int, *, what: str, hint: str) -> bytes:
    """Read an open streamed body of at most ``limit`` bytes (decoded); close the response.

    Raises:
        ResponseTooLargeError: the declared or the received size passes ``limit``.
    """
    try:
        declared = declared_size(response)
        if declared is not None and declared > limit:
            raise ResponseTooLargeError(what, limit=limit, declared=declared, hint=hint)
        body = bytearray()
        async for chunk in response.aiter_bytes():
            if len(body) + len(chunk) > limit:
                raise ResponseTooLargeError(what, limit=limit, declared=declared, hint=hint)
            body += chunk
        return bytes(body)
    finally:
        await response.aclose()
