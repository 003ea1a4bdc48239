"""``AsyncClient``: one connection pool, Bearer auth, and the resource namespaces.

Where requests go: explicit arguments, else ``MEDIAGEN_API_KEY`` / ``MEDIAGEN_BASE_URL`` /
``MEDIAGEN_TEXT_BASE_URL``. With no key anywhere (and no base URL either), the client asks
``mediagen_nb._hooks.fallback_service()`` for the built-in emulator, sets ``demo_mode`` and
says so once per process (see ``_announce_demo``). A key without any base URL is a
:class:`ConfigurationError` (the spec names no public default address).
"""

from __future__ import annotations

import enum
import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self

import httpx2

from mediagen_nb import _hooks
from mediagen_nb._platform import is_browser

from ._assets import Assets
from ._chat import Chat, Messages
from ._chat_retry import DEFAULT_CHAT_RETRIES, ChatRetryPolicy
from ._classroom import Classroom
from ._config import Secret, Settings, get_logger, install_log_redaction, resolve_settings
from ._context import ClientContext
from ._exceptions import ConfigurationError
from ._http import HTTPCore
from ._media import Images, Tasks, Videos
from ._recording import SafeRecorder
from ._retry import RetryTransport, Sleep

logger = get_logger("mediagen_nb.client")


class _Default(enum.Enum):
    RECORDER = "default"


DEFAULT_RECORDER = _Default.RECORDER
"""Sentinel: use ``mediagen_nb._hooks.default_recorder()`` (the history ledger, if registered)."""

_notice_lock = threading.Lock()
_notice_shown = False


REAL_SERVICE_HINT = (
    "set MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL and MEDIAGEN_TEXT_BASE_URL for the real service"
)


def demo_notice(endpoint: _hooks.ServiceEndpoint) -> str:
    """What demo mode says about where the built-in emulator runs.

    A socket emulator has an address worth showing; an in-process one has only a ``.invalid``
    name (a link to it would lead a browser visitor off the page), so it says where it runs:
    in this tab (the browser) or in this process.
    """
    if endpoint.in_process:
        where = "this tab" if is_browser() else "this process"
        return f"demo mode: the built-in emulator runs in {where}"
    return f"demo mode: using the built-in emulator at {endpoint.base_url}"


def _in_jupyter_kernel() -> bool:
    """True inside a Jupyter kernel, where stderr is drawn as a red (alarming) box: ipykernel,
    or JupyterLite's Pyodide kernel (which does not import ipykernel)."""
    if "ipykernel" not in sys.modules and "pyodide_kernel" not in sys.modules:
        return False
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    return getattr(shell, "kernel", None) is not None


def _announce_demo(endpoint: _hooks.ServiceEndpoint) -> None:
    """Say once per process that the built-in emulator is in use, where a user looks for it.

    Decision (the spec says nothing): always an INFO record on ``mediagen_nb.client``; in a
    script, the CLI or a terminal REPL also a line on stderr; in a Jupyter kernel never stderr
    (a red box reads as an error): a plain stdout line under the cell, unless the notebook
    panels are loaded (``mediagen_nb.widgets`` imported), whose mode banner already says
    "demo mode". The module is only looked up, never imported: the client stays free of it.
    """
    global _notice_shown  # noqa: PLW0603 - one notice per process
    with _notice_lock:
        if _notice_shown:
            return
        _notice_shown = True
    text = f"mediagen_nb {demo_notice(endpoint)} ({REAL_SERVICE_HINT})"
    logger.info("%s", text)
    if not _in_jupyter_kernel():
        print(text, file=sys.stderr)
    elif "mediagen_nb.widgets" not in sys.modules:
        print(text, flush=True)


def _resolve_recorder(recorder: _hooks.Recorder | _Default | None) -> _hooks.Recorder | None:
    if not isinstance(recorder, _Default):
        return recorder
    try:
        return _hooks.default_recorder()
    except Exception:
        logger.exception("the default recorder could not start; history is off for this client")
        return None


