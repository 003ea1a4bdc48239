"""A transport wrapper that retries what is safe to retry, and counts what it did.

What "safe" means: the design page, "What is retried".
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2

from ._config import get_logger
from ._exceptions import parse_retry_after

logger = get_logger("mediagen_nb.client")

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "DELETE", "OPTIONS"})
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
NEVER_SENT_ERRORS: tuple[type[Exception], ...] = (
    httpx2.ConnectError,
    httpx2.ConnectTimeout,
    httpx2.PoolTimeout,
)
IDEMPOTENT_EXTENSION = "mediagen_idempotent"
"""Request extension a caller sets to True to mark a POST as read-only (e.g. sd2 assetStatus)."""
NO_RETRY_EXTENSION = "mediagen_no_retry"
"""Request extension set to True when the caller runs its own retry policy (chat, see
``_chat_retry``): this transport then sends the request exactly once."""

Sleep = Callable[[float], Awaitable[Any]]


class RetryTransport(httpx2.AsyncBaseTransport):
    """Wrap ``inner`` and retry safe requests; ``retries`` counts every retry made."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        *,
        max_retries: int = 3,
        initial_delay: float = 0.5,
        max_delay: float = 8.0,
        max_retry_after: float = 60.0,
        jitter: float = 0.25,
        sleep: Sleep | None = None,
        rng: Callable[[], float] | None = None,
    ) -> None:
        self.inner = inner
        self.max_retries = max_retries
        self.initial_delay = initial_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.jitter = jitter
        self.sleep: Sleep = sleep if sleep is not None else asyncio.sleep
        """The sleep function used between attempts (the client reuses it for polling)."""
        self._rng = rng if rng is not None else random.random
        self.retries = 0
        """Total retries made by this transport (the reliability report reads it)."""
        self.retry_reasons: Counter[str] = Counter()
        """Retries by reason: ``"status 429"``, ``"ConnectError"``, ..."""
        self.slept = 0.0
        """Total seconds spent sleeping between attempts."""

    def backoff(self, attempt: int) -> float:
        """Delay before retry number ``attempt`` (0-based) when the server gave no Retry-After."""
        base = min(self.max_delay, self.initial_delay * (2.0**attempt))
        return base * (1.0 - self.jitter * self._rng())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        marked = bool(request.extensions.pop(IDEMPOTENT_EXTENSION, False))
        if request.extensions.pop(NO_RETRY_EXTENSION, False):
            return await self.inner.handle_async_request(request)
        idempotent = marked or request.method.upper() in IDEMPOTENT_METHODS
        attempt = 0
        while True:
            try:
                response = await self.inner.handle_async_request(request)
            except httpx2.TransportError as exc:
                retry = isinstance(exc, NEVER_SENT_ERRORS) or idempotent
                if not retry or attempt >= self.max_retries:
                    raise
                delay = self.backoff(attempt)
                reason = type(exc).__name__
            else:
                if (
                    not idempotent
                    or response.status_code not in RETRY_STATUSES
                    or attempt >= self.max_retries
                ):
                    return response
                wanted = parse_retry_after(response.headers.get("retry-after"))
                if wanted is not None and wanted > self.max_retry_after:
                    return response
                delay = wanted if wanted is not None else self.backoff(attempt)
                reason = f"status {response.status_code}"
                await response.aclose()
            attempt += 1
            self.retries += 1
            self.retry_reasons[reason] += 1
            self.slept += delay
            logger.info(
                "retrying %s %s in %.2f s (%s, retry %d of %d)",
                request.method,
                request.url.path,
                delay,
                reason,
                attempt,
                self.max_retries,
            )
            await self.sleep(delay)

    async def aclose(self) -> None:
        await self.inner.aclose()
