"""Running the emulator: uvicorn in a daemon thread on loopback, and the process default.

``start_emulator`` binds ``host:port`` (port 0: a free one), waits until uvicorn is serving
and returns an :class:`EmulatorHandle`. ``default_emulator`` is the process-wide instance the
client falls back to when no API key is configured (``fallback_endpoint`` is what
``mediagen_nb/__init__.py`` registers with ``_hooks.set_fallback_service``).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Self

import h11
import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from mediagen_nb import _hooks
from mediagen_nb._home import resolve_home
from mediagen_nb.emulator._app import API_PREFIX, TEXT_PREFIX, create_app
from mediagen_nb.emulator._errors import error_body
from mediagen_nb.emulator._faults import TRANSPORT_KEY, FaultConfig
from mediagen_nb.emulator._state import EmulatorState

DEFAULT_SPEED: Final = 30.0
"""Speed of ``start_emulator`` and the default emulator: a 2-minute video takes 4 s."""
STARTUP_TIMEOUT_S: Final = 15.0
DEMO_TEXT_RATE: Final = 30.0
"""Tokens per second the default (demo) emulator streams chat replies at: a human reading
pace, so a reply can be watched and stopped. Change it with ``handle.text_rate``."""


class DroppingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, handing the connection's transport to the app.

    The emulator needs it to close a socket without any response (the drop fault).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        inner = self.app

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            scope[TRANSPORT_KEY] = self.transport
            await inner(scope, receive, send)

        self.app = app

    def send_400_response(self, msg: str) -> None:
        """Answer bytes that are not valid HTTP with the emulator's JSON error shape.

        uvicorn's own answer is ``text/plain``; clients parsing errors expect the same body
        as every other error, so the spec's shape is written here and the connection closed.
        """
        body = error_body(400, msg)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()


def serve_in_thread(
    app: ASGIApp, host: str, port: int, *, what: str, lifespan: Literal["on", "off"] = "off"
) -> tuple[uvicorn.Server, threading.Thread, int]:
    """Serve ``app`` with uvicorn in a daemon thread; return once it accepts connections.

    Returns the server (set ``should_exit`` to stop it), its thread and the bound port.
    Shared by the emulator and the classroom gateway. Raises RuntimeError naming ``what``
    when the server cannot start (e.g. the port is taken). ``lifespan="on"`` runs the app's
    startup and shutdown (the gateway opens its upstream client there).
    """
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=DroppingH11Protocol,
        lifespan=lifespan,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            asyncio.run(server.serve())
        except BaseException as error:  # reported to the starting thread below
            failure.append(error)

    thread = threading.Thread(target=serve, name=f"mediagen-server-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    if not server.started:
        server.should_exit = True
        thread.join(5)
        detail = f": {failure[0]!r}" if failure else ""
        raise RuntimeError(f"{what} could not start on {host}:{port}{detail}")
    return server, thread, server.servers[0].sockets[0].getsockname()[1]


class EmulatorHandle:
    """A running emulator: its URLs, key and state; ``stop()`` or use it as a context manager."""

    def __init__(
        self,
        *,
        app: Starlette,
        server: uvicorn.Server,
        thread: threading.Thread,
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
        root = f"http://{host if ':' not in host else f'[{host}]'}:{port}"
        self.base_url = root + API_PREFIX
        """Base of image, video, result, media and asset endpoints."""
        self.text_base_url = root + TEXT_PREFIX
        """Base of the chat-completions and messages endpoints."""
        self._server = server
        self._thread = thread

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
        return self._thread.is_alive() and not self._server.should_exit

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and wait for the thread (idempotent)."""
        self._server.should_exit = True
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def endpoint(self) -> _hooks.ServiceEndpoint:
        """Where a client should talk to this emulator."""
        return _hooks.ServiceEndpoint(
            self.base_url, self.text_base_url, self.api_key, service_id=self.service_id
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
        return (
            f"EmulatorHandle(base_url={self.base_url!r}, text_base_url={self.text_base_url!r}, "
            f"speed={self.speed:g}, api_key=<redacted>, {status})"
        )


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
) -> EmulatorHandle:
    """Serve a new emulator in a daemon thread; returns once it accepts connections.

    ``api_key`` None makes a random key for this instance (read it from the handle).
    ``state_dir`` journals task records there so a later emulator on the same folder
    finishes them (the handle's ``service_id`` then names that folder, not the port).
    ``text_rate`` paces streamed chat text in tokens per wall-clock second (None: by speed).
    Raises RuntimeError when the server cannot start (e.g. the port is taken).
    """
    key = api_key or f"emu-{secrets.token_urlsafe(24)}"
    app = create_app(api_key=key, speed=speed, faults=faults, seed=seed, state_dir=state_dir)
    app.state.emulator.text_rate = text_rate
    server, thread, bound_port = serve_in_thread(app, host, port, what="the emulator")
    service_id = f"emulator:{state_dir.resolve()}" if state_dir is not None else None
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
