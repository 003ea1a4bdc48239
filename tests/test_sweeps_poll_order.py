"""A large sweep polls the tasks it has in flight before it creates more (bench figure 12).

Headless: a fake service answers after a few loop turns, and the client's sleep is a fake
that returns at once and notes that the sleeping runner's poll is now due. The order of the
requests the service sees is the evidence: once a task's poll is due, at most the client's
in-flight limit's worth of creates (those already holding a slot) reach the service before
that poll. With one FIFO queue, a task's poll waited behind every create queued before it.
"""

from __future__ import annotations

import asyncio
import json
from contextvars import ContextVar

import httpx2

import mediagen_nb as mg
from mediagen_nb.client import AsyncClient
from mediagen_nb.client._gate import PriorityGate
from mediagen_nb.client._http import MAX_IN_FLIGHT
from tests._support import KEY
from tests.client_fakes import BASE, TEXT, FakeService

CELLS = 200
POLLS = 3
"""Each task answers ``processing`` twice, then ``completed``."""

Event = tuple[str, str]
"""``(what, task id)``: ``due``, ``POST`` or ``GET``, and the service's task it is for."""
CREATED: ContextVar[str] = ContextVar("created", default="")
"""The task the current cell's create made (set in the cell's runner, which the client's
sleeps copy when they start)."""


class SlowService(httpx2.AsyncBaseTransport):
    """The fake service, answering after a few loop turns; logs who sent what, in order."""

    def __init__(self, log: list[Event]) -> None:
        self.service = FakeService(script=["processing"] * (POLLS - 1) + ["completed"])
        self.log = log

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        self.log.append((request.method, path.rsplit("/", 1)[1] if request.method == "GET" else ""))
        for _ in range(3):
            await asyncio.sleep(0)
        response = self.service(request)
        if request.method == "POST":
            CREATED.set(json.loads(response.content)["id"])
        return response


def creates_before_each_poll(log: list[Event]) -> list[int]:
    """For each poll that fell due: the creates the service saw before that poll arrived."""
    counts: list[int] = []
    due: dict[str, int] = {}
    for what, task in log:
        if what == "due":
            due[task] = 0
        elif what == "POST":
            for waiting in due:
                due[waiting] += 1
        elif task in due:
            counts.append(due.pop(task))
    return counts


async def test_a_due_poll_waits_for_at_most_the_in_flight_limit_of_creates() -> None:
    log: list[Event] = []

    async def due_at_once(_delay: float) -> None:
        await asyncio.sleep(0)
        log.append(("due", CREATED.get()))

    plan = mg.sweep("image", model="nano-banana-pro", prompt=[f"fox {i}" for i in range(CELLS)])
    transport = SlowService(log)
    async with AsyncClient(KEY, BASE, TEXT, transport, recorder=None, sleep=due_at_once) as client:
        frame = await plan.run(CELLS, client=client)
    assert list(frame["status"]) == ["completed"] * CELLS
    assert sorted(transport.service.polls.values()) == [POLLS] * CELLS
    counts = creates_before_each_poll(log)
    assert len(counts) == CELLS * POLLS  # every poll fell due once and was sent
    assert max(counts) <= MAX_IN_FLIGHT, sorted(counts)[-5:]


async def test_the_gate_serves_urgent_waiters_first_and_loses_no_slot_to_a_cancel() -> None:
    gate, order = PriorityGate(1), []
    release = asyncio.Event()

    async def holder(name: str, urgent: bool) -> None:
        async with gate.hold(urgent=urgent):
            order.append(name)
            await release.wait()

    first = asyncio.ensure_future(holder("first", False))
    await asyncio.sleep(0)
    waiters = [asyncio.ensure_future(holder(n, u)) for n, u in [("c1", False), ("p1", True)]]
    waiters += [asyncio.ensure_future(holder(n, u)) for n, u in [("c2", False), ("p2", True)]]
    await asyncio.sleep(0)
    assert gate.waiting == 4
    waiters[3].cancel()  # p2 leaves the queue before its turn
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(first, *waiters[:3])
    assert order == ["first", "p1", "c1", "c2"]
    assert gate.waiting == 0
    async with gate.hold(urgent=False):  # the one slot is free again
        assert gate._free == 0
    assert gate._free == 1
