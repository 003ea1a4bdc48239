"""Report what the client does to a :class:`~mediagen_nb._hooks.Recorder`, never failing.

Recording is a side effect of the user's call: a full disk or a broken ledger must not turn a
finished generation into an exception. :class:`SafeRecorder` logs recorder errors (redacted)
and carries on. Event data never holds the key: request bodies are JSON the user wrote, and
every string passes through :func:`redact` once more on the way out.
"""

from __future__ import annotations

import uuid
from typing import Any

from mediagen_nb._hooks import EventKind, LedgerEvent, Recorder

from ._config import get_logger, redact

logger = get_logger("mediagen_nb.client")


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {str(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(v) for v in value]
    return value


def new_turn_id() -> str:
    """A client-made id for one chat turn (the ledger row key)."""
    return f"turn-{uuid.uuid4().hex}"


class SafeRecorder:
    """Wraps an optional recorder; every method is a no-op without one and never raises."""

    def __init__(self, recorder: Recorder | None, service: str | None) -> None:
        self.recorder = recorder
        self.service = service

    @property
    def enabled(self) -> bool:
        """True when events go somewhere."""
        return self.recorder is not None

    def event(
        self,
        kind: EventKind,
        action: str,
        key: str,
        *,
        family: str | None = None,
        model: str | None = None,
        service: str | None = None,
        **data: Any,
    ) -> None:
        """Record one event; errors are logged, not raised."""
        if self.recorder is None:
            return
        try:
            self.recorder.record(
                LedgerEvent(
                    kind=kind,
                    action=action,
                    key=key,
                    family=family,
                    model=model,
                    data=_scrub(data),
                    service=service or self.service,
                )
            )
        except Exception:
            logger.exception("recorder failed on %s %s for %s (ignored)", kind, action, key)

    def store_media(self, key: str, data: bytes, suffix: str) -> str | None:
        """Keep result bytes; the local path, or None without a recorder or on error."""
        if self.recorder is None:
            return None
        try:
            return self.recorder.store_media(key, data, suffix)
        except Exception:
            logger.exception("recorder could not store media for %s (ignored)", key)
            return None

    def cached_media(self, key: str) -> str | None:
        """Path of bytes already kept for ``key``, or None."""
        if self.recorder is None:
            return None
        try:
            return self.recorder.cached_media(key)
        except Exception:
            logger.exception("recorder could not look up media for %s (ignored)", key)
            return None


def media_suffix(data: bytes, kind: str) -> str:
    """File suffix from the bytes' magic number, falling back to .png / .mp4 by kind."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png"
    if data.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return ".gif"
    if data[4:8] == b"ftyp":
        return ".mp4"
    if data.startswith(b"\x1a\x45\xdf\xa3"):
        return ".webm"
    return ".png" if kind == "image" else ".mp4"
