"""The in-flight gate: at most ``limit`` holders; waiting reads go before waiting writes, but
not forever; a cancelled waiter neither leaks nor steals a slot."""

from __future__ import annotations

import asyncio

from mediagen_nb.client._gate import PriorityGate


async def test_reads_waiting_go_before_writes_waiting_but_writes_are_not_starved() -> None:
    gate = PriorityGate(1)
    order: list[str] = []
    release = asyncio.Event()

    async def holder() -> None:
        async with gate.slot():
            await release.wait()

    async def one(name: str, urgent: bool) -> None:
        async with gate.slot(urgent):
            order.append(name)

    first = asyncio.ensure_future(holder())
    await asyncio.sleep(0)
    waiters = [
        asyncio.ensure_future(one(name, name.startswith("read")))
        for name in ("write-1", "write-2", "read-1", "write-3", "read-2", "read-3", "read-4")
    ]
    await asyncio.sleep(0)
    assert (gate.busy, gate.waiting) == (1, 7)
    release.set()
    await asyncio.gather(first, *waiters)
    assert order == ["read-1", "read-2", "read-3", "write-1", "read-4", "write-2", "write-3"]
    assert (gate.busy, gate.waiting) == (0, 0)


async def test_a_cancelled_waiter_leaves_no_trace() -> None:
    gate = PriorityGate(2)
    await gate.acquire(False)
    await gate.acquire(True)
    late = asyncio.ensure_future(gate.acquire(False))
    await asyncio.sleep(0)
    late.cancel()
    await asyncio.gather(late, return_exceptions=True)
    assert gate.waiting == 0
    gate.release()
    gate.release()
    assert gate.busy == 0
    await gate.acquire(True)  # the slots are all free again
    await gate.acquire(False)
    assert gate.busy == 2


async def test_a_slot_handed_to_a_waiter_cancelled_at_that_moment_passes_on() -> None:
    gate = PriorityGate(1)
    await gate.acquire(False)
    handed = asyncio.ensure_future(gate.acquire(True))
    after = asyncio.ensure_future(gate.acquire(False))
    await asyncio.sleep(0)
    gate.release()  # the slot goes to `handed`...
    handed.cancel()  # ...which is cancelled before it runs: the slot must reach `after`
    await asyncio.gather(handed, return_exceptions=True)
    await asyncio.wait_for(after, 1)
    assert (gate.busy, gate.waiting) == (1, 0)
