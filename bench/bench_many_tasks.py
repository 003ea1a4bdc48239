"""Figure 5: 1,000 concurrent image tasks from one event loop.

The emulator runs in a child process (so it does not share this event loop or its CPU) at
speed 2: banana tasks take 5-20 s, polled every 1 s, i.e. ~1,000 requests/s of steady load
for 1,000 tasks, which one loop on this 2-core machine can carry with the server beside
it (higher speeds only measure an overloaded machine). Every task is created at once with
``AsyncClient.images.create`` and waited with ``Task.wait()`` (``recorder=None``: the ideal
below counts no media download). Requests are counted by a transport wrapper. A ticker
coroutine sleeps 5 ms in a loop and records its oversleep (event-loop lag).

Ideal requests per task = 1 create + the polls needed at the family interval: the emulator
reports each task's creation time and completion time (``/bench/tasks``), so a poller that
polls every interval after the create needs ``ceil((done - created) / interval)`` polls.

Pass: every task completes; requests <= ideal + 1 per task; lag p99 <= 50 ms. The figure's
ratio is the worse of requests / (ideal + tasks) and lag p99 / 50 ms (target <= 1); the
note gives both. An incomplete task or a request count over its bound is a wrong result
(FAIL in quick mode too); the lag is a timing target. ``--quick``: 300 tasks at speed 5
(~13 s), still enough to queue requests behind the client's in-flight limit. ``--count``
and ``--speed`` override either (profiling runs).
"""

from __future__ import annotations

import asyncio
import sys
import time

from _common import Figure, Server
from _loop import LAG_P99_TARGET_S, measured_client, run_figure, timelines

from mediagen_nb.client import AsyncClient, Task

MODEL = "nano-banana-pro"
DEADLINE_S = 40.0
"""Tasks not done by then count as not completed (keeps the script under a minute)."""


async def one_task(client: AsyncClient, index: int, tasks: list[Task]) -> str:
    task = await client.images.create(MODEL, prompt=f"a fox number {index}")
    tasks.append(task)
    await task.wait()
    return task.status


async def measure(server: Server, count: int, speed: float) -> Figure:
    tasks: list[Task] = []
    async with measured_client(server) as (client, meters):
        start = time.perf_counter()
        runners = [asyncio.ensure_future(one_task(client, i, tasks)) for i in range(count)]
        _done, late = await asyncio.wait(runners, timeout=DEADLINE_S)
        for runner in late:  # the script must end within a minute, complete or not
            runner.cancel()
        statuses = await asyncio.gather(*runners, return_exceptions=True)
        elapsed = time.perf_counter() - start
    completed = sum(1 for s in statuses if s == "completed")
    failures = [s for s in statuses if s != "completed"][:3]
    if late:
        print(f"{len(late)} tasks still running after {DEADLINE_S:g} s were cancelled")
    lines = await timelines(server, [t.id for t in tasks])
    ideal = lines.ideal_requests()
    allowed = ideal + count
    counter, p99 = meters.counter, meters.ticker.percentile(0.99)
    print(f"{count} tasks, emulator speed {speed:g}: {completed} completed in {elapsed:.1f} s")
    if failures:
        print(f"first failures: {failures!r}")
    print(
        f"requests {counter.requests} (statuses {counter.statuses}); ideal {ideal}; "
        f"allowed {allowed}; emulator 429s {lines.counters.get('poll_too_fast', 0)}"
    )
    print(meters.lag_line())
    request_ratio = counter.requests / allowed
    lag_ratio = p99 / LAG_P99_TARGET_S
    return Figure(
        id="many_tasks_requests",
        ours=counter.requests,
        unit="requests",
        baseline=allowed,
        baseline_unit="requests (ideal + 1 per task)",
        ratio=max(request_ratio, lag_ratio),
        op="<=",
        target=1.0,
        note=(
            f"{completed}/{count} completed; requests/allowed {request_ratio:.3f}; lag p99 "
            f"{p99 * 1e3:.1f} ms / {LAG_P99_TARGET_S * 1e3:.0f} ms = {lag_ratio:.3f} "
            f"(loop CPU p99 {meters.ticker.percentile(0.99, cpu=True) * 1e3:.1f} ms)"
        ),
        correct=completed == count and counter.requests <= allowed,
    )


if __name__ == "__main__":
    sys.exit(run_figure(__doc__ or "", (300, 5.0), (1000, 2.0), measure))
