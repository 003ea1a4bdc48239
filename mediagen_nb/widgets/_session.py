"""The one client the panels of a kernel share, its mode banner and the active assets.

``current_session()`` is the kernel-wide ``Session``; without an API key its client is the
built-in emulator ("demo mode"). The key stays in this object's memory only."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient
    from mediagen_nb.types import ClassroomMe

logger = logging.getLogger("mediagen_nb.widgets")

DEMO_TEXT = "demo mode (built-in emulator)"

SessionCallback = Callable[["Session"], None]


@dataclass(frozen=True)
class ActiveAsset:
    """An approved (``Active``) library asset that reference fields may offer."""

    asset_id: str
    name: str = ""
    asset_type: str = "Image"
    """``Image``, ``Video``, ``Audio`` or ``Document`` (spec: Asset types)."""
    library: str | None = None
    """Its library's id in ``catalog.ASSET_LIBRARIES``; None when unknown."""

    @property
    def uri(self) -> str:
        """The ``asset://{assetId}`` form used in generation requests."""
        return f"asset://{self.asset_id}"

    @property
    def label(self) -> str:
        """Short text for a dropdown: name (or id), type and URI."""
        name = self.name or self.asset_id
        return f"{name} · {self.asset_type} · {self.uri}"


def _host(url: str | None) -> str:
    if not url:
        return "the configured service"
    parsed = urlparse(url)
    return parsed.netloc or url


