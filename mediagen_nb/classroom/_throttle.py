"""Per-address limits at the door: wrong credentials and class-code enrolments.

A sliding window per client address (as nginx's ``limit_req``, without a queue): past
``WRONG_CODES`` wrong credentials a minute, 429 with ``Retry-After``; at most ``enrol_limit``
new names per ``ENROL_WINDOW_S``. The first refusal of each lockout is logged for the teacher.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

WRONG_CODES: Final = 20
"""Wrong credentials answered 401 per address and window; more get 429. Known codes from a
locked-out address still work: a class behind one NAT or one JupyterHub shares an address,
and codes are far too long to guess."""
WRONG_WINDOW_S: Final = 60.0
ENROL_LIMIT: Final = 60
"""New class-code names one address may enrol per window (a class on one JupyterHub, or
behind one NAT, enrols from a single address)."""
ENROL_WINDOW_S: Final = 600.0
MAX_ADDRESSES: Final = 10_000
"""Addresses remembered at once; the stalest are forgotten first."""


class Window:
    """At most ``limit`` events per ``window_s`` seconds for each key."""

    def __init__(
        self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._reported: set[str] = set()

    def _recent(self, key: str) -> deque[float]:
        events = self._seen.get(key)
        if events is None:
            return deque()
        horizon = self._clock() - self.window_s
        while events and events[0] <= horizon:
            events.popleft()
        if len(events) < self.limit:
            self._reported.discard(key)
        return events

    def wait(self, key: str) -> float | None:
        """Seconds until ``key`` may have another event; None when it may now."""
        events = self._recent(key)
        if len(events) < self.limit:
            return None
        return max(0.0, events[0] + self.window_s - self._clock())

    def add(self, key: str) -> None:
        """Count one event of ``key``."""
        events = self._recent(key)
        if key not in self._seen:
            if len(self._seen) >= MAX_ADDRESSES:
                self._forget_stalest()
            self._seen[key] = events
        events.append(self._clock())

    def first_refusal(self, key: str) -> bool:
        """True once per lockout of ``key`` (to log it once, not at every request)."""
        if key in self._reported:
            return False
        self._reported.add(key)
        return True

    def _forget_stalest(self) -> None:
        stalest = min(self._seen, key=lambda k: self._seen[k][-1] if self._seen[k] else 0.0)
        del self._seen[stalest]
        self._reported.discard(stalest)


@dataclass
class Guard:
    """The gateway's two windows."""

    enrol_limit: int = ENROL_LIMIT
    wrong: Window = field(init=False)
    enrolments: Window = field(init=False)

    def __post_init__(self) -> None:
        self.wrong = Window(WRONG_CODES, WRONG_WINDOW_S)
        self.enrolments = Window(self.enrol_limit, ENROL_WINDOW_S)


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
