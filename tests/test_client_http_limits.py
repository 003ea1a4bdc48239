"""The HTTP core hands at most ``MAX_IN_FLIGHT`` requests to the pool; the rest queue in it.

Also: the default transport's pool uses the probed network backend (``_backend``); a burst
of creates is validated only as slots free up.

A transport that holds every request until released shows how many were in the pool at
once; a thousand concurrent requests must all complete without more than the limit in
flight, and the limit must work again on a second event loop (the blocking ``Client``
runs its own loop; an ``asyncio.Semaphore`` is bound to the loop that first waits on it).
"""

from __future__ import annotations

import asyncio

import httpcore2
import httpx2

from mediagen_nb.client import AsyncClient
from mediagen_nb.client._backend import ProbedBackend, ProbedStream, default_transport
from mediagen_nb.client._http import MAX_IN_FLIGHT, POOL_LIMITS
from tests._support import KEY
from tests.client_fakes import BASE, TEXT


class HoldingTransport(httpx2.AsyncBaseTransport):
    """Answers each request only after ``release`` is set; records the peak concurrency."""

    def __init__(self, expected: int) -> None:
        self.active = 0
        self.peak = 0
        self.seen = 0
        self.expected = expected
        self.reached = asyncio.Event()
        """Set once ``expected`` requests arrived."""
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.active += 1
        self.seen += 1
        self.peak = max(self.peak, self.active)
        if self.seen >= self.expected:
            self.reached.set()
        try:
            await self.release.wait()
        finally:
            self.active -= 1
        return httpx2.Response(200, json={"path": request.url.path})


async def _burst(client: AsyncClient, count: int) -> tuple[int, int, list[str]]:
    transport = HoldingTransport(min(count, MAX_IN_FLIGHT))
    client._core.retry.inner = transport
    runs = [
        asyncio.ensure_future(client._core.request("GET", "base", f"/v1/result/t{i}"))
        for i in range(count)
    ]
    await asyncio.wait_for(transport.reached.wait(), timeout=30)
    for _ in range(5):  # give the queued ones every chance to slip through
        await asyncio.sleep(0)
    held = transport.active
    transport.release.set()
    results = await asyncio.gather(*runs)
    return held, transport.peak, [data["path"] for data, _response in results]


async def test_a_thousand_concurrent_requests_queue_in_the_client() -> None:
    async with AsyncClient(KEY, BASE, TEXT, HoldingTransport(0), recorder=None) as client:
        held, peak, paths = await _burst(client, 1000)
    assert held == MAX_IN_FLIGHT  # the other 936 wait in the client, not in the pool
    assert peak == MAX_IN_FLIGHT
    assert paths == [f"/api/v1/result/t{i}" for i in range(1000)]


def test_one_client_keeps_the_limit_on_each_event_loop_it_is_used_from() -> None:
    client = AsyncClient(KEY, BASE, TEXT, HoldingTransport(0), recorder=None)
    for _ in range(2):  # a semaphore bound to the first loop would raise on the second
        held, peak, paths = asyncio.run(_burst(client, MAX_IN_FLIGHT + 10))
        assert held == peak == MAX_IN_FLIGHT
        assert len(paths) == MAX_IN_FLIGHT + 10
    asyncio.run(client.aclose())


def test_the_pool_keeps_every_connection_it_may_open_alive() -> None:
    assert POOL_LIMITS.max_keepalive_connections == POOL_LIMITS.max_connections
    assert (POOL_LIMITS.max_connections or 0) > MAX_IN_FLIGHT


def test_the_default_transport_pools_through_the_probed_backend() -> None:
    transport = default_transport(POOL_LIMITS)
    pool = transport._pool
    assert isinstance(pool, httpcore2.AsyncConnectionPool)
    assert isinstance(pool._network_backend, ProbedBackend)
    assert pool._max_connections == POOL_LIMITS.max_connections
    assert pool._max_keepalive_connections == POOL_LIMITS.max_keepalive_connections


async def test_probed_stream_sees_an_idle_socket_become_readable() -> None:
    """The probe httpcore2 uses to drop a connection the server closed while it was idle."""
    closed = asyncio.Event()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readexactly(4)
        writer.close()  # the server ends the keep-alive connection
        await writer.wait_closed()
        closed.set()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    stream = await ProbedBackend().connect_tcp("127.0.0.1", port, timeout=5)
    assert isinstance(stream, ProbedStream)
    assert stream.get_extra_info("is_readable") is False
    assert stream.get_extra_info("server_addr") == ("127.0.0.1", port)
    await stream.write(b"ping", timeout=5)
    await asyncio.wait_for(closed.wait(), 5)
    for _ in range(500):  # a guard: the FIN is normally there at once on loopback
        if stream.get_extra_info("is_readable"):
            break
        await asyncio.sleep(0.01)
    assert stream.get_extra_info("is_readable") is True
    assert await stream.read(10, timeout=5) == b""
    await stream.aclose()
    server.close()
    await server.wait_closed()


class CreateTransport(httpx2.AsyncBaseTransport):
    """Holds every request until ``release``; answers creates with a task; records the
    order requests reached it."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.order.append(f"{request.method} {request.url.path}")
        task_id = f"t{len(self.order)}"
        await self.release.wait()
        if request.method == "POST":
            return httpx2.Response(200, json={"id": task_id, "status": "queued"})
        return httpx2.Response(200, json={"id": "t", "status": "processing"})


async def test_a_burst_of_creates_validates_only_as_slots_free() -> None:
    """200 creates at once: only those holding an in-flight slot have been validated (the
    rest wait cheaply), so the burst does not run 200 validations in one loop iteration."""
    transport = CreateTransport()
    async with AsyncClient(KEY, BASE, TEXT, transport, recorder=None) as client:
        checked = 0
        check = client._ctx.check

        def counting(path: str, body: dict[str, object]) -> None:
            nonlocal checked
            checked += 1
            check(path, body)

        client._ctx.check = counting  # type: ignore[method-assign]
        runs = [
            asyncio.ensure_future(client.images.create("nano-banana", prompt=f"p{i}"))
            for i in range(200)
        ]
        for _ in range(5):
            await asyncio.sleep(0)
        assert (checked, len(transport.order)) == (MAX_IN_FLIGHT, MAX_IN_FLIGHT)
        transport.release.set()
        tasks = await asyncio.gather(*runs)
    assert checked == 200
    assert len({t.id for t in tasks}) == 200