class Session:
    """Shared client, connection mode and active assets of the panels of one kernel.

    ``Session(client=...)`` injects a ready client (tests, custom transports); the session
    then never closes or replaces it unless ``set_api_key`` is called.

    Args:
        client: A ready client to share; None: one is made on first use (the environment's
            key, else the built-in emulator).
        api_key: The service key to use (kept in memory only); None: the environment's.
        base_url: The image and video service's base URL; None: the configured one.
        text_base_url: The chat service's base URL; None: the configured one.
        mode_text: The mode line the panels show; None: "demo mode (built-in emulator)" or
            "connected to <host>".
    """

    def __init__(
        self,
        client: AsyncClient | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        text_base_url: str | None = None,
        mode_text: str | None = None,
    ) -> None:
        self._client = client
        self._injected = client is not None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.__key = api_key or None
        self._base_url = base_url
        self._text_base_url = text_base_url
        self._mode_override = mode_text
        self._callbacks: list[SessionCallback] = []
        self._asset_callbacks: list[SessionCallback] = []
        self._assets: dict[str, ActiveAsset] = {}
        self._classroom: ClassroomMe | None = None
        self._class_callbacks: list[SessionCallback] = []
        self._use_callbacks: list[SessionCallback] = []

    def __repr__(self) -> str:
        return f"Session({self.mode_text!r}, active_assets={len(self._assets)})"

    # --- mode ---------------------------------------------------------------------------

    def _key(self) -> str | None:
        """The key in use: the one given, else the environment's (``MEDIAGEN_API_KEY``, or a
        JupyterHub server's token when ``MEDIAGEN_CLASSROOM_URL`` names the class's gateway)."""
        if self.__key:
            return self.__key
        from mediagen_nb.client import resolve_settings

        found = resolve_settings().api_key
        return found.get_secret_value() if found is not None else None

    @property
    def demo(self) -> bool:
        """True when no API key is known: the client talks to the built-in emulator."""
        if self._mode_override is not None:
            return self._mode_override == DEMO_TEXT
        if self._injected:
            return bool(getattr(self._client, "demo_mode", False))
        return self._key() is None

    @property
    def base_url(self) -> str | None:
        """The configured service base URL (None in demo mode or when taken from the client)."""
        if self._injected:
            url = getattr(self._client, "base_url", None)
            return str(url) if url else None
        if self.demo:
            return None
        if self.__key is not None and self._base_url:
            return self._base_url
        from mediagen_nb.client import resolve_settings

        return resolve_settings().base_url

    @property
    def service_origins(self) -> tuple[str, ...]:
        """Base URLs of the service in use (the emulator's once it runs): its own URLs are
        publicly reachable for it, e.g. files the Studio hands the emulator in demo mode."""
        client = self._client
        if client is not None:
            urls = (getattr(client, "base_url", None), getattr(client, "text_base_url", None))
            return tuple(str(u) for u in urls if u)
        return (self.base_url,) if self.base_url else ()

    @property
    def mode_text(self) -> str:
        """Banner text: demo mode or ``connected to <host>``; never the key."""
        if self._mode_override is not None:
            return self._mode_override
        if self.demo:
            return DEMO_TEXT
        return f"connected to {_host(self.base_url)}"

    def set_api_key(
        self, key: str | None, base_url: str | None = None, text_base_url: str | None = None
    ) -> None:
        """Use the real service with ``key`` (memory only); an empty key returns to demo mode.

        The current client is closed in the background and the next use makes a new one.
        """
        self.__key = (key or "").strip() or None
        self._base_url = base_url
        self._text_base_url = text_base_url
        self._mode_override = None
        self._injected = False
        self._classroom = None
        self._drop_client()
        self._notify(self._callbacks)
        self._notify(self._class_callbacks)

    def use_client(self, client: AsyncClient, mode_text: str | None = None) -> None:
        """Replace the client with a ready one (the session will not close it)."""
        self._drop_client()
        self._client = client
        self._injected = True
        self._mode_override = mode_text
        self._notify(self._callbacks)

    def on_change(self, callback: SessionCallback, remove: bool = False) -> None:
        """Call ``callback(session)`` when the mode or client changes."""
        _register(self._callbacks, callback, remove)

    # --- client -------------------------------------------------------------------------

    @property
    def client(self) -> AsyncClient:
        """The shared ``AsyncClient``, made on first use on the running loop."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        stale = loop is not None and self._loop is not None and loop is not self._loop
        if self._client is not None and not self._injected and stale:
            self._client = None  # the old loop's pool cannot be used (or closed) here
        if self._client is None:
            self._client = self._make_client()
            self._loop = loop
        return self._client

    def _make_client(self) -> AsyncClient:
        from mediagen_nb.client import AsyncClient

        if self.__key is None:
            return AsyncClient()  # the environment's key (or a hub's classroom), else demo
        return AsyncClient(
            api_key=self.__key, base_url=self._base_url, text_base_url=self._text_base_url
        )

    def _drop_client(self) -> None:
        old, injected = self._client, self._injected
        self._client = None
        self._loop = None
        if old is None or injected:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the pool is garbage-collected with the client
        task = loop.create_task(old.aclose())
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    async def aclose(self) -> None:
        """Close the client this session made (an injected client is left to its owner)."""
        old, injected = self._client, self._injected
        self._client = None
        self._loop = None
        if old is not None and not injected:
            await old.aclose()

    # --- classroom --------------------------------------------------------------------------

    @property
    def classroom(self) -> ClassroomMe | None:
        """What the classroom gateway in use says about this student (None: no gateway)."""
        return self._classroom

    def set_classroom(self, me: ClassroomMe | None) -> None:
        """Take the gateway's latest ``/v1/classroom/me`` answer (None: not a gateway)."""
        self._classroom = me
        self._notify(self._class_callbacks)

    def on_classroom(self, callback: SessionCallback, remove: bool = False) -> None:
        """Call ``callback(session)`` when the classroom answer changes."""
        _register(self._class_callbacks, callback, remove)

    def used(self) -> None:
        """A panel made a task or ended a chat turn: what is left may have changed."""
        self._notify(self._use_callbacks)

    def on_use(self, callback: SessionCallback, remove: bool = False) -> None:
        """Call ``callback(session)`` after each task created and chat turn ended."""
        _register(self._use_callbacks, callback, remove)

    # --- active assets --------------------------------------------------------------------

    @property
    def active_assets(self) -> tuple[ActiveAsset, ...]:
        """Assets approved for use in reference fields, in the order they were added."""
        return tuple(self._assets.values())

    def set_active_assets(self, assets: Iterable[ActiveAsset]) -> None:
        """Replace the list of active assets (the asset panel calls this)."""
        self._assets = {a.asset_id: a for a in assets}
        self._notify(self._asset_callbacks)

    def add_active_asset(self, asset: ActiveAsset) -> None:
        """Offer one more asset (or update one) in the reference fields."""
        self._assets[asset.asset_id] = asset
        self._notify(self._asset_callbacks)

    def remove_active_asset(self, asset_id: str) -> None:
        """Stop offering an asset (deleted, or no longer Active)."""
        if self._assets.pop(asset_id, None) is not None:
            self._notify(self._asset_callbacks)

    def on_assets_change(self, callback: SessionCallback, remove: bool = False) -> None:
        """Call ``callback(session)`` when the active assets change."""
        _register(self._asset_callbacks, callback, remove)

    def _notify(self, callbacks: list[SessionCallback]) -> None:
        for callback in list(callbacks):
            try:
                callback(self)
            except Exception:
                # Panels wrap their callbacks to show errors themselves; this is the backstop.
                logger.exception("session callback %r failed", callback)


_closing: set[asyncio.Task[Any]] = set()
_current: Session | None = None


def _register(callbacks: list[SessionCallback], callback: SessionCallback, remove: bool) -> None:
    if remove:
        if callback in callbacks:
            callbacks.remove(callback)
    elif callback not in callbacks:
        callbacks.append(callback)


def current_session() -> Session:
    """The kernel-wide session every panel shares unless given its own."""
    global _current  # noqa: PLW0603 - one session per kernel by design
    if _current is None:
        _current = Session()
    return _current


def set_current_session(session: Session | None) -> None:
    """Replace (or with None, forget) the kernel-wide session; for tests and embedding."""
    global _current  # noqa: PLW0603 - one session per kernel by design
    _current = session
