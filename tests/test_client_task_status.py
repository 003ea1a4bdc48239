"""``Task.wait(on_status=...)``: the Quickstart's status line once per step, not per poll
(issue 29: ``on_update=lambda t: print(t.status)`` printed "processing" 21 times)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2

from mediagen_nb.client import AsyncClient, Client, Task
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT, FakeService, MemoryRecorder

SCRIPT = ["queued", "queued", *["processing"] * 21, "completed"]


def make(service: FakeService, clock: FakeClock, recorder: MemoryRecorder) -> AsyncClient:
    return AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(service),
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 0.0,
        recorder=recorder,
    )


async def test_on_status_runs_once_per_status_and_on_update_once_per_poll(
    tmp_path: Path,
) -> None:
    service = FakeService(script=SCRIPT)
    clock, recorder = FakeClock(), MemoryRecorder(tmp_path)
    statuses: list[tuple[str, int]] = []
    polls: list[int] = []

    async def on_status(t: Task) -> None:  # async callbacks are awaited too
        statuses.append((t.status, t.polls))

    async with make(service, clock, recorder) as client:
        task = await client.images.create("nano-banana", prompt="a red square")
        await task.wait(on_update=lambda t: polls.append(t.polls), on_status=on_status)
    assert task.status == "completed"
    assert task.polls == len(SCRIPT) == 24
    assert polls == list(range(1, 25))  # every poll, as documented
    # queued at the start is not a change; then one line per step, at the poll that saw it
    assert statuses == [("processing", 3), ("completed", 24)]


def test_the_blocking_twin_takes_on_status(tmp_path: Path) -> None:
    service = FakeService(script=SCRIPT, speed=1000.0)

    async def notebook_cell() -> list[str]:  # a running loop, as in Jupyter
        with Client(KEY, BASE, TEXT, httpx2.MockTransport(service), recorder=None) as client:
            task = client.images.create("nano-banana", prompt="x")
            seen: list[str] = []
            task.wait(on_status=lambda t: seen.append(t.status))
            return seen

    assert asyncio.run(notebook_cell()) == ["processing", "completed"]
