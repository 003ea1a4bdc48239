"""Figure 12: a 10,000-cell image sweep (``mg.sweep(...).run()``) through one event loop.

The emulator runs in a child process at speed 2 (banana pro tasks take 5-20 s, polled every
1 s). One ``mg.sweep("image", model=..., prompt=[10,000 prompts])`` plan runs with every cell
in flight (``concurrency=len(plan)``) through an ``AsyncClient`` with ``recorder=None`` (no
history writes, no media downloads: the figure measures polling, as figure 5). Requests are
counted by a transport wrapper; a ticker measures event-loop lag; a plan listener notes the
wall-clock time each completion is seen, compared with the task's own ``done_at`` from the
emulator (``/bench/tasks``, the same ``time.time()`` clock: same machine).

Printed: every cell completes; lag p99 and the longest stall; the share of completions seen
within one poll interval of the family (and the p99 delay in intervals); requests against
ideal + 1 per task; the client's peak RSS growth. Pass: all complete, requests <= ideal + 1
per task, lag p99 <= 50 ms and no stall over 250 ms. ``--quick``: 300 cells at speed 5;
``--count`` and ``--speed`` override either (profiling runs).
"""

from __future__ import annotations

import asyncio
import os
import resource
import sys
import time

import pandas  # noqa: F401 - imported before the clock starts, as in a notebook kernel
from _common import Figure, Server
from _loop import LAG_P99_TARGET_S, Timelines, measured_client, quantile, run_figure, timelines

import mediagen_nb as mg
from mediagen_nb.sweeps import SweepPlan

MODEL = "nano-banana-pro"
STALL_TARGET_S = 0.250
DEADLINE_S = 300.0


def rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def notice_delays(plan: SweepPlan, seen: dict[int, float], lines: Timelines) -> list[float]:
    """For each completion seen: from the emulator's ``done_at`` to the moment the plan saw
    it, in poll intervals of the task's family; sorted."""
    delays = []
    for index, result in plan.results.items():
        info = lines.tasks.get(result.task_id or "")
        if info is not None and index in seen:
            delays.append((seen[index] - info["done_at"]) / info["min_interval"])
    return sorted(delays)


async def measure(server: Server, count: int, speed: float) -> Figure:
    start_rss = rss_mb()
    made = time.perf_counter()
    plan = mg.sweep("image", model=MODEL, prompt=[f"a fox number {i}" for i in range(count)])
    planned_s = time.perf_counter() - made
    seen: dict[int, float] = {}

    def noticed(index: int) -> None:
        result = plan.results.get(index)
        if result is not None and result.status == "completed" and index not in seen:
            seen[index] = time.time()

    plan.on_change(noticed)
    async with measured_client(server) as (client, meters):
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            frame = await asyncio.wait_for(plan.run(len(plan), client=client), DEADLINE_S)
        except TimeoutError:
            frame = plan.frame()
            print(f"the sweep was stopped after {DEADLINE_S:g} s")
        elapsed = time.perf_counter() - start
        client_cpu = time.process_time() - start_cpu
    completed = int((frame["status"] == "completed").sum())
    lines = await timelines(server, [r.task_id for r in plan.results.values() if r.task_id])
    delays = notice_delays(plan, seen, lines)
    within = sum(1 for d in delays if d <= 1.0)
    counter, ticker = meters.counter, meters.ticker
    allowed = lines.ideal_requests() + count
    polls, polite = counter.methods.get("GET", 0), lines.polite_polls()
    p99, stall = ticker.percentile(0.99), max(ticker.lags, default=0.0)
    print(f"{count} cells planned in {planned_s:.1f} s; emulator speed {speed:g}")
    print(f"{completed}/{count} cells completed in {elapsed:.1f} s")
    print(
        f"requests {counter.requests} (statuses {counter.statuses}); ideal "
        f"{lines.ideal_requests()}; allowed {allowed}; polls {polls} for a polite client's "
        f"{polite} ({polls / max(1, polite):.2f} per polite poll)"
    )
    print(
        f"completions seen within one poll interval: {within}/{len(delays)}; notice lag p50 "
        f"{quantile(delays, 0.5):.2f}, p99 {quantile(delays, 0.99):.2f}, max "
        f"{quantile(delays, 1.0):.2f} intervals"
    )
    print(meters.lag_line())
    print(
        f"client CPU {client_cpu:.1f} s, {client_cpu / max(1, counter.requests) * 1e3:.2f} ms "
        f"per request; machine load {os.getloadavg()[0]:.1f} (2 cores)"
    )
    print(f"client peak RSS {rss_mb():.0f} MB (+{rss_mb() - start_rss:.0f} MB during the sweep)")
    ratio = max(counter.requests / allowed, p99 / LAG_P99_TARGET_S, stall / STALL_TARGET_S)
    return Figure(
        id="sweep_10k",
        ours=counter.requests,
        unit="requests",
        baseline=allowed,
        baseline_unit="requests (ideal + 1 per task)",
        ratio=ratio,
        op="<=",
        target=1.0,
        note=(
            f"{completed}/{count} completed; seen within 1 interval {within}/{len(delays)} "
            f"(p99 {quantile(delays, 0.99):.2f} intervals); lag p99 {p99 * 1e3:.1f} ms, max "
            f"stall {stall * 1e3:.0f} ms"
        ),
        correct=completed == count and counter.requests <= allowed,
    )


if __name__ == "__main__":
    sys.exit(run_figure(__doc__ or "", (300, 5.0), (10_000, 2.0), measure))
