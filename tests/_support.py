"""What the whole test suite shares: the service key it uses, and its one fake clock.

The clock moves only when a test (or a sleep) says so. It serves as the emulator's Unix
clock (``create_app(clock=...)``), the client's monotonic clock with its ``sleep`` (which
returns at once and advances time), and the ledger's clock.
"""

from __future__ import annotations

import os

FUZZ_RANDOM = os.environ.get("MEDIAGEN_FUZZ_RANDOM", "").strip() == "1"
"""Hypothesis tests are derandomised, so every run of the test command tries the same cases
and fails only on a wrong result of the code under test; ``MEDIAGEN_FUZZ_RANDOM=1`` explores
new cases instead (a failure it finds is added to the file's recorded cases)."""

KEY = "sk-test-MARKER-7f3a9c1e"
"""The API key every test service (emulator, fake, gateway) expects; a marker to search for
in anything that must never show a key."""

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
