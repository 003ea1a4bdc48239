"""What every resource namespace shares: HTTP core, recorder, clock, and pre-send checks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mediagen_nb.catalog import parse_asset_uri
from mediagen_nb.catalog._assets import ASSET_ACTIVE
from mediagen_nb.types._validate import ensure_valid

from ._chat_retry import ChatRetryPolicy
from ._config import get_logger
from ._exceptions import AssetNotUsableError
from ._http import HTTPCore
from ._recording import SafeRecorder
from ._retry import Sleep

if TYPE_CHECKING:
    from ._media_host import MediaHost

HostFile = Callable[[bytes, str, str], Awaitable[str]]
"""``host_file(data, name, content_type) -> url``: the emulator's upload (demo mode)."""

logger = get_logger("mediagen_nb.client")

MAX_KNOWN_URLS = 10_000
DELETED = "deleted"
"""Local status of an asset this client deleted (a deleted id is permanently invalid)."""


def asset_ids_in(value: Any) -> Iterator[str]:
    """Every asset id referenced as ``asset://id`` anywhere inside a JSON value."""
    if isinstance(value, str):
        asset_id = parse_asset_uri(value)
        if asset_id is not None:
            yield asset_id
    elif isinstance(value, dict):
        for item in value.values():
            yield from asset_ids_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from asset_ids_in(item)


@dataclass
class ClientContext:
    """Shared state of one client; resources and tasks hold a reference to it."""

    core: HTTPCore
    recorder: SafeRecorder
    sleep: Sleep
    clock: Callable[[], float]
    allow_unknown_models: bool = False
    asset_status: dict[str, str] = field(default_factory=dict)
    """Last status seen per asset id (``deleted`` after a delete by this client)."""
    asset_library: dict[str, str] = field(default_factory=dict)
    """Library (``seedance2`` or ``sd2``) of each asset id this client has seen."""
    chat_retry: ChatRetryPolicy = field(default_factory=ChatRetryPolicy)
    """Retry policy of chat POSTs (the official SDKs'; see ``_chat_retry``)."""
    rng: Callable[[], float] | None = None
    """Jitter source of the chat retry backoff (None: ``random.random``)."""
    media_host: MediaHost | None = None
    """Where local files go for the service (``MEDIAGEN_MEDIA_HOST``; see ``_inputs``)."""
    host_file: HostFile | None = None
    """Store a file on the built-in emulator and get its URL (used only when it is one)."""
    hosted: dict[str, str] = field(default_factory=dict)
    """SHA-256 -> URL of files already stored on the emulator by ``host_file``."""
    made_from: dict[str, str] = field(default_factory=dict)
    """URL -> id of the task it shows (results, and uploads of them): a request that names
    such a URL as a plain string still records that task as its parent."""

    def note_url(self, url: str, made_from: str) -> None:
        """Remember that ``url`` shows the result of ``made_from`` (bounded, oldest dropped)."""
        self.made_from.pop(url, None)
        self.made_from[url] = made_from
        while len(self.made_from) > MAX_KNOWN_URLS:
            del self.made_from[next(iter(self.made_from))]

    def check(self, path: str, body: dict[str, Any]) -> None:
        """Validate ``body`` for ``path`` and refuse unusable assets; log warnings."""
        settings = self.core.settings
        warnings = ensure_valid(
            path,
            body,
            allow_unknown_models=self.allow_unknown_models,
            service_origins=(settings.base_url or "", settings.text_base_url or ""),
        )
        for warning in warnings:
            logger.warning("%s: %s", path, warning)
        for asset_id in asset_ids_in(body):
            status = self.asset_status.get(asset_id)
            if status is not None and status != ASSET_ACTIVE:
                raise AssetNotUsableError(asset_id, status)
