"""Late-bound hooks that let lower layers reach higher ones without importing them.

``mediagen_nb/__init__.py`` registers the history ledger (the client's recorder) and the
built-in emulator (its service without a key) here; both import their packages only when
first called. Stdlib only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

EventKind = Literal["task", "chat", "asset", "sweep"]
"""What a ledger event is about: an image/video task, a chat turn, an asset, or a sweep's plan
(its events make no history row; a restarted kernel reads the plan back from them)."""


@dataclass(frozen=True)
class LedgerEvent:
    """One fact to append to the history ledger, before any UI shows it.

    ``key`` identifies the row the event belongs to: the task id for tasks, a client-made
    turn id for chat turns, the asset id for assets. ``action`` is one of
    ``created | status | completed | failed | cancelled | error`` for tasks,
    ``started | completed | incomplete | failed`` for chat turns and
    ``uploaded | status | deleted | failed`` for assets, ``planned | finished`` for sweeps
    (``key`` is the sweep id). ``data`` holds JSON-able details
    (request body, status, urls, usage, error text); it never holds the API key.
    """

    kind: EventKind
    action: str
    key: str
    family: str | None = None
    model: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    service: str | None = None
    """Base URL of the service the event happened on (so a resume talks to the same one)."""


class Recorder(Protocol):
    """Where the client reports what happens. The history ledger implements it."""

    def record(self, event: LedgerEvent) -> None:
        """Append one event durably; must not raise for ordinary I/O trouble."""

    def store_media(self, key: str, data: bytes, suffix: str) -> str:
        """Keep a result's bytes on disk; return the local file path."""

    def cached_media(self, key: str) -> str | None:
        """Path of a result already kept for ``key``, or None."""


@dataclass(frozen=True)
class ServiceEndpoint:
    """Where a default (no-key) client should talk to: the built-in emulator."""

    base_url: str
    text_base_url: str
    api_key: str
    service_id: str | None = None
    """Stable identity recorded in history instead of ``base_url`` (whose port changes with
    every kernel); lets a restarted kernel re-attach the previous kernel's demo tasks."""
    in_process: bool = False
    """True when the emulator runs inside this process (no socket): its ``.invalid`` URLs
    lead nowhere outside it, so notices name no address."""


_lock = threading.Lock()
_local_transports: dict[str, Callable[[], Any]] = {}
_recorder_factory: Callable[[], Recorder | None] | None = None
_fallback_factory: Callable[[], ServiceEndpoint] | None = None


def set_recorder_factory(factory: Callable[[], Recorder | None] | None) -> None:
    """Register how a client gets its default recorder (None: record nothing)."""
    global _recorder_factory  # noqa: PLW0603 - module-level registry by design
    with _lock:
        _recorder_factory = factory


def default_recorder() -> Recorder | None:
    """The registered default recorder, or None when none is registered."""
    factory = _recorder_factory
    return factory() if factory is not None else None


def set_fallback_service(factory: Callable[[], ServiceEndpoint] | None) -> None:
    """Register the service to use when no API key is configured (the emulator)."""
    global _fallback_factory  # noqa: PLW0603 - module-level registry by design
    with _lock:
        _fallback_factory = factory


def fallback_service() -> ServiceEndpoint | None:
    """Start (once) and return the fallback service, or None if none is registered."""
    factory = _fallback_factory
    return factory() if factory is not None else None


def _origin_of(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lower-cased (stdlib only, no httpx2 here)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def register_local_transport(origin: str, factory: Callable[[], Any] | None) -> None:
    """Route clients whose base URL is on ``origin`` through ``factory()`` (an httpx2
    transport: the in-process emulator's); None forgets the origin."""
    key = _origin_of(origin)
    with _lock:
        if factory is None:
            _local_transports.pop(key, None)
        else:
            _local_transports[key] = factory


def local_transport(url: str) -> Any | None:
    """A new transport for ``url``'s origin if one is registered (else None)."""
    factory = _local_transports.get(_origin_of(url))
    return factory() if factory is not None else None
