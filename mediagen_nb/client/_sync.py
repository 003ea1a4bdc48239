"""``Client``: the blocking twin of :class:`AsyncClient`, for scripts and plain cells.

It owns a private event loop in a daemon thread and runs every call there, so it works the
same in a script and inside Jupyter, whose kernel already runs a loop in the main thread (no
``nest_asyncio``, no ``asyncio.run`` on the kernel's loop). Namespaces mirror the async ones
(``client.images.create(...)`` returns a :class:`SyncTask`, ``stream=True`` returns a
:class:`SyncStream`); each method blocks until its coroutine is done.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TypeVar

from mediagen_nb._platform import can_start_threads

from ._chat import StreamManager
from ._client import AsyncClient
from ._streams import BaseStream
from ._tasks import Task

if TYPE_CHECKING:
    from PIL.Image import Image

T = TypeVar("T")


class _LoopThread:
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


def _wrap(runner: _LoopThread, value: Any) -> Any:
    if isinstance(value, Task):
        return SyncTask(runner, value)
    if isinstance(value, BaseStream):
        return SyncStream(runner, value)
    if isinstance(value, StreamManager):  # ``.stream(...)``: open it now, blocking

        async def opened() -> Any:
            return await value

        return SyncStream(runner, runner.run(opened()))
    return value


class SyncTask:
    """Blocking view of a :class:`Task`; attributes (``id``, ``status``, ...) read through."""

    def __init__(self, runner: _LoopThread, task: Task) -> None:
        self._runner = runner
        self.task = task
        """The underlying async :class:`Task`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.task, name)

    def __repr__(self) -> str:
        return f"Sync{self.task!r}"

    def refresh(self) -> Self:
        """Fetch the result once."""
        self._runner.run(self.task.refresh())
        return self

    def wait(
        self, timeout: float | None = None, on_update: Callable[[SyncTask], Any] | None = None
    ) -> Self:
        """Poll until the task ends (see :meth:`Task.wait`); ``on_update`` gets this view."""

        def relay(_task: Task) -> None:
            if on_update is not None:
                on_update(self)

        self._runner.run(self.task.wait(timeout, relay if on_update is not None else None))
        return self

    def cancel(self) -> bool:
        """Stop waiting locally (see :meth:`Task.cancel`)."""

        async def cancel() -> bool:
            return self.task.cancel()

        return self._runner.run(cancel())

    def read_bytes(self) -> bytes:
        """The result's bytes."""
        return self._runner.run(self.task.read_bytes())

    def download(self, path: str | Path) -> Path:
        """Write the result to ``path``."""
        return self._runner.run(self.task.download(path))

    def image(self) -> Image:
        """The result as a PIL image."""
        return self._runner.run(self.task.image())


class SyncStream:
    """Blocking iteration over a chat stream; ``text``, ``usage``, ... read through."""

    def __init__(self, runner: _LoopThread, stream: BaseStream[Any]) -> None:
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

    def get_final_completion(self) -> Any:
        """The assembled chat completion (chat-completions streams)."""
        return self._runner.run(self.stream.get_final_completion())  # type: ignore[attr-defined]

    def get_final_message(self) -> Any:
        """The assembled message (messages streams)."""
        return self._runner.run(self.stream.get_final_message())  # type: ignore[attr-defined]

    def close(self) -> None:
        """Stop reading and close the connection."""
        self._runner.run(self.stream.aclose())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Namespace:
    """Blocking proxy of a resource namespace: coroutine methods become blocking calls."""

    def __init__(self, runner: _LoopThread, target: Any) -> None:
        self._runner = runner
        self._target = target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return _Namespace(self._runner, value) if hasattr(value, "__dict__") else value
        if inspect.iscoroutinefunction(value):

            def blocking(*args: Any, **kwargs: Any) -> Any:
                return _wrap(self._runner, self._runner.run(value(*args, **kwargs)))

        else:

            def blocking(*args: Any, **kwargs: Any) -> Any:
                return _wrap(self._runner, value(*args, **kwargs))

        blocking.__doc__ = value.__doc__
        blocking.__name__ = name
        return blocking

    def __dir__(self) -> list[str]:
        return [n for n in dir(self._target) if not n.startswith("_")]


class Client:
    """Blocking client; takes exactly the arguments of :class:`AsyncClient`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._runner = _LoopThread()

        async def build() -> AsyncClient:
            return AsyncClient(*args, **kwargs)

        try:
            self._async = self._runner.run(build())
        except BaseException:
            self._runner.stop()
            raise
        self.chat: Any = _Namespace(self._runner, self._async.chat)
        self.messages: Any = _Namespace(self._runner, self._async.messages)
        self.images: Any = _Namespace(self._runner, self._async.images)
        self.videos: Any = _Namespace(self._runner, self._async.videos)
        self.tasks: Any = _Namespace(self._runner, self._async.tasks)
        self.assets: Any = _Namespace(self._runner, self._async.assets)

    @property
    def async_client(self) -> AsyncClient:
        """The :class:`AsyncClient` doing the work (on the private loop)."""
        return self._async

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
