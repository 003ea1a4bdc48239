"""``AsyncClient``: one connection pool, Bearer auth, and the resource namespaces.

Where requests go (arguments, environment, demo mode): the design page, "Where requests go".
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

from mediagen_nb import _env, _hooks
from mediagen_nb._platform import is_browser

from ._assets import Assets
from ._chat import Chat, Messages
from ._chat_retry import DEFAULT_CHAT_RETRIES, ChatRetryPolicy
from ._classroom import Classroom
from ._config import (
    Secret,
    Settings,
    get_logger,
    install_log_redaction,
    key_problem,
    resolve_settings,
)
from ._context import ClientContext
from ._exceptions import ConfigurationError
from ._http import HTTPCore
from ._inputs import host_media
from ._limits import MaxDownload
from ._media import Images, Tasks, Videos
from ._media_host import MediaHost
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
    f"set {_env.API_KEY}, {_env.BASE_URL} and {_env.TEXT_BASE_URL} for the real service"
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
    ``assets``, ``classroom`` (a classroom gateway's ``me()``). Requests are validated
    before they are sent, safe requests retried, tasks polled at their family's pace.

    Example:
        ```python
        client = mg.AsyncClient()  # no key: demo mode
        task = await client.images.create("gpt-image-2", prompt="a red fox in snow")
        await task.wait()
        ```

    Args:
        api_key: The service's key; None reads ``MEDIAGEN_API_KEY`` (or, in a JupyterHub
            server with ``MEDIAGEN_CLASSROOM_URL`` set, uses the server's hub token with
            the class's gateway), and with neither the client uses the built-in emulator
            (demo mode). Never printed, logged or stored.
        base_url: The address of images, videos, results and assets; None reads
            ``MEDIAGEN_BASE_URL``.
        text_base_url: The address of chat completions and messages; None reads
            ``MEDIAGEN_TEXT_BASE_URL``.
        transport: An ``httpx2`` transport to send through (tests pass an ASGI transport).
        timeout: Seconds (or an ``httpx2.Timeout``) for one request; None: the default.
        max_retries: How often the transport retries a safe request (never a create POST).
        chat_max_retries: How often a chat POST is re-sent after a retryable failure
            (2, as the official SDKs).
        sleep: Replaces ``asyncio.sleep`` for backoff and polling (tests: zero delay).
        clock: Replaces ``time.monotonic`` for deadlines.
        rng: Drives the backoff jitter.
        recorder: Where requests, tasks and turns are recorded: by default the history
            ledger; None records nothing.
        allow_unknown_models: Accept model names newer than the catalog.
        media_host: Where local files and expired results are uploaded so the service can
            fetch them: a bucket URL (``s3://bucket/prefix``) or a ``MediaHost``; None reads
            ``MEDIAGEN_MEDIA_HOST``.
        max_download_bytes: The largest result downloaded, in bytes: one number, or one per
            kind (``{"image": ..., "video": ...}``); None reads ``MEDIAGEN_MAX_DOWNLOAD_MB``
            (MiB), else 64 MiB for images and 512 MiB for videos. A larger result raises
            ``ResponseTooLargeError``.

    Raises:
        ConfigurationError: A base URL is set without a key, or a key without a base URL; a
            key with a character a header cannot hold (named by kind and position, never
            shown); a download cap that is not a positive whole number.
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
        max_download_bytes: MaxDownload = None,
        media_host: MediaHost | str | None = None,
    ) -> None:
        install_log_redaction()
        settings = resolve_settings(api_key, base_url, text_base_url)
        problem = key_problem(settings.api_key.get_secret_value()) if settings.api_key else None
        if problem is not None:
            raise ConfigurationError(problem)
        self.demo_mode = False
        """True when no key was configured and the built-in emulator is used."""
        service_id: str | None = None
        if settings.api_key is None:
            if settings.base_url or settings.text_base_url:
                raise ConfigurationError(
                    f"a base URL is set but no API key: pass api_key= or set {_env.API_KEY}"
                )
            endpoint = _hooks.fallback_service()
            if endpoint is None:
                raise ConfigurationError(
                    f"no API key: pass api_key= or set {_env.API_KEY} "
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
                "no base URL: pass base_url=/text_base_url= or set "
                f"{_env.BASE_URL} and {_env.TEXT_BASE_URL}"
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
            max_download_bytes=max_download_bytes,
        )
        self._core.demo = self.demo_mode
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
        self._ctx.media_host = (
            MediaHost(media_host) if isinstance(media_host, str) else media_host
        ) or MediaHost.from_env()
        self._ctx.host_file = self._host_file  # used only when the service is the emulator
        self._core.emulated = self.demo_mode

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
        """Chat POSTs re-sent so far under the SDKs' retry policy (``ChatRetryPolicy``)."""
        return self._ctx.chat_retry.retries

    @property
    def speed(self) -> float:
        """Clock factor announced by the emulator in its last response (1.0 otherwise)."""
        return self._core.speed

    @property
    def recorder(self) -> _hooks.Recorder | None:
        """Where events go (None: nowhere)."""
        return self._ctx.recorder.recorder

    @property
    def media_host(self) -> MediaHost | None:
        """Where local files are uploaded for the service (None: none configured)."""
        return self._ctx.media_host

    async def media_url(self, data: bytes, *, made_from: str | None = None) -> str:
        """A URL the service can fetch ``data`` from (the media host, or the emulator's uploads).

        Args:
            data: The file's bytes (uploaded once per content).
            made_from: The task the file shows (a frame of it): a request naming the URL
                records that task as its parent.

        Returns:
            The URL to put into a request.

        Raises:
            ConfigurationError: The real service and no media host configured.
        """
        return await host_media(self._ctx, data, made_from)

    def note_result_url(self, url: str, task_id: str) -> None:
        """Remember that a URL shows a task's result, for the lineage in the history.

        A later request naming the URL records that task as its parent (a reopened
        request's references, for one).

        Args:
            url: The result URL.
            task_id: The task whose result it is.
        """
        self._ctx.note_url(url, task_id)

    async def _host_file(self, data: bytes, name: str, content_type: str) -> str:
        return await self.assets.host_file(data, name=name, content_type=content_type)

    async def aclose(self) -> None:
        """Close the connection pool (and the media host's connections)."""
        if self._ctx.media_host is not None:
            await self._ctx.media_host.aclose()
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
