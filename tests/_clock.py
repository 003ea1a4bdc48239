"""The one fake clock of the test suite: time moves only when a test (or a sleep) says so.

It serves as the emulator's Unix clock (``create_app(clock=...)``), the client's monotonic
clock with its ``sleep`` (which returns at once and advances time), and the ledger's clock.
"""

from __future__ import annotations

START = 1_750_000_000.0
"""Unix seconds: the emulator stamps ``created`` from it."""


class FakeClock:
    """A callable clock with ``advance`` and an instant ``sleep`` that records each wait."""

    def __init__(self, now: float = START) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)
