"""``Client``: the blocking twin of ``AsyncClient``, for scripts and plain cells."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx2

from mediagen_nb import _hooks

from ._chat_retry import DEFAULT_CHAT_RETRIES
from ._client import DEFAULT_RECORDER, AsyncClient, _Default
from ._limits import MaxDownload
from ._media_host import MediaHost
from ._retry import Sleep
from ._sync_loop import LoopRunner, SyncStream, SyncTask
from ._sync_resources import (
    SyncAssets,
    SyncChat,
    SyncClassroom,
    SyncMedia,
    SyncMessages,
    SyncTasks,
)

__all__ = ["Client", "SyncStream", "SyncTask"]

T = TypeVar("T")


class Client:
    """Blocking client with the methods of ``AsyncClient``, for scripts.

    It runs an ``AsyncClient`` on an event loop of its own; ``close()`` stops it.

    Args:
        api_key: The service's key; None reads ``MEDIAGEN_API_KEY``, and with neither the
            client uses the built-in emulator (demo mode). Never printed, logged or stored.
        base_url: The address of images, videos, results and assets; None reads
            ``MEDIAGEN_BASE_URL``.
        text_base_url: The address of chat completions and messages; None reads
            ``MEDIAGEN_TEXT_BASE_URL``.
        transport: An ``httpx2`` transport to send through (tests pass an ASGI transport).
        timeout: Seconds (or an ``httpx2.Timeout``) for one request; None: the default.
        max_retries: How often the transport retries a safe request (never a create POST).
        chat_max_retries: How often a chat POST is re-sent after a retryable failure
            (2, as the official SDKs).
        sleep: Replaces ``asyncio.sleep`` for backoff and polling (tests: zero delay).
        clock: Replaces ``time.monotonic`` for deadlines.
        rng: Drives the backoff jitter.
        recorder: Where requests, tasks and turns are recorded: by default the history
            ledger; None records nothing.
        allow_unknown_models: Accept model names newer than the catalog.
        max_download_bytes: The largest result downloaded, in bytes: one number, or one per
            kind (``{"image": ..., "video": ...}``); None reads ``MEDIAGEN_MAX_DOWNLOAD_MB``
            (MiB), else 64 MiB for images and 512 MiB for videos.
        media_host: Where local files and expired results are uploaded so the service can
            fetch them: a bucket URL (``s3://bucket/prefix``) or a ``MediaHost``; None reads
            ``MEDIAGEN_MEDIA_HOST``.

    Raises:
        ConfigurationError: A base URL is set without a key, or a key without a base URL; a
            download cap that is not a positive whole number.
        RuntimeError: This Python cannot start a thread (a browser kernel): use
            ``AsyncClient`` with ``await`` there.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        text_base_url: str | None = None,
        transport: httpx2.AsyncBaseTransport | None = None,
        *,
        timeout: float | httpx2.Timeout | None = None,
        max_retries: int = 3,
        chat_max_retries: int = DEFAULT_CHAT_RETRIES,
        sleep: Sleep | None = None,
        clock: Callable[[], float] | None = None,
        rng: Callable[[], float] | None = None,
        recorder: _hooks.Recorder | _Default | None = DEFAULT_RECORDER,
        allow_unknown_models: bool = False,
        max_download_bytes: MaxDownload = None,
        media_host: MediaHost | str | None = None,
    ) -> None:
        self._runner = LoopRunner()

        async def build() -> AsyncClient:
            return AsyncClient(
                api_key,
                base_url,
                text_base_url,
                transport,
                timeout=timeout,
                max_retries=max_retries,
                chat_max_retries=chat_max_retries,
                sleep=sleep,
                clock=clock,
                rng=rng,
                recorder=recorder,
                allow_unknown_models=allow_unknown_models,
                max_download_bytes=max_download_bytes,
                media_host=media_host,
            )

        try:
            self._async = self._runner.run(build())
        except BaseException:
            self._runner.stop()
            raise
        self.chat = SyncChat(self._runner, self._async.chat)
        self.messages = SyncMessages(self._runner, self._async.messages)
        self.images = SyncMedia(self._runner, self._async.images)
        self.videos = SyncMedia(self._runner, self._async.videos)
        self.tasks = SyncTasks(self._runner, self._async.tasks)
        self.assets = SyncAssets(self._runner, self._async.assets)
        self.classroom = SyncClassroom(self._runner, self._async.classroom)

    @property
    def async_client(self) -> AsyncClient:
        """The ``AsyncClient`` doing the work (on the private loop)."""
        return self._async

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` (which uses ``async_client``) on this client's loop; block for it.

        Args:
            coro: a coroutine, e.g. ``plan.run(client=client.async_client)``.

        Returns:
            What the coroutine returns.
        """
        return self._runner.run(coro)

    @property
    def demo_mode(self) -> bool:
        """True when the built-in emulator is used."""
        return self._async.demo_mode

    @property
    def base_url(self) -> str | None:
        """Base of the image, video, result and asset endpoints."""
        return self._async.base_url

    @property
    def text_base_url(self) -> str | None:
        """Base of the text gateway."""
        return self._async.text_base_url

    @property
    def retries(self) -> int:
        """Total HTTP retries made so far."""
        return self._async.retries

    def __repr__(self) -> str:
        return repr(self._async).replace("AsyncClient(", "Client(", 1)

    def close(self) -> None:
        """Close the connection pool and stop the loop thread."""
        if self._runner.loop.is_closed():
            return
        try:
            self._runner.run(self._async.aclose())
        finally:
            self._runner.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
