"""HTTP helpers shared by the client benchmarks: a counting transport, an event-loop ticker."""

from __future__ import annotations

import asyncio
import time

import httpx2

from mediagen_nb.client._backend import default_transport
from mediagen_nb.client._http import POOL_LIMITS

LIMITS = POOL_LIMITS
"""The pool limits of the client's own default transport."""


class CountingTransport(httpx2.AsyncBaseTransport):
    """Wraps a transport and counts the requests sent through it (by method and status).

    Without ``inner`` it wraps the client's own default transport, so wrapping changes nothing.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self.inner = inner if inner is not None else default_transport(LIMITS)
        self.requests = 0
        self.statuses: dict[int, int] = {}
        self.methods: dict[str, int] = {}

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        self.methods[request.method] = self.methods.get(request.method, 0) + 1
        response = await self.inner.handle_async_request(request)
        self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class LagTicker:
    """Measures event-loop lag: a coroutine sleeping ``tick`` s and recording the oversleep.

    ``loop_cpu`` holds, per tick, the CPU time the loop's thread spent between the sleep and
    the wake-up: the lag this process causes itself. On a machine shared with other busy
    processes the wall-clock lag also holds the time spent waiting for a core.
    """

    def __init__(self, tick: float = 0.005) -> None:
        self.tick = tick
        self.lags: list[float] = []
        self.loop_cpu: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start, start_cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.tick)
            self.lags.append(max(0.0, time.perf_counter() - start - self.tick))
            self.loop_cpu.append(time.thread_time() - start_cpu)

    def start(self) -> None:
        """Start ticking on the running loop."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop ticking."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def percentile(self, share: float, *, cpu: bool = False) -> float:
        """The ``share`` quantile (0..1) of the lags (or of ``loop_cpu``) seen, in seconds."""
        samples = self.loop_cpu if cpu else self.lags
        if not samples:
            return 0.0
        ordered = sorted(samples)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
