"""The blocking client's machinery: a private event loop in a daemon thread, and blocking
views of a ``Task`` and of a chat stream (see ``_sync``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from mediagen_nb._platform import can_start_threads
from mediagen_nb.types import ChatCompletion, Message

from ._streams import BaseStream, ChatCompletionStream, MessageStream
from ._tasks import Task

if TYPE_CHECKING:
    from PIL.Image import Image

T = TypeVar("T")
S = TypeVar("S", bound=BaseStream[Any])


class LoopRunner:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        if not can_start_threads():
            raise RuntimeError(
                "the blocking mediagen_nb.Client runs its loop in a thread, and this Python "
                "cannot start one (a browser kernel): use mediagen_nb.AsyncClient with await"
            )
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="mediagen-nb-client", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop thread and block until it is done."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("a blocking Client call was made from its own loop thread")
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        """Stop the loop and join its thread."""
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self.loop.is_running():
            self.loop.close()


class SyncTask:
    """Blocking view of a ``Task``; attributes (``id``, ``status``, ...) read through.

    The blocking ``Client`` returns one from ``images.create`` and ``videos.create``;
    each method runs its ``Task`` twin on the client's loop and blocks until done.

    Example:
        ```python
        with mediagen_nb.Client() as client:
            task = client.images.create("gpt-image-2", prompt="a fox").wait()
            task.download("fox.png")
        ```

    Args:
        runner: The client's private event loop. You do not build this: the client does.
        task: The async task to view.
    """

    def __init__(self, runner: LoopRunner, task: Task) -> None:
        self._runner = runner
        self.task = task
        """The underlying async ``Task``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.task, name)

    def __repr__(self) -> str:
        return f"Sync{self.task!r}"

    def refresh(self) -> Self:
        """Fetch the result once."""
        self._runner.run(self.task.refresh())
        return self

    def wait(
        self,
        timeout: float | None = None,
        on_update: Callable[[SyncTask], Any] | None = None,
        on_status: Callable[[SyncTask], Any] | None = None,
    ) -> Self:
        """Poll until the task ends (see ``Task.wait``); the callbacks get this view.

        Args:
            timeout: Seconds to wait at most (default ``Task.default_timeout``).
            on_update: Runs after every poll.
            on_status: Runs only when the status changes.

        Returns:
            This view, once the task completed.
        """

        def relay(callback: Callable[[SyncTask], Any] | None) -> Callable[[Task], None] | None:
            if callback is None:
                return None
            return lambda _task: callback(self)

        self._runner.run(self.task.wait(timeout, relay(on_update), relay(on_status)))
        return self

    def cancel(self) -> bool:
        """Stop waiting locally (see ``Task.cancel``)."""

        async def cancel() -> bool:
            return self.task.cancel()

        return self._runner.run(cancel())

    def read_bytes(self) -> bytes:
        """The result's bytes."""
        return self._runner.run(self.task.read_bytes())

    def download(self, path: str | Path) -> Path:
        """Write the result to a file (see ``Task.download``).

        Args:
            path: A file to write, or an existing directory, which gets ``{id}{suffix}``.

        Returns:
            The file written.
        """
        return self._runner.run(self.task.download(path))

    def save(self, path: str | Path) -> Path:
        """Write the result with its request inside (see ``Task.save``).

        Args:
            path: A file to write, or an existing directory, which gets ``{id}{suffix}``.

        Returns:
            The media file written.
        """
        return self._runner.run(self.task.save(path))

    def first_frame(self) -> Path:
        """The video's first frame as a PNG in the media cache."""
        return self._runner.run(self.task.first_frame())

    def last_frame(self) -> Path:
        """The video's last frame as a PNG in the media cache."""
        return self._runner.run(self.task.last_frame())

    def image(self) -> Image:
        """The result as a PIL image."""
        return self._runner.run(self.task.image())


class SyncStream(Generic[S]):
    """Blocking iteration over a chat stream; ``text``, ``usage``, ... read through.

    The blocking ``Client`` returns one for ``stream=True`` and ``.stream(...)``.
    Iterate it (raw chunks or events), or use ``events()`` or ``text_stream``, once;
    ``with`` it to close the connection when you stop early.

    Args:
        runner: The client's private event loop. You do not build this: the client does.
        stream: The async stream (``ChatCompletionStream`` or ``MessageStream``).
    """

    def __init__(self, runner: LoopRunner, stream: S) -> None:
        self._runner = runner
        self.stream = stream
        """The underlying async stream."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)

    def __iter__(self) -> Iterator[Any]:
        return self._blocking(self.stream.__aiter__())

    def events(self) -> Iterator[Any]:
        """The stream helper's updates (text, thinking, tool calls, done), blocking."""
        return self._blocking(self.stream.events())

    @property
    def text_stream(self) -> Iterator[str]:
        """The answer text as it arrives, blocking."""
        return self._blocking(self.stream.text_stream)

    def _blocking(self, iterator: AsyncIterator[Any]) -> Iterator[Any]:
        async def step() -> tuple[bool, Any]:
            try:
                return True, await iterator.__anext__()
            except StopAsyncIteration:
                return False, None

        while True:
            more, item = self._runner.run(step())
            if not more:
                return
            yield item

    def get_final_completion(self: SyncStream[ChatCompletionStream]) -> ChatCompletion:
        """The assembled chat completion (chat-completions streams)."""
        return self._runner.run(self.stream.get_final_completion())

    def get_final_message(self: SyncStream[MessageStream]) -> Message:
        """The assembled message (messages streams)."""
        return self._runner.run(self.stream.get_final_message())

    def close(self) -> None:
        """Stop reading and close the connection."""
        self._runner.run(self.stream.aclose())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
