"""Make any event storable: text SQLite can encode, and a safe stand-in for a poison event.

A lone surrogate (half an emoji cut by a stream) becomes U+FFFD; an event that still cannot
be written becomes a stand-in that keeps kind, action and key and says what went wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mediagen_nb._hooks import LedgerEvent

_MAX_DEPTH = 64
"""Deeper data is cut (a JSON body of the service is never this deep)."""


def safe_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (pairs become their character)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def safe_data(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` with every string (keys too) cleaned; cut past ``_MAX_DEPTH``."""
    if isinstance(value, str):
        return safe_text(value)
    if depth >= _MAX_DEPTH:
        return "[too deep]"
    if isinstance(value, Mapping):
        return {safe_data(str(k)): safe_data(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [safe_data(v, depth + 1) for v in value]
    return value


def safe_event(event: LedgerEvent) -> LedgerEvent:
    """``event`` with every string cleaned (see the module docstring)."""

    def opt(text: str | None) -> str | None:
        return None if text is None else safe_text(text)

    return LedgerEvent(
        kind=event.kind,
        action=event.action,
        key=safe_text(event.key),
        family=opt(event.family),
        model=opt(event.model),
        data=safe_data(event.data),
        service=opt(event.service),
    )


def poison_stand_in(event: LedgerEvent, exc: BaseException) -> LedgerEvent:
    """What is recorded instead of an event that could not be written: its identity and why."""
    reason = f"this event could not be recorded ({type(exc).__name__}); its details were dropped"
    return LedgerEvent(
        kind=event.kind,
        action="error",
        key=safe_text(str(event.key)),
        family=None if event.family is None else safe_text(str(event.family)),
        model=None if event.model is None else safe_text(str(event.model)),
        data={"error": reason, "unrecorded_action": safe_text(str(event.action))},
        service=None if event.service is None else safe_text(str(event.service)),
    )
