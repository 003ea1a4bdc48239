"""uvicorn for both servers: ``serve_in_thread`` and an h11 protocol dropping slow clients.

Headers must arrive within ``HEADER_TIMEOUT_S`` (408); past ``max_connections`` the slowest
body is shed (408) or the newcomer refused (503); idle connections close after
``KEEP_ALIVE_S``. A refusal, or an answer while the body still arrives, lingers (``LINGER_S``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, ClassVar, Final, Literal, cast

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from mediagen_nb._serverkit.errors import TRANSPORT_KEY, error_body

STARTUP_TIMEOUT_S: Final = 15.0
BODY_GRACE_S: Final = 1.0
"""A request body that began arriving less than this ago is never shed for a newcomer."""
HEADER_TIMEOUT_S: Final = 10.0
MAX_CONNECTIONS: Final = 256
LINGER_S: Final = 2.0
"""How long a refused connection is kept half-closed, reading and dropping what the client
still sends (nginx's ``lingering_close``). Closed at once, a socket with unread request bytes
answers them with a reset, which discards the refusal on its way: the client sees a
``ReadError`` and cannot tell whether its create was made (bench figure 11b: three gateways'
upstream pools of 200 against the emulator's 256 connections; the gateways logged 92 creates
"the upstream did not answer: ReadError" in the run that lost 87 students' images)."""
MAX_HEADER_BYTES: Final = 64 * 1024
CLIENT_IDLE_S: Final = 5.0
"""How long clients keep an idle connection in their pool before dropping it: httpx2's
default ``keepalive_expiry``, which this package's client and the openai and anthropic SDKs
use, counted from when the client finished reading its last answer."""
KEEP_ALIVE_S: Final = 30
"""How long the servers keep an idle connection open: far longer than ``CLIENT_IDLE_S``.
With the same 5 s on both sides, a busy client (a loaded kernel, a class of students in one
loop) that read an answer late, or sent its next request late, put it on a connection the
server had just closed (``Server disconnected without sending a response``, ``Connection
reset by peer``): a lost create or streamed chat. The client gives up an idle connection
first; the server only reaps ones a client forgot."""


class _AnswerFirst:
    """The connection's transport as uvicorn sees it. Closing it while the client still sends
    its request body (an answer such as 413 before the body ended) lingers instead: closed on
    unread bytes, the socket resets and the client loses the answer (a ``ReadError``)."""

    def __init__(self, transport: asyncio.Transport, protocol: DroppingH11Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def close(self) -> None:
        protocol = self._protocol
        if protocol.conn.their_state is h11.SEND_BODY and not protocol.lingering:
            protocol._linger()
        else:
            self._transport.close()


class DroppingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, handing the connection's transport to the app (under
    ``TRANSPORT_KEY``: the emulator's drop fault closes it) and dropping slow clients."""

    header_timeout_s: ClassVar[float] = HEADER_TIMEOUT_S
    max_connections: ClassVar[int] = MAX_CONNECTIONS
    body_grace_s: ClassVar[float] = BODY_GRACE_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        inner = self.app
        self._header_timer: asyncio.TimerHandle | None = None
        self.body_since: float | None = None
        """When the request body now arriving began (None: no body on its way)."""
        self.lingering = False
        """True once refused: the answer is sent, what still arrives is dropped."""
        self._linger_timer: asyncio.TimerHandle | None = None

        async def app(scope: Scope, receive: Receive, send: Send) -> None:
            scope[TRANSPORT_KEY] = self.transport
            await inner(scope, receive, send)

        self.app = app

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, _AnswerFirst(transport, self)))
        if self._open_connections() > self.max_connections and not self._evict_slowest_body():
            busy = "too many open connections; try again shortly"
            self._refuse(503, busy, b"Service Unavailable")
            return
        self._arm_header_timer()

    def _open_connections(self) -> int:
        """Connections still served (lingering refusals are on their way out)."""
        return sum(1 for other in self.connections if not getattr(other, "lingering", False))

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return  # after a refusal: read, so the socket never resets, and dropped
        if self._header_timer is None and self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # the first byte of a new request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_header_timer()
        if self.conn.their_state is not h11.SEND_BODY:
            self.body_since = None
        elif self.body_since is None:
            self.body_since = self.loop.time()

    def _evict_slowest_body(self) -> bool:
        """Close the connection whose body has been arriving longest (older than the grace):
        a full server sheds a slow upload, never a new request. False when there is none."""
        now = self.loop.time()
        slow = [
            other
            for other in self.connections
            if isinstance(other, DroppingH11Protocol)
            and other.body_since is not None
            and now - other.body_since >= self.body_grace_s
            and not other.lingering
            and not other.transport.is_closing()
        ]
        if not slow:
            return False
        victim = min(slow, key=lambda other: other.body_since or now)
        victim.body_since = None
        message = "the request body was too slow while the server was full"
        victim._refuse(408, message, b"Request Timeout")
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            wait = f"{self.header_timeout_s:g}"
            self._refuse(408, f"request headers did not arrive within {wait} s", b"Request Timeout")

    def _refuse(self, status: int, message: str, reason: bytes) -> None:
        """Answer ``status`` with the JSON error body, then close the connection (lingering)."""
        body = error_body(status, message)
        retry = b"retry-after: 1\r\n" if status == 503 else b""
        head = (
            f"HTTP/1.1 {status} ".encode()
            + reason
            + b"\r\ncontent-type: application/json\r\nconnection: close\r\n"
            + retry
            + f"content-length: {len(body)}\r\n\r\n".encode()
        )
        self.transport.write(head + body)
        self._linger()

    def _linger(self) -> None:
        """Send the answer and a FIN, then keep reading (and dropping) until the client closes
        or ``LINGER_S`` passes; the request being served, if any, sees a disconnect."""
        self.lingering = True
        self._disarm_header_timer()
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app's later answer is dropped, not written
            cycle.message_event.set()
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()
        self._linger_timer = self.loop.call_later(LINGER_S, self.transport.close)

    def send_400_response(self, msg: str) -> None:
        """Answer bytes that are not valid HTTP with the JSON error shape.

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
    app: ASGIApp,
    host: str,
    port: int,
    *,
    what: str,
    lifespan: Literal["on", "off"] = "off",
    max_connections: int = MAX_CONNECTIONS,
) -> tuple[uvicorn.Server, threading.Thread, int]:
    """Serve ``app`` with uvicorn in a daemon thread; return once it accepts connections.

    Returns the server (set ``should_exit`` to stop it), its thread and the bound port.
    Raises RuntimeError naming ``what``
    when the server cannot start (e.g. the port is taken). ``lifespan="on"`` runs the app's
    startup and shutdown (the gateway opens its upstream client there). ``max_connections``
    replaces ``MAX_CONNECTIONS`` (a class of 300 kernels keeps more connections open).
    """
    protocol = DroppingH11Protocol
    if max_connections != MAX_CONNECTIONS:

        class Protocol(DroppingH11Protocol):
            pass

        Protocol.max_connections = max_connections
        protocol = Protocol
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
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
