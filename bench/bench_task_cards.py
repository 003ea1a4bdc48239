"""Figure 7: 200 task cards live in one panel: kernel CPU for status updates.

The emulator runs in a child process at speed 1, the real service's pace: banana tasks take
10-40 s and are polled every 2 s, so 200 live cards get ~100 status updates per second.
An ``ImagePanel`` (own ``AsyncClient``, ``recorder=None``) follows 200 tasks in its gallery
(one anywidget: every card's state travels in one ``results`` list, at most 4 batches a
second); once every card exists, this process's CPU (``time.process_time``) is measured
over a window that ends before any task can complete (so no media work is counted), then
the tasks are cancelled. The baseline is the same client polling the same number of tasks with
``Task.wait()`` and no widgets, in the same kind of window; runs alternate ABBA.

Figure: status-update CPU = panel run minus bare polling, in % of one core; target <= 10 %
(ratio = figure / 10 %). The note gives both totals; the run prints the panel's comm
messages per second inside the window.
``--quick``: 40 cards, one run each.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable

from _comm import CommRecorder
from _common import API_KEY, Figure, Server, cpu, finish, median, parse_args, serve

from mediagen_nb.client import AsyncClient, Task
from mediagen_nb.widgets import Session
from mediagen_nb.widgets._generate_panel import ImagePanel

MODEL = "nano-banana-pro"
TARGET_SHARE = 0.10
EARLIEST_DONE_S = 10.0
"""Banana's lower ETA at speed 1: no task completes inside a window ending before it."""


async def _window(ready: Callable[[], bool], started: float, seconds: float) -> float:
    """Wait until ``ready()``, then return the CPU share of one core over ``seconds``."""
    while True:  # polled: the panel offers no "all cards created" event
        if ready():
            break
        await asyncio.sleep(0.05)
    if time.perf_counter() - started + seconds > EARLIEST_DONE_S - 0.5:
        raise RuntimeError("creating the tasks took too long for a clean window")
    start_wall, start_cpu = time.perf_counter(), cpu()
    await asyncio.sleep(seconds)
    return (cpu() - start_cpu) / (time.perf_counter() - start_wall)


def _all_cards(panel: ImagePanel, count: int) -> bool:
    if panel.errors:
        raise RuntimeError(f"the panel shows errors: {panel.errors[:3]}")
    return len(panel.cards) == count


async def panel_run(client: AsyncClient, count: int, seconds: float, comm: CommRecorder) -> float:
    panel = ImagePanel(session=Session(client=client), show_banner=False)
    started = time.perf_counter()
    for i in range(count):
        panel.spawn(panel.run({"model": MODEL, "prompt": f"a fox number {i}"}, "banana"))
    share = await _window(lambda: _all_cards(panel, count), started, seconds)
    window_start = time.perf_counter() - seconds  # the window just ended
    messages = sum(1 for sent in comm.sent if sent.at >= window_start)
    print(f"  panel: {count} cards, {share * 100:.1f} % CPU, {messages / seconds:.0f} comm msgs/s")
    panel.close()
    await asyncio.gather(*panel.running, return_exceptions=True)
    return share


async def bare_run(client: AsyncClient, count: int, seconds: float) -> float:
    tasks: list[Task] = []

    async def follow(i: int) -> None:
        task = await client.images.create(MODEL, prompt=f"a fox number {i}")
        tasks.append(task)
        await task.wait()

    started = time.perf_counter()
    runners = [asyncio.ensure_future(follow(i)) for i in range(count)]
    share = await _window(lambda: len(tasks) == count, started, seconds)
    print(f"  bare:  {count} tasks, {share * 100:.1f} % CPU")
    for runner in runners:
        runner.cancel()
    await asyncio.gather(*runners, return_exceptions=True)
    return share


async def measure(server: Server, count: int, seconds: float, reps: int) -> Figure:
    comm = CommRecorder()
    async with AsyncClient(
        api_key=API_KEY,
        base_url=server.base_url,
        text_base_url=server.text_base_url,
        recorder=None,
    ) as client:
        subjects: dict[str, Callable[[], Awaitable[float]]] = {
            "panel": lambda: panel_run(client, count, seconds, comm),
            "bare": lambda: bare_run(client, count, seconds),
        }
        samples: dict[str, list[float]] = {"panel": [], "bare": []}
        with comm.record():
            for rep in range(reps):
                for name in ("panel", "bare") if rep % 2 == 0 else ("bare", "panel"):
                    samples[name].append(await subjects[name]())
    total, base = median(samples["panel"]), median(samples["bare"])
    cards = max(0.0, total - base)
    return Figure(
        id="task_cards_cpu",
        ours=cards * 100,
        unit="% of a core for card updates",
        baseline=TARGET_SHARE * 100,
        baseline_unit="% allowed",
        ratio=cards / TARGET_SHARE,
        op="<=",
        target=1.0,
        note=(
            f"{count} live cards at speed 1: panel total {total * 100:.1f} %, "
            f"bare polling {base * 100:.1f} % of a core"
        ),
    )


def main() -> int:
    args = parse_args(__doc__ or "")
    count, seconds, reps = (40, 3.0, 1) if args.quick else (200, 6.0, args.reps or 2)
    with serve("emulator", "--speed", "1") as server:
        figure = asyncio.run(measure(server, count, seconds, reps))
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