class AsyncClient:
    """Async client for every endpoint of the service (or the built-in emulator).

    Namespaces: ``chat.completions``, ``messages``, ``images``, ``videos``, ``tasks``,
    ``assets``, ``classroom`` (a classroom gateway's ``me()``). ``sleep`` and ``clock``
    replace ``asyncio.sleep`` / ``time.monotonic`` for
    backoff and polling (tests pass zero-delay fakes); ``rng`` drives the backoff jitter.
    ``recorder=None`` records nothing; by default the history ledger records everything.
    ``allow_unknown_models=True`` accepts model names newer than the catalog.
    ``max_retries`` bounds the transport's retries of safe requests; ``chat_max_retries``
    (default 2, as the official SDKs) the re-sends of chat POSTs (see ``_chat_retry``).
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        text_base_url: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        *,
        timeout: float | httpx2.Timeout | None = None,
        max_retries: int = 3,
        chat_max_retries: int = DEFAULT_CHAT_RETRIES,
        sleep: Sleep | None = None,
        clock: Callable[[], float] | None = None,
        rng: Callable[[], float] | None = None,
        recorder: _hooks.Recorder | _Default | None = DEFAULT_RECORDER,
        allow_unknown_models: bool = False,
    ) -> None:
        install_log_redaction()
        settings = resolve_settings(api_key, base_url, text_base_url)
        self.demo_mode = False
        """True when no key was configured and the built-in emulator is used."""
        service_id: str | None = None
        if settings.api_key is None:
            if settings.base_url or settings.text_base_url:
                raise ConfigurationError(
                    "a base URL is set but no API key: pass api_key= or set MEDIAGEN_API_KEY"
                )
            endpoint = _hooks.fallback_service()
            if endpoint is None:
                raise ConfigurationError(
                    "no API key: pass api_key= or set MEDIAGEN_API_KEY "
                    "(or `import mediagen_nb` to use the built-in emulator)"
                )
            settings = Settings(
                api_key=Secret(endpoint.api_key),
                base_url=endpoint.base_url.rstrip("/"),
                text_base_url=endpoint.text_base_url.rstrip("/"),
            )
            self.demo_mode = True
            service_id = endpoint.service_id
            _announce_demo(endpoint)
        elif settings.base_url is None and settings.text_base_url is None:
            raise ConfigurationError(
                "no base URL: pass base_url=/text_base_url= or set MEDIAGEN_BASE_URL and "
                "MEDIAGEN_TEXT_BASE_URL"
            )
        self._settings = settings
        self.service_id: str | None = service_id or settings.base_url
        """Identity of the service in history: the base URL, or the built-in emulator's
        stable id (its port changes with every kernel; its journal does not)."""
        if transport is None:
            # an in-process emulator (``_hooks.register_local_transport``) on this base URL
            transport = _hooks.local_transport(settings.base_url or settings.text_base_url or "")
        self._core = HTTPCore(
            settings,
            transport=transport,
            timeout=timeout,
            max_retries=max_retries,
            sleep=sleep,
            rng=rng,
        )
        self._ctx = ClientContext(
            core=self._core,
            recorder=SafeRecorder(_resolve_recorder(recorder), self.service_id),
            sleep=self._core.retry.sleep,
            clock=clock if clock is not None else time.monotonic,
            allow_unknown_models=allow_unknown_models,
            chat_retry=ChatRetryPolicy(max_retries=chat_max_retries),
            rng=rng,
        )
        self.chat = Chat(self._ctx)
        self.messages = Messages(self._ctx)
        self.images = Images(self._ctx)
        self.videos = Videos(self._ctx)
        self.tasks = Tasks(self._ctx)
        self.assets = Assets(self._ctx)
        self.classroom = Classroom(self._ctx)

    def __repr__(self) -> str:
        return (
            f"AsyncClient(base_url={self.base_url!r}, text_base_url={self.text_base_url!r}, "
            f"demo_mode={self.demo_mode}, api_key={self._settings.api_key!r})"
        )

    @property
    def base_url(self) -> str | None:
        """Base of the image, video, result and asset endpoints."""
        return self._settings.base_url

    @property
    def text_base_url(self) -> str | None:
        """Base of the text gateway."""
        return self._settings.text_base_url

    @property
    def retry_transport(self) -> RetryTransport:
        """The retrying transport (its ``retries`` / ``retry_reasons`` count what it did)."""
        return self._core.retry

    @property
    def retries(self) -> int:
        """Total HTTP retries made so far."""
        return self._core.retry.retries

    @property
    def chat_retries(self) -> int:
        """Chat POSTs re-sent so far under the SDKs' retry policy (see ``_chat_retry``)."""
        return self._ctx.chat_retry.retries

    @property
    def speed(self) -> float:
        """Clock factor announced by the emulator in its last response (1.0 otherwise)."""
        return self._core.speed

    @property
    def recorder(self) -> _hooks.Recorder | None:
        """Where events go (None: nowhere)."""
        return self._ctx.recorder.recorder

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._core.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
