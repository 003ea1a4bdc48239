"""The bottom of the emulator: clock, speed, randomness, lock, faults, counters and key.

The stores (``_assets``, ``_tasks``) take a :class:`Runtime`; :class:`EmulatorState`
(``_state``) is a runtime that also holds the stores.
"""

from __future__ import annotations

import hmac
import random
import threading
import time
from collections import Counter
from collections.abc import Callable

from mediagen_nb.emulator._faults import FaultConfig, FaultInjector

Clock = Callable[[], float]


class Runtime:
    """What every part of one emulator shares: clock, speed, randomness, lock, faults, key."""

    def __init__(
        self,
        *,
        api_key: str,
        speed: float = 1.0,
        faults: FaultConfig | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
    ) -> None:
        if not api_key:
            raise ValueError("the emulator needs a non-empty api_key")
        if not speed > 0:
            raise ValueError(f"speed must be positive, got {speed!r}")
        self._key = api_key.encode("utf-8")
        self.speed = float(speed)
        """Service durations are divided by this (30 = thirty times faster than real)."""
        self.speed_header = f"{self.speed:g}".encode("ascii")
        self.clock: Clock = clock or time.time
        self.rng = random.Random(seed)
        """Seeded generator for ids and timings (deterministic when a seed is given)."""
        self.lock = threading.RLock()
        """Guards the stores; routes run on one loop, renders in worker threads."""
        self.faults = FaultInjector(faults or FaultConfig())
        self.text_rate: float | None = None
        """Streamed text pace in tokens per wall-clock second (None: paced by ``speed``)."""
        self.counters: Counter[str] = Counter()
        """``poll_too_fast`` (429s for early polls), ``tasks_created``, ``tasks_rejected``,
        ``media_rendered``, ``assets_uploaded``, ``tasks_purged``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(speed={self.speed:g}, api_key=<redacted>)"

    def now(self) -> float:
        """The emulator clock, in seconds."""
        return self.clock()

    def scaled(self, service_seconds: float) -> float:
        """Real seconds the emulator takes for ``service_seconds`` of the real service."""
        return service_seconds / self.speed

    def key_matches(self, candidate: bytes) -> bool:
        """Constant-time comparison of a presented key with the configured one."""
        return hmac.compare_digest(candidate, self._key)

    def random_hex(self, nbytes: int) -> str:
        """Hex digits from the seeded generator (ids; not secrets)."""
        with self.lock:
            return self.rng.getrandbits(nbytes * 8).to_bytes(nbytes, "big").hex()

    def uniform(self) -> float:
        """A number in [0, 1) from the seeded generator."""
        with self.lock:
            return self.rng.random()

    def fault_counts(self) -> dict[str, int]:
        """A snapshot of injected-fault counters (for reliability reports)."""
        with self.lock:
            return dict(self.faults.counts)
