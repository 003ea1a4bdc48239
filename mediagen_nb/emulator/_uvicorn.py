"""uvicorn for the emulator and the classroom gateway (imported only where a socket server
starts): the h11 protocol the emulator needs, and ``serve_in_thread``."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Final, Literal

import h11
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from mediagen_nb.emulator._errors import error_body
from mediagen_nb.emulator._faults import TRANSPORT_KEY

STARTUP_TIMEOUT_S: Final = 15.0


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
