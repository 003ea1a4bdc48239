"""A tiny HTTP/1.1 server on 127.0.0.1 for the client's hostile-service tests.

It runs on the test's own event loop (``async with Loopback(route) as server``), answers
each request with what ``route(method, path)`` returns, streams the body chunk by chunk
through the socket (so a client that reads a body whole, or ignores ``Content-Length``,
shows it in its memory), and closes every connection after its answer. ``sent`` counts the
body bytes written, so a test sees how much a client read before it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self


@dataclass
class Answer:
    """One response: status, headers, and the body as an async iterator of chunks."""

    status: int
    headers: dict[str, str]
    body: AsyncIterator[bytes]


Route = Callable[[str, str], Answer]


async def chunks(data: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    """``data`` in chunks of ``size`` bytes."""
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def zeros(total: int, size: int = 256 * 1024) -> AsyncIterator[bytes]:
    """``total`` zero bytes, one preallocated chunk reused (the server's memory stays flat)."""
    block = bytes(size)
    left = total
    while left > 0:
        yield block if left >= size else block[:left]
        left -= size


@dataclass
class Loopback:
    """The server; ``url`` is its base once entered."""

    route: Route
    sent: int = 0
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    _server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _version = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or 0)
            if length:
                await reader.readexactly(length)
            self.requests.append((method, path, headers))
            answer = self.route(method, path)
            status_line = f"HTTP/1.1 {answer.status} X\r\n"
            fields = {"connection": "close", **answer.headers}
            writer.write(
                (status_line + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n").encode(
                    "latin-1"
                )
            )
            async for chunk in answer.body:
                writer.write(chunk)
                await writer.drain()
                self.sent += len(chunk)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # the client hung up (as it should on a refused body)
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
