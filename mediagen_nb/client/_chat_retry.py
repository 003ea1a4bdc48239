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
    """How chat POSTs are re-sent, as the official ``openai`` / ``anthropic`` SDKs do it.

    A chat request creates nothing that outlives it, so it is re-sent after a lost
    connection, a timeout, or HTTP 408, 409, 429 and any 5xx; an ``x-should-retry:
    true|false`` header from the service overrides the status rule. A stream is re-sent only
    while opening, never once its response started. The client builds one from its
    ``chat_max_retries`` argument; ``retries`` counts what it did.

    Attributes:
        max_retries: The most re-sends of one request (the SDKs' 2).
        initial_delay: Seconds before the first re-send; doubled for each next one.
        max_delay: The longest of those waits, in seconds. Each is shortened by a random
            factor of up to a quarter (jitter).
        max_retry_after: The longest wait, in seconds, taken from the service's
            ``retry-after-ms`` or ``retry-after``; a longer or zero one is not followed
            and the backoff above applies instead.
        retries: Re-sends made so far by this client's chat resources.
    """

    max_retries: int = DEFAULT_CHAT_RETRIES
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    retries: int = 0
    """Re-sends made so far by this client's chat resources."""

    def should_retry(self, error: Exception) -> bool:
        """Whether a failed attempt may be re-sent.

        Args:
            error: What the attempt raised.

        Returns:
            True for a lost connection or timeout, and for HTTP 408, 409, 429 and 5xx
            unless the service's ``x-should-retry`` header says otherwise.
        """
        if isinstance(error, APIConnectionError):
            return True
        if not isinstance(error, APIError):
            return False
        wish = error.headers.get("x-should-retry", "").strip().lower()
        if wish in ("true", "false"):
            return wish == "true"
        return error.status_code in RETRY_STATUSES or error.status_code >= 500

    def delay(self, attempt: int, error: Exception, rng: Callable[[], float]) -> float:
        """Seconds to wait before a re-send.

        Args:
            attempt: The re-send's number, from 0.
            error: What the failed attempt raised (its ``Retry-After`` headers count).
            rng: Returns a number in [0, 1) for the jitter.

        Returns:
            The service's wait when it lies in (0, ``max_retry_after``], else
            ``min(initial_delay * 2**attempt, max_delay)`` shortened by the jitter.
        """
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
        """Call ``attempt`` until it succeeds, retrying what ``should_retry`` allows.

        Args:
            attempt: Sends the request once.
            sleep: Waits the given seconds (``asyncio.sleep``, or a test's clock).
            rng: The jitter's source; by default ``random.random``.
            what: How log lines name the request.

        Returns:
            What the first successful attempt returned.

        Raises:
            APIError: The last attempt's refusal, when it may not be retried or the
                re-sends are used up.
            APIConnectionError: The same, for a connection failure.
        """
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
