"""The client's in-flight gate: at most ``limit`` requests at once, waiting reads mostly first.

A waiting read (GET: a poll, a status, a download) takes a free slot before a waiting write
(a create, a chat turn), but every ``READS_PER_WRITE`` reads in a row let one write through:
polls are not stuck behind a burst of creates, and creates still move (bench figure 12).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

READS_PER_WRITE = 3
"""Waiting reads served in a row before a waiting write gets the next slot."""


class PriorityGate:
    """A semaphore of ``limit`` slots with two queues; ``urgent`` waiters go first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.busy = 0
        self._urgent: deque[asyncio.Future[None]] = deque()
        self._normal: deque[asyncio.Future[None]] = deque()
        self._reads_in_row = 0

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot."""
        return len(self._urgent) + len(self._normal)

    async def acquire(self, urgent: bool) -> None:
        """Take a slot, waiting behind earlier waiters of the same or a higher class."""
        if self.busy < self.limit and not self._urgent and not (self._normal and not urgent):
            self.busy += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._urgent if urgent else self._normal
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # the slot was handed over just as this waiter was cancelled
            else:
                queue.remove(waiter)
            raise

    def release(self) -> None:
        """Hand the slot to the next waiter (see the module docstring), or free it."""
        writes_turn = self._reads_in_row >= READS_PER_WRITE
        order = (self._normal, self._urgent) if writes_turn else (self._urgent, self._normal)
        for queue in order:
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    urgent = queue is self._urgent
                    self._reads_in_row = self._reads_in_row + 1 if urgent else 0
                    waiter.set_result(None)
                    return
        self.busy -= 1

    @asynccontextmanager
    async def slot(self, urgent: bool = False) -> AsyncIterator[None]:
        """``async with gate.slot(urgent):`` holds one slot for the block."""
        await self.acquire(urgent)
        try:
            yield
        finally:
            self.release()
