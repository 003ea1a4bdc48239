"""The network backend of the default transport: httpcore2's own, with a cheap idle probe.

Why: the design page, "One HTTP core, at most 16 requests in flight".
"""

# ruff: noqa: ASYNC109 - the timeout parameters are httpcore2's stream interface

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2
from httpcore2._types import SOCKET_OPTION
from httpcore2._utils import is_socket_readable


class ProbedStream(httpcore2.AsyncNetworkStream):
    """An httpcore2 stream whose ``is_readable`` probe skips the attribute lookup."""

    def __init__(self, inner: httpcore2.AsyncNetworkStream) -> None:
        self._inner = inner
        self._socket: socket.socket | None = inner.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        inner = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return ProbedStream(inner)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable" and self._socket is not None:
            return is_socket_readable(self._socket)
        return self._inner.get_extra_info(info)


class ProbedBackend(httpcore2.AsyncNetworkBackend):
    """httpcore2's default backend (anyio on asyncio), handing out ``ProbedStream``."""

    def __init__(self, inner: httpcore2.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner if inner is not None else httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        stream = await self._inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )
        return ProbedStream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        stream = await self._inner.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )
        return ProbedStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def default_transport(limits: httpx2.Limits) -> httpx2.AsyncHTTPTransport:
    """``httpx2.AsyncHTTPTransport(limits=limits)`` whose pool uses ``ProbedBackend``.

    httpx2's transport takes no ``network_backend``, so its pool is replaced by one built
    with the same settings through httpcore2's public constructor. If a later httpx2 keeps
    its pool elsewhere, the plain transport is returned (slower with many idle connections,
    never wrong); ``test_client_http_limits`` notices that.
    """
    transport = httpx2.AsyncHTTPTransport(limits=limits)
    if not isinstance(getattr(transport, "_pool", None), httpcore2.AsyncConnectionPool):
        return transport  # pragma: no cover - only on an httpx2 with another layout
    transport._pool = httpcore2.AsyncConnectionPool(
        ssl_context=httpx2.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=ProbedBackend(),
    )
    return transport
