"""The setup figures 5 and 12 share: the emulator in a child process, a client whose requests
are counted, an event-loop lag ticker, and the emulator's own task timelines (what a polite
client would have sent, and when each task was really done)."""

from __future__ import annotations

import argparse
import asyncio
import math
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2
from _common import API_KEY, Figure, Server, finish, parse_args, serve
from _http import CountingTransport, LagTicker

from mediagen_nb.client import AsyncClient

LAG_P99_TARGET_S = 0.050


@dataclass
class Meters:
    """What a loop figure reads after its run: requests by status, and the loop's lag."""

    counter: CountingTransport
    ticker: LagTicker

    def lag_line(self) -> str:
        """Lag p50/p99/max and the loop's own CPU between ticks, in one printed line."""
        ticker = self.ticker
        return (
            f"event-loop lag: p50 {ticker.percentile(0.5) * 1e3:.1f} ms, "
            f"p99 {ticker.percentile(0.99) * 1e3:.1f} ms, "
            f"max {max(ticker.lags, default=0.0) * 1e3:.0f} ms over {len(ticker.lags)} ticks; "
            f"the loop's own CPU between ticks: p50 {ticker.percentile(0.5, cpu=True) * 1e3:.1f}"
            f" ms, p99 {ticker.percentile(0.99, cpu=True) * 1e3:.1f} ms, max "
            f"{max(ticker.loop_cpu, default=0.0) * 1e3:.0f} ms"
        )


@asynccontextmanager
async def measured_client(server: Server) -> AsyncIterator[tuple[AsyncClient, Meters]]:
    """An ``AsyncClient`` on the emulator (``recorder=None``: no history, no downloads) whose
    requests are counted, with the lag ticker running for the block."""
    meters = Meters(CountingTransport(), LagTicker())
    async with AsyncClient(
        api_key=API_KEY,
        base_url=server.base_url,
        text_base_url=server.text_base_url,
        transport=meters.counter,
        recorder=None,
    ) as client:
        meters.ticker.start()
        try:
            yield client, meters
        finally:
            await meters.ticker.stop()


@dataclass(frozen=True)
class Timelines:
    """The emulator's record of each task (``t0``, ``done_at``, ``min_interval``; its
    ``time.time()`` clock, the same machine's) and its counters (``poll_too_fast``...)."""

    tasks: dict[str, dict[str, float]]
    counters: dict[str, int]

    def polite_polls(self) -> int:
        """Polls a polite client needs: one per interval from the create to the end (>= 1)."""
        return sum(
            max(1, math.ceil((r["done_at"] - r["t0"]) / r["min_interval"] - 1e-9))
            for r in self.tasks.values()
        )

    def ideal_requests(self) -> int:
        """One create per task plus :meth:`polite_polls`."""
        return len(self.tasks) + self.polite_polls()


async def timelines(server: Server, ids: list[str]) -> Timelines:
    """The emulator's timelines of ``ids`` (``POST /bench/tasks``)."""
    async with httpx2.AsyncClient(base_url=server.root, timeout=120) as http:
        info: dict[str, Any] = (await http.post("/bench/tasks", json=ids)).json()
    return Timelines(dict(info["tasks"]), dict(info["counters"]))


def quantile(ordered: list[float], share: float) -> float:
    """The ``share`` quantile of sorted samples (inf when there are none)."""
    if not ordered:
        return math.inf
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_figure(
    doc: str,
    quick: tuple[int, float],
    full: tuple[int, float],
    measure: Callable[[Server, int, float], Coroutine[Any, Any, Figure]],
) -> int:
    """Parse the command line, serve the emulator at the chosen speed, measure, print.

    Args:
        doc: The script's docstring (its ``--help``).
        quick: ``(count, speed)`` of ``--quick``.
        full: ``(count, speed)`` of the full run.
        measure: ``measure(server, count, speed)`` returns the figure.

    Returns:
        The exit status (:func:`_common.finish`).
    """
    args: argparse.Namespace = parse_args(doc, scale=True)
    count, speed = quick if args.quick else full
    count, speed = args.count or count, args.speed or speed
    with serve("emulator", "--speed", str(speed)) as server:
        figure = asyncio.run(measure(server, count, speed))
    return finish(figure, args.quick)
