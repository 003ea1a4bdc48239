"""Fault injection: the flaky network and overloaded service the reliability tests need.

Off by default; ``FaultConfig`` says what to inject. When each kind fires (before or after
the request is handled) is described under "Inside the emulator" in ``docs/reference/design.md``.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Final, Literal

import httpx2
from starlette.types import Receive, Scope, Send

from mediagen_nb._serverkit.errors import TRANSPORT_KEY

FaultCategory = Literal["result", "create", "asset", "media", "text"]
CATEGORIES: Final[tuple[FaultCategory, ...]] = ("result", "create", "asset", "media", "text")

COUNT_KEYS: Final[tuple[str, ...]] = (
    "drop",
    "error_500",
    "error_503",
    "error_after_handling",
    "rate_limit",
    "latency",
    "stream_cut",
)
"""Counter keys: ``error_after_handling`` counts the 5xx sent after a POST/DELETE was done
(they are also in ``error_500``/``error_503``)."""

FaultKind = Literal["drop", "error", "rate_limit"]


class ConnectionDropped(httpx2.RemoteProtocolError):
    """Raised by the app to drop a connection when it cannot close the socket itself."""


@dataclass(frozen=True)
class FaultConfig:
    """Faults the emulator injects on purpose, for testing a client's resilience.

    Each request of a category in ``apply_to`` draws once and gets at most one of a dropped
    connection, a 500/503 or a 429; ``latency_s`` delays each of them.

    Example:
        ```python
        faults = FaultConfig(error_rate=0.1, apply_to=("result", "create"), seed=1)
        emu = mg.start_emulator(faults=faults)
        ```

    Args:
        error_rate: Probability (0 to 1) of a 500 or 503, half each. On a POST or DELETE it
            comes after the request was handled (the task or asset exists anyway).
        rate_limit_rate: Probability (0 to 1) of a 429 with ``Retry-After``.
        drop_rate: Probability (0 to 1) that the connection closes without a response.
        latency_s: Real seconds (not scaled by speed) added to every request of an
            ``apply_to`` category; default 0.
        stream_cut_rate: Probability (0 to 1) that a streamed chat response stops mid-way,
            whatever ``apply_to`` says.
        seed: Seed of the fault draws; None: unpredictable.
        apply_to: Request categories that get drops, errors, 429s and latency:
            ``"result"`` (polls, the default), ``"create"``, ``"asset"``, ``"media"``,
            ``"text"``.

    Raises:
        ValueError: A rate is outside 0 to 1, ``error_rate + rate_limit_rate + drop_rate``
            exceeds 1, ``latency_s`` is negative, or a category is unknown.
    """

    error_rate: float = 0.0
    """Probability of a 500 or 503 (half each)."""
    rate_limit_rate: float = 0.0
    """Probability of a 429 with ``Retry-After``."""
    drop_rate: float = 0.0
    """Probability that the connection closes without a response."""
    latency_s: float = 0.0
    """Real seconds added to every request of an ``apply_to`` category."""
    stream_cut_rate: float = 0.0
    """Probability that a streamed text response stops mid-way (any category)."""
    seed: int | None = None
    """Seed of the fault generator (None: unpredictable)."""
    apply_to: tuple[FaultCategory, ...] = ("result",)
    """Request categories that get drops, errors, 429s and latency."""

    def __post_init__(self) -> None:
        for name in ("error_rate", "rate_limit_rate", "drop_rate", "stream_cut_rate"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
        if self.error_rate + self.rate_limit_rate + self.drop_rate > 1.0 + 1e-9:
            raise ValueError("error_rate + rate_limit_rate + drop_rate must not exceed 1")
        if self.latency_s < 0:
            raise ValueError(f"latency_s must not be negative, got {self.latency_s!r}")
        unknown = [c for c in self.apply_to if c not in CATEGORIES]
        if unknown:
            raise ValueError(f"unknown fault categories {unknown}; known: {list(CATEGORIES)}")

    @property
    def active(self) -> bool:
        """True when any request-level fault can fire."""
        return bool(self.apply_to) and (
            self.error_rate > 0
            or self.rate_limit_rate > 0
            or self.drop_rate > 0
            or self.latency_s > 0
        )


class FaultInjector:
    """Draws faults from a seeded generator and counts what it injected (thread-safe)."""

    def __init__(self, config: FaultConfig) -> None:
        self.config = config
        self.counts: Counter[str] = Counter(dict.fromkeys(COUNT_KEYS, 0))
        """How many faults of each kind were injected so far."""
        self._rng = random.Random(config.seed)
        self._lock = threading.Lock()

    def applies(self, category: FaultCategory | None) -> bool:
        """Whether requests of ``category`` get request-level faults."""
        return category is not None and self.config.active and category in self.config.apply_to

    def draw(self) -> FaultKind | None:
        """One draw: which fault (if any) the current request gets."""
        cfg = self.config
        with self._lock:
            u = self._rng.random()
        if u < cfg.drop_rate:
            return "drop"
        if u < cfg.drop_rate + cfg.error_rate:
            return "error"
        if u < cfg.drop_rate + cfg.error_rate + cfg.rate_limit_rate:
            return "rate_limit"
        return None

    def error_status(self) -> int:
        """500 or 503, half each."""
        with self._lock:
            return 500 if self._rng.random() < 0.5 else 503

    def count(self, key: str) -> None:
        """Add one to ``counts[key]``."""
        with self._lock:
            self.counts[key] += 1

    def should_cut_stream(self) -> bool:
        """Whether the streamed response being started should stop mid-way (and count it)."""
        rate = self.config.stream_cut_rate
        if rate <= 0:
            return False
        with self._lock:
            cut = self._rng.random() < rate
            if cut:
                self.counts["stream_cut"] += 1
        return cut

    def cut_point(self, length: int) -> int:
        """Index at which to cut a stream of ``length`` pieces (in its middle third)."""
        if length <= 1:
            return 0
        with self._lock:
            return self._rng.randrange(max(1, length // 3), max(2, 2 * length // 3 + 1))


async def drop_connection(scope: Scope, receive: Receive, send: Send) -> None:
    """Close the connection without an HTTP response (or raise ``ConnectionDropped``)."""
    transport = scope.get(TRANSPORT_KEY)
    if transport is not None:
        async with asyncio.timeout(5.0):
            # Read the request body to its end first: bytes left unread in the socket make
            # the kernel answer the close with a reset, so the client would see either
            # ``ReadError`` (reset) or ``RemoteProtocolError`` (end of file) depending on
            # when the body's packets arrived. Read out, the close is always an orderly EOF.
            message = await receive()
            while message["type"] == "http.request" and message.get("more_body", False):
                message = await receive()
            transport.close()
            # Wait until uvicorn has seen the disconnect, so it does not try to answer 500.
            while message["type"] != "http.disconnect":
                message = await receive()
        return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"64")],
        }
    )
    raise ConnectionDropped("emulator fault injection: connection dropped")
