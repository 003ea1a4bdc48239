"""Running the emulator: uvicorn in a daemon thread on loopback, and the process default.

``start_emulator`` returns an :class:`EmulatorHandle` once it serves; ``default_emulator`` is
the instance the client falls back to when no API key is configured.
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final, Self

from starlette.applications import Starlette

from mediagen_nb import _hooks, _platform
from mediagen_nb._home import resolve_home
from mediagen_nb._serverkit.urls import API_PREFIX, TEXT_PREFIX
from mediagen_nb.emulator._app import create_app
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._inprocess import (
    StreamingASGITransport,
    in_process_origin,
    register,
    unregister,
)
from mediagen_nb.emulator._state import EmulatorState

if TYPE_CHECKING:
    import uvicorn

DEFAULT_SPEED: Final = 30.0
"""Speed of ``start_emulator`` and the default emulator: a 2-minute video takes 4 s."""
DEMO_TEXT_RATE: Final = 30.0
"""Tokens per second the default (demo) emulator streams chat replies at: a human reading
pace, so a reply can be watched and stopped. Change it with ``handle.text_rate``."""


class EmulatorHandle:
    """A running emulator: its URLs, key and state; ``stop()`` or use it as a context manager.

    You get one from :func:`start_emulator` rather than building it. Served on a socket by
    uvicorn in a daemon thread, or in-process (:class:`InProcessEmulator`, no thread, no
    socket; ``host`` is then a ``.invalid`` name and ``port`` 80).

    Args:
        app: The emulator app (``create_app``).
        server: The uvicorn server serving it; None in-process.
        thread: The daemon thread running ``server``; None in-process.
        host: The address it listens on (``base_url`` is built on it).
        port: The port it listens on.
        api_key: The key clients must send (never shown in ``repr``).
        service_id: Stable identity of the service across restarts (journaled emulators
            only); None otherwise.
    """

    def __init__(
        self,
        *,
        app: Starlette,
        server: uvicorn.Server | None,
        thread: threading.Thread | None,
        host: str,
        port: int,
        api_key: str,
        service_id: str | None = None,
    ) -> None:
        self.app = app
        self.service_id = service_id
        """Stable identity of the service across restarts (journaled emulators only)."""
        self.host = host
        self.port = port
        self.api_key = api_key
        """The key clients must send (never shown in ``repr``)."""
        root = self._root(host, port)
        self.base_url = root + API_PREFIX
        """Base of image, video, result, media and asset endpoints."""
        self.text_base_url = root + TEXT_PREFIX
        """Base of the chat-completions and messages endpoints."""
        self._server = server
        self._thread = thread

    @staticmethod
    def _root(host: str, port: int) -> str:
        return f"http://{host if ':' not in host else f'[{host}]'}:{port}"

    @property
    def in_process(self) -> bool:
        """True when clients reach it through an in-process transport (no socket)."""
        return False

    @property
    def state(self) -> EmulatorState:
        """The emulator's state (tasks, assets, fault counters)."""
        state: EmulatorState = self.app.state.emulator
        return state

    @property
    def speed(self) -> float:
        """How much faster than the real service it runs."""
        return self.state.speed

    @property
    def text_rate(self) -> float | None:
        """Streamed chat text in tokens per second (None: paced by ``speed`` like the rest)."""
        return self.state.text_rate

    @text_rate.setter
    def text_rate(self, value: float | None) -> None:
        if value is not None and not value > 0:
            raise ValueError(
                f"text_rate must be a positive number of tokens per second or None, got {value!r}"
            )
        self.state.text_rate = value

    @property
    def running(self) -> bool:
        """Whether the server thread is still serving."""
        assert self._thread is not None
        assert self._server is not None
        return self._thread.is_alive() and not self._server.should_exit

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the thread (idempotent).

        Args:
            timeout: Seconds to wait for the server thread to end.
        """
        assert self._thread is not None
        assert self._server is not None
        self._server.should_exit = True
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def endpoint(self) -> _hooks.ServiceEndpoint:
        """Where a client should talk to this emulator."""
        return _hooks.ServiceEndpoint(
            self.base_url,
            self.text_base_url,
            self.api_key,
            service_id=self.service_id,
            in_process=self.in_process,
        )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        status = "running" if self.running else "stopped"
        kind = "in-process, " if self.in_process else ""
        return (
            f"EmulatorHandle(base_url={self.base_url!r}, text_base_url={self.text_base_url!r}, "
            f"speed={self.speed:g}, {kind}api_key=<redacted>, {status})"
        )


class InProcessEmulator(EmulatorHandle):
    """An emulator inside this kernel, reached through ``StreamingASGITransport``.

    ``AsyncClient(api_key=h.api_key, base_url=h.base_url, text_base_url=h.text_base_url)``
    finds its transport by the base URL's origin; ``h.transport()`` gives one explicitly.
    """

    def __init__(self, *, app: Starlette, origin: str, api_key: str, service_id: str | None):
        host = origin.split("://", 1)[1]
        super().__init__(
            app=app,
            server=None,
            thread=None,
            host=host,
            port=80,
            api_key=api_key,
            service_id=service_id,
        )
        self.origin = origin
        self._running = True
        register(app, origin)

    @staticmethod
    def _root(host: str, port: int) -> str:
        return f"http://{host}"

    @property
    def in_process(self) -> bool:
        return True

    @property
    def running(self) -> bool:
        """True until ``stop()``."""
        return self._running

    def stop(self, timeout: float = 10.0) -> None:
        """Forget the transport route (idempotent); clients made before keep theirs."""
        del timeout  # nothing to wait for: no thread
        self._running = False
        unregister(self.origin)

    def transport(self) -> StreamingASGITransport:
        """A new streaming transport to this emulator (for ``AsyncClient(transport=...)``)."""
        return StreamingASGITransport(self.app, self.origin)


def start_emulator(
    speed: float = DEFAULT_SPEED,
    api_key: str | None = None,
    port: int = 0,
    host: str = "127.0.0.1",
    faults: FaultConfig | None = None,
    *,
    seed: int | None = None,
    state_dir: Path | None = None,
    text_rate: float | None = None,
    in_process: bool | None = None,
) -> EmulatorHandle:
    """Serve a new emulator in a daemon thread; returns once it accepts connections.

    Example:
        ```python
        with mg.start_emulator(speed=600) as emu:
            client = mg.AsyncClient(emu.api_key, emu.base_url, emu.text_base_url)
        ```

    Args:
        speed: How many times faster than the service it runs (tasks, reviews, lifetimes).
        api_key: The key clients must send; None makes a random one (read it from the
            handle).
        port: The port to listen on; 0: any free port.
        host: The interface to bind (loopback by default).
        faults: Errors, drops, latency and stream cuts to inject on purpose.
        seed: Makes ids and timings reproducible (not links guessable).
        state_dir: Journals task records there, so a later emulator on the same folder
            finishes them (the handle's ``service_id`` then names that folder).
        text_rate: Paces streamed chat text in tokens per wall-clock second (None: by speed).
        in_process: Run inside this kernel (no thread, no socket: an
            :class:`InProcessEmulator`; ``port`` and ``host`` unused); None: only where a
            server cannot run (the browser, ``MEDIAGEN_DEMO=in-process``, no uvicorn).

    Returns:
        The handle: ``base_url``, ``text_base_url``, ``api_key``, ``stop()``.

    Raises:
        RuntimeError: The server cannot start (e.g. the port is taken).
    """
    key = api_key or f"emu-{secrets.token_urlsafe(24)}"
    app = create_app(api_key=key, speed=speed, faults=faults, seed=seed, state_dir=state_dir)
    app.state.emulator.text_rate = text_rate
    service_id = f"emulator:{state_dir.resolve()}" if state_dir is not None else None
    if in_process or (in_process is None and _platform.demo_in_process()):
        app.state.emulator.tasks.media.inline = True
        origin = in_process_origin()
        app.state.emulator.public_origin = origin
        return InProcessEmulator(app=app, origin=origin, api_key=key, service_id=service_id)
    return _serve(app, host, port, key, service_id)


def _serve(
    app: Starlette, host: str, port: int, key: str, service_id: str | None
) -> EmulatorHandle:
    from mediagen_nb._serverkit.runner import serve_in_thread

    server, thread, bound_port = serve_in_thread(app, host, port, what="the emulator")
    if host not in ("0.0.0.0", "::", ""):  # a wildcard: the address each connection reached
        app.state.emulator.public_origin = EmulatorHandle._root(host, bound_port)
    return EmulatorHandle(
        app=app,
        server=server,
        thread=thread,
        host=host,
        port=bound_port,
        api_key=key,
        service_id=service_id,
    )


_default_lock = threading.Lock()
_default: EmulatorHandle | None = None


def default_emulator() -> EmulatorHandle:
    """The process-wide emulator (started on first use, restarted if it was stopped).

    Chat replies stream at ``DEMO_TEXT_RATE`` tokens per second (a human pace: Stop is
    usable); set ``default_emulator().text_rate`` to change it. It journals its tasks under
    ``$MEDIAGEN_HOME/emulator`` so that, after a kernel restart, the new kernel's emulator
    still knows the unfinished tasks that history re-attaches.
    """
    global _default  # noqa: PLW0603 - one embedded service per process, by design
    with _default_lock:
        if _default is None or not _default.running:
            _default = start_emulator(
                state_dir=resolve_home() / "emulator", text_rate=DEMO_TEXT_RATE
            )
        return _default


def fallback_endpoint() -> _hooks.ServiceEndpoint:
    """The default emulator's endpoint, for ``_hooks.set_fallback_service``."""
    return default_emulator().endpoint()
