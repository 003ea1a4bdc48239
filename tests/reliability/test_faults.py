"""Row 1: hundreds of image and video tasks while result polls fail, get rate limited or drop.

A real uvicorn emulator on loopback (``start_emulator``, high speed) injects on result polls
10 % 5xx (500/503), 5 % 429 with ``Retry-After`` and 2 % dropped connections. One
``AsyncClient`` (8 retries per request, see ``MAX_RETRIES``) creates ``MEDIAGEN_RELIABILITY_TASKS``
(default 500) tasks round-robin over all eleven families and waits for each, recording into a
fresh history ledger. Pass when every task reaches a terminal state, the emulator created each
task exactly once, and the ledger has exactly one row per task holding its final status (and,
for a completed task, its cached media file).

The emulator's media rendering is memoised per picture shape (``fast_render`` in conftest):
rendering 500 distinct PNG/MP4 files costs minutes of CPU (0.15-0.9 s each) and measures PIL
and PyAV, not the protocol. Every byte still travels over HTTP and lands in the media cache.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mediagen_nb.client import AsyncClient, Task, TaskFailedError
from mediagen_nb.emulator import EmulatorHandle, FaultConfig, start_emulator
from mediagen_nb.history import Ledger
from tests._support import KEY
from tests.reliability._reliability import order, report, scale

TASKS = scale("tasks", 500)
SPEED = float(scale("speed", 300))
CONCURRENCY = scale("concurrency", 64)
"""Tasks in flight at once. The client's pool has 100 connections; more requests than that
queue inside httpcore2, whose assignment loop is quadratic (see the report)."""
FAULTS = FaultConfig(
    error_rate=0.10, rate_limit_rate=0.05, drop_rate=0.02, seed=20260, apply_to=("result",)
)
MAX_RETRIES = 8
"""Retries per request. The default (3) lets about one task in 500 end its wait on four
faults in a row (17 % x 4): that bug is pinned by ``test_wait_outlives_a_short_poll_outage``;
with 8 the chance per poll is 0.17**9 (1e-7), so this test is about everything else."""
WAIT_LIMIT_S = 120.0
"""Polling deadline per task (real seconds): far above the few the emulator needs; ends a hang."""


pytestmark = [
    pytest.mark.usefixtures("fast_render"),
    pytest.mark.emulator(speed=SPEED, api_key=KEY, faults=FAULTS, seed=11),
]


async def _one(client: AsyncClient, i: int, gate: asyncio.Semaphore) -> Task:
    """Create task ``i`` and wait for its end (a failed task is an end too)."""
    spec = order(i)
    # every 10th task fails on the service ("[fail]": queued -> processing -> failed)
    prompt = f"reliability task {i}" + (" [fail]" if i % 10 == 9 else "")
    resource = client.images if spec.kind == "image" else client.videos
    async with gate:
        task = await resource.create(spec.model, family=spec.family, **spec.with_prompt(prompt))
        with contextlib.suppress(TaskFailedError):
            await task.wait(timeout=WAIT_LIMIT_S)
    return task


async def test_tasks_survive_poll_faults(emulator: EmulatorHandle, tmp_path: Path) -> None:
    store = Ledger(tmp_path / "history")
    gate = asyncio.Semaphore(CONCURRENCY)
    async with AsyncClient(
        KEY, emulator.base_url, emulator.text_base_url, recorder=store, max_retries=MAX_RETRIES
    ) as client:
        outcomes = await asyncio.gather(
            *(_one(client, i, gate) for i in range(TASKS)), return_exceptions=True
        )
        retries = client.retries
        reasons = dict(client.retry_transport.retry_reasons)
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    tasks = [o for o in outcomes if isinstance(o, Task)]
    state = emulator.state
    injected = state.fault_counts()
    rows = store.items(kind="task")
    statuses = Counter(t.status for t in tasks)
    report(
        "row 1 poll faults",
        tasks=TASKS,
        terminal=sum(statuses[s] for s in ("completed", "failed")),
        completed=statuses["completed"],
        failed=statuses["failed"],
        wait_errors=len(errors),
        injected_5xx=injected["error_500"] + injected["error_503"],
        injected_429=injected["rate_limit"],
        injected_drops=injected["drop"],
        poll_too_fast=state.counters["poll_too_fast"],
        client_retries=retries,
        retry_reasons=reasons,
        created_on_emulator=state.counters["tasks_created"],
        rows=len(rows),
        ledger_write_retries=store.retries,
    )
    assert not errors, f"{len(errors)} waits ended without a terminal state: {errors[:3]!r}"
    assert len(tasks) == TASKS
    assert all(t.status in ("completed", "failed") for t in tasks)
    assert statuses["failed"] == TASKS // 10
    # each kind of fault really happened, and each was answered by a retry
    assert injected["error_500"] + injected["error_503"] > 0
    assert injected["rate_limit"] > 0
    assert injected["drop"] > 0
    answered = sum(injected[k] for k in ("error_500", "error_503", "rate_limit", "drop"))
    assert retries == answered + state.counters["poll_too_fast"]  # one retry per fault
    # no task created twice: one create on the service per call, every id distinct
    assert state.counters["tasks_created"] == TASKS
    assert state.counters["tasks_rejected"] == 0
    assert len({t.id for t in tasks}) == TASKS
    _check_rows(rows, tasks)
    store.close()


def _check_rows(rows: list[dict[str, Any]], tasks: list[Task]) -> None:
    """Exactly one ledger row per task, holding its final status (and its cached media)."""
    by_key = Counter(row["key"] for row in rows)
    assert set(by_key) == {t.id for t in tasks}
    assert max(by_key.values()) == 1
    final = {row["key"]: row for row in rows}
    for task in tasks:
        row = final[task.id]
        assert row["status"] == task.status, (task, row["status"])
        assert row["family"] == task.family
        if task.status == "completed":
            assert row["local_file"], row
            assert Path(row["local_file"]).is_file(), row


class _PollOutage(httpx2.AsyncBaseTransport):
    """Passes requests on, except that result polls ``first`` .. ``first + n - 1`` get 503."""

    def __init__(self, first: int, n: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.first = first
        self.n = n
        self.polls = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if "/v1/result/" in request.url.path:
            self.polls += 1
            if self.first <= self.polls < self.first + self.n:
                return httpx2.Response(503, json={"error": {"type": "overloaded_error"}})
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_wait_outlives_a_short_poll_outage(tmp_path: Path) -> None:
    store = Ledger(tmp_path / "history")
    outage = _PollOutage(first=2, n=4)  # one poll answers, then 4 x 503, then service is back
    with start_emulator(speed=SPEED, api_key=KEY) as handle:
        async with AsyncClient(
            KEY, handle.base_url, handle.text_base_url, outage, recorder=store
        ) as client:
            task = await client.videos.create(
                "neutralSora2Plus", prompt="a short outage", duration=4
            )
            try:
                await task.wait(timeout=WAIT_LIMIT_S)
            finally:
                row = store.item("task", task.id)
                report(
                    "row 1 outage",
                    polls=outage.polls,
                    client_retries=client.retries,
                    status=task.status,
                    ledger_status=row["status"] if row else None,
                )
    assert task.status == "completed"
    assert row is not None
    assert row["status"] == "completed"
    store.close()
