"""Report what the client does to a ``Recorder``, never failing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mediagen_nb._hooks import EventKind, LedgerEvent, Recorder

from ._config import get_logger, redact

logger = get_logger("mediagen_nb.client")


_TAGS: ContextVar[Mapping[str, Any] | None] = ContextVar("mediagen_nb_recording_tags", default=None)
_TAGGED_ACTIONS = frozenset({("task", "created"), ("task", "unconfirmed"), ("chat", "started")})
"""The events that begin a history row: the ones a tag (``sweep_id``) is written with."""


@contextmanager
def recording_tags(**tags: Any) -> Iterator[None]:
    """Record ``tags`` with every task create and chat turn started inside this block.

    The tags join the event's data (``sweep_id="sweep-..."`` fills the history's ``sweep_id``
    column); they follow the asyncio task that entered the block, and nest (inner wins).

    Args:
        **tags: JSON-able values, e.g. ``sweep_id`` and ``sweep_cell``.

    Returns:
        A context manager; nothing changes outside it.
    """
    token = _TAGS.set({**(_TAGS.get() or {}), **tags})
    try:
        yield
    finally:
        _TAGS.reset(token)


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
        tags = _TAGS.get()
        if tags and (kind, action) in _TAGGED_ACTIONS:
            data = {**tags, **data}
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
