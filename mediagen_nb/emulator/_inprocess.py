"""The emulator inside the kernel: a streaming ASGI transport, no thread, no socket.

Used where a server thread cannot start (the browser) or should not
(``MEDIAGEN_DEMO=in-process``, ``start_emulator(in_process=True)``); the app's URLs are on a
``.invalid`` host, so nothing addressed to it can leave the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import AsyncIterator, MutableMapping
from typing import TYPE_CHECKING, Any, Final

import httpx2
from starlette.types import ASGIApp

from mediagen_nb import _hooks

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["CLOSE_GRACE_S", "StreamingASGITransport", "in_process_origin"]

CLOSE_GRACE_S: Final = 2.0
"""How long closing a response waits for the app to see the disconnect and return."""
_DOMAIN: Final = "mediagen.invalid"
_log = logging.getLogger("mediagen_nb.emulator")
_Message = MutableMapping[str, Any]
_END: Final = object()
_names = itertools.count(1)


def in_process_origin() -> str:
    """A new origin, ``http://emulator-N.mediagen.invalid``, unique in this process."""
    return f"http://emulator-{next(_names)}.{_DOMAIN}"


class _QueueStream(httpx2.AsyncByteStream):
    """The response body: chunks from the app's task as they arrive."""

    def __init__(self, exchange: _Exchange) -> None:
        self._exchange = exchange

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            item = await self._exchange.chunks.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, bytes)
            yield item

    async def aclose(self) -> None:
        await self._exchange.close()


class _Exchange:
    """One request/response between the transport and an app task."""

    def __init__(self, request: httpx2.Request, body: bytes) -> None:
        self.request = request
        self.body: bytes | None = body
        self.chunks: asyncio.Queue[object] = asyncio.Queue()
        self.started: asyncio.Future[tuple[int, list[tuple[bytes, bytes]]]] = (
            asyncio.get_running_loop().create_future()
        )
        self.complete = False
        self.disconnected = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def receive(self) -> _Message:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.disconnected.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: _Message) -> None:
        if self.disconnected.is_set():
            raise OSError("the client closed the response")  # starlette: ClientDisconnect
        if message["type"] == "http.response.start":
            headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
            self.started.set_result((int(message["status"]), headers))
        elif message["type"] == "http.response.body" and not self.complete:
            body = bytes(message.get("body", b""))
            if body and self.request.method != "HEAD":
                self.chunks.put_nowait(body)
            if not message.get("more_body", False):
                self.complete = True
                self.chunks.put_nowait(_END)

    async def run(self, app: ASGIApp, scope: _Message) -> None:
        try:
            await app(scope, self.receive, self.send)
        except Exception as error:
            self._failed(error)
        finally:
            if not self.started.done():
                self.started.set_exception(
                    httpx2.RemoteProtocolError("the emulator ended without a response")
                )
            if not self.complete:
                self.complete = True
                self.chunks.put_nowait(_END)
            self.disconnected.set()  # the exchange is over: a late receive() returns

    def _failed(self, error: Exception) -> None:
        if not self.started.done():
            self.started.set_exception(
                error
                if isinstance(error, httpx2.TransportError)
                else httpx2.RemoteProtocolError(f"the emulator failed: {error!r}")
            )
        elif not self.complete:
            self.complete = True
            cut = error if isinstance(error, httpx2.TransportError) else None
            self.chunks.put_nowait(cut or httpx2.ReadError(f"the emulator failed: {error!r}"))
            self.chunks.put_nowait(_END)
        elif not self.disconnected.is_set():
            # starlette re-raises after answering 500 itself; the response is already sent
            _log.debug("emulator app raised after its response: %r", error)

    async def close(self) -> None:
        self.disconnected.set()
        task = self.task
        if task is None or task.done():
            return
        done, _ = await asyncio.wait({task}, timeout=CLOSE_GRACE_S)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class StreamingASGITransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport that runs ``app`` on the current loop and streams its responses.

    Only requests for ``origin`` (``scheme://host[:port]``) reach the app; any other URL goes
    to ``fallback`` (default: ``httpx2.AsyncHTTPTransport()``, made on first use).
    """

    def __init__(
        self,
        app: ASGIApp,
        origin: str,
        *,
        fallback: httpx2.AsyncBaseTransport | None = None,
        client: tuple[str, int] = ("127.0.0.1", 0),
    ) -> None:
        self.app = app
        self.origin = httpx2.URL(origin)
        self.client = client
        self._fallback = fallback
        self._tasks: set[asyncio.Task[None]] = set()

    def _ours(self, url: httpx2.URL) -> bool:
        return (url.scheme, url.host, url.port) == (
            self.origin.scheme,
            self.origin.host,
            self.origin.port,
        )

    def _scope(self, request: httpx2.Request) -> _Message:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(k.lower(), v) for k, v in request.headers.raw],
            "scheme": url.scheme,
            "path": url.path,
            "raw_path": url.raw_path.split(b"?")[0],
            "query_string": url.query,
            "server": (url.host, port),
            "client": self.client,
            "root_path": "",
        }

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if not self._ours(request.url):
            if self._fallback is None:
                self._fallback = httpx2.AsyncHTTPTransport()
            return await self._fallback.handle_async_request(request)
        body = await request.aread()
        exchange = _Exchange(request, body)
        task = asyncio.create_task(exchange.run(self.app, self._scope(request)))
        exchange.task = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        try:
            status, headers = await asyncio.shield(exchange.started)
        except asyncio.CancelledError:
            await exchange.close()
            raise
        return httpx2.Response(
            status, headers=headers, stream=_QueueStream(exchange), request=request
        )

    async def aclose(self) -> None:
        if self._fallback is not None:
            await self._fallback.aclose()


def register(app: Starlette, origin: str) -> None:
    """Let clients whose base URL is on ``origin`` reach ``app`` in-process (see ``_hooks``)."""
    _hooks.register_local_transport(origin, lambda: StreamingASGITransport(app, origin))


def unregister(origin: str) -> None:
    """Forget ``origin`` (its emulator was stopped)."""
    _hooks.register_local_transport(origin, None)
