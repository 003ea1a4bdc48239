"""uvicorn's h11 protocol for the emulator (imported only where a socket server starts)."""

from __future__ import annotations

from typing import Any

import h11
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from mediagen_nb.emulator._errors import error_body
from mediagen_nb.emulator._faults import TRANSPORT_KEY


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
