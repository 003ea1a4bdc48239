"""Retry policy of chat POSTs: the one the official ``openai`` / ``anthropic`` SDKs apply.

The rules are on the design page, "What is retried".
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ._config import get_logger
from ._exceptions import APIConnectionError, APIError, parse_retry_after
from ._retry import Sleep

logger = get_logger("mediagen_nb.client")

T = TypeVar("T")

DEFAULT_CHAT_RETRIES = 2
RETRY_STATUSES = frozenset({408, 409, 429})


@dataclass
class ChatRetryPolicy:
    """How chat POSTs are retried (see the module docstring); counters fill as it works."""

    max_retries: int = DEFAULT_CHAT_RETRIES
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    retries: int = 0
    """Re-sends made so far by this client's chat resources."""

    def should_retry(self, error: Exception) -> bool:
        """Whether ``error`` (from one attempt) may be retried."""
        if isinstance(error, APIConnectionError):
            return True
        if not isinstance(error, APIError):
            return False
        wish = error.headers.get("x-should-retry", "").strip().lower()
        if wish in ("true", "false"):
            return wish == "true"
        return error.status_code in RETRY_STATUSES or error.status_code >= 500

    def delay(self, attempt: int, error: Exception, rng: Callable[[], float]) -> float:
        """Seconds to wait before re-send number ``attempt`` (0-based)."""
        wanted = _server_wait(error)
        if wanted is not None and 0 < wanted <= self.max_retry_after:
            return wanted
        base = min(self.initial_delay * 2.0**attempt, self.max_delay)
        return max(0.0, base * (1.0 - 0.25 * rng()))

    async def run(
        self,
        attempt: Callable[[], Awaitable[T]],
        *,
        sleep: Sleep,
        rng: Callable[[], float] | None = None,
        what: str = "chat request",
    ) -> T:
        """Call ``attempt`` until it succeeds, retrying what :meth:`should_retry` allows."""
        draw = rng if rng is not None else random.random
        tries = 0
        while True:
            try:
                return await attempt()
            except (APIError, APIConnectionError) as error:
                if tries >= self.max_retries or not self.should_retry(error):
                    raise
                wait = self.delay(tries, error, draw)
                tries += 1
                self.retries += 1
                logger.info(
                    "retrying %s in %.2f s (%s, retry %d of %d)",
                    what,
                    wait,
                    type(error).__name__,
                    tries,
                    self.max_retries,
                )
                await sleep(wait)


def _server_wait(error: Exception) -> float | None:
    if not isinstance(error, APIError):
        return None
    millis = error.headers.get("retry-after-ms")
    if millis is not None:
        try:
            return float(millis) / 1000.0
        except ValueError:
            pass
    return parse_retry_after(error.headers.get("retry-after"))
