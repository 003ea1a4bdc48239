"""The blocking client's namespaces, written out with the async ones' typed signatures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel

from mediagen_nb.types import (
    AssetFailure,
    AssetInfo,
    ChatCompletion,
    ClassroomMe,
    Message,
    TaskResult,
)

from ._assets import AssetBatch, Assets
from ._chat import Chat, Completions, Messages
from ._chat_tools import M, ToolRun
from ._classroom import Classroom
from ._media import Images, Tasks, Videos
from ._streams import ChatCompletionStream, MessageStream
from ._sync_loop import LoopRunner, SyncStream, SyncTask

T = TypeVar("T")


class _Blocking:
    def __init__(self, runner: LoopRunner) -> None:
        self._runner = runner

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._runner.run(coro)

    def _open(self, opener: Callable[[], Awaitable[T]]) -> T:
        async def opened() -> T:
            return await opener()

        return self._runner.run(opened())


class SyncCompletions(_Blocking):
    """``client.chat.completions``: see ``Completions``."""

    def __init__(self, runner: LoopRunner, target: Completions) -> None:
        super().__init__(runner)
        self._target = target

    @overload
    def create(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        stream: Literal[False] = False,
        **params: Any,
    ) -> ChatCompletion: ...

    @overload
    def create(
        self, *, model: str, messages: list[dict[str, Any]], stream: Literal[True], **params: Any
    ) -> SyncStream[ChatCompletionStream]: ...

    def create(
        self, *, model: str, messages: list[dict[str, Any]], stream: bool = False, **params: Any
    ) -> ChatCompletion | SyncStream[ChatCompletionStream]:
        """Send a chat completion; ``stream=True`` returns a blocking stream."""
        if stream:
            opened = self._run(
                self._target.create(model=model, messages=messages, stream=True, **params)
            )
            return SyncStream(self._runner, opened)
        return self._run(
            self._target.create(model=model, messages=messages, stream=False, **params)
        )

    def stream(
        self, *, model: str, messages: list[dict[str, Any]], **params: Any
    ) -> SyncStream[ChatCompletionStream]:
        """Open a streamed completion for the stream helper (``with`` or plain iteration)."""
        manager = self._target.stream(model=model, messages=messages, **params)
        return SyncStream(self._runner, self._open(lambda: manager))

    def parse(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        response_format: type[M],
        **params: Any,
    ) -> ChatCompletion:
        """See ``parse`` (``choices[i].message.parsed``)."""
        return self._run(
            self._target.parse(
                model=model, messages=messages, response_format=response_format, **params
            )
        )

    def run_tools(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: Sequence[Callable[..., Any]],
        max_steps: int = 10,
        stream: bool = False,
        on_text: Callable[[str], None] | None = None,
        response_format: type[BaseModel] | None = None,
        **params: Any,
    ) -> ToolRun[ChatCompletion]:
        """See ``run_tools`` (async tools run on the client's loop)."""
        return self._run(
            self._target.run_tools(
                model=model,
                messages=messages,
                tools=tools,
                max_steps=max_steps,
                stream=stream,
                on_text=on_text,
                response_format=response_format,
                **params,
            )
        )


class SyncChat:
    """``client.chat`` (holds ``completions``)."""

    def __init__(self, runner: LoopRunner, target: Chat) -> None:
        self.completions = SyncCompletions(runner, target.completions)


class SyncMessages(_Blocking):
    """``client.messages``: see ``Messages``."""

    def __init__(self, runner: LoopRunner, target: Messages) -> None:
        super().__init__(runner)
        self._target = target

    @overload
    def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: Literal[False] = False,
        **params: Any,
    ) -> Message: ...

    @overload
    def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: Literal[True],
        **params: Any,
    ) -> SyncStream[MessageStream]: ...

    def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: bool = False,
        **params: Any,
    ) -> Message | SyncStream[MessageStream]:
        """Send a message; ``stream=True`` returns a blocking stream of Claude events."""
        if stream:
            opened = self._run(
                self._target.create(
                    model=model, max_tokens=max_tokens, messages=messages, stream=True, **params
                )
            )
            return SyncStream(self._runner, opened)
        return self._run(
            self._target.create(
                model=model, max_tokens=max_tokens, messages=messages, stream=False, **params
            )
        )

    def stream(
        self, *, model: str, max_tokens: int, messages: list[dict[str, Any]], **params: Any
    ) -> SyncStream[MessageStream]:
        """Open a streamed message for the stream helper (``with`` or plain iteration)."""
        manager = self._target.stream(
            model=model, max_tokens=max_tokens, messages=messages, **params
        )
        return SyncStream(self._runner, self._open(lambda: manager))

    def parse(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        output_format: type[M],
        **params: Any,
    ) -> Message:
        """See ``parse`` (``reply.parsed_output``)."""
        return self._run(
            self._target.parse(
                model=model,
                max_tokens=max_tokens,
                messages=messages,
                output_format=output_format,
                **params,
            )
        )

    def run_tools(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        tools: Sequence[Callable[..., Any]],
        max_steps: int = 10,
        stream: bool = False,
        on_text: Callable[[str], None] | None = None,
        output_format: type[BaseModel] | None = None,
        **params: Any,
    ) -> ToolRun[Message]:
        """See ``run_tools`` (async tools run on the client's loop)."""
        return self._run(
            self._target.run_tools(
                model=model,
                max_tokens=max_tokens,
                messages=messages,
                tools=tools,
                max_steps=max_steps,
                stream=stream,
                on_text=on_text,
                output_format=output_format,
                **params,
            )
        )


class SyncMedia(_Blocking):
    """``client.images`` / ``client.videos``: see ``Images``."""

    def __init__(self, runner: LoopRunner, target: Images | Videos) -> None:
        super().__init__(runner)
        self._target = target

    def create(self, model: str, *, family: str | None = None, **params: Any) -> SyncTask:
        """Validate and send a create request; return the blocking task handle at once.

        The keyword parameters are the fields of the model's family: see the documentation's
        Model families pages (Reference → Model families) or
        ``mediagen_nb.catalog.params_for(family_id)``.

        Example:
            ```python
            task = client.images.create("gpt-image-2", prompt="a fox", ratio="16:9").wait()
            ```

        Args:
            model: The model name, e.g. ``gpt-image-2`` or ``neutralSora2Plus``.
            family: The family id, for a model name the catalog does not list.
            **params: The family's request fields (``prompt``, ``size``, ``content``...).

        Returns:
            The task; ``wait()`` polls it to the end.

        Raises:
            RequestValidationError: The body breaks a rule (nothing sent), or the model's
                family is unknown or of the other kind.
            AssetNotUsableError: An ``asset://`` reference is known not to be Active.
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
        """
        return SyncTask(
            self._runner, self._run(self._target.create(model, family=family, **params))
        )


class SyncTasks(_Blocking):
    """``client.tasks``: see ``Tasks``."""

    def __init__(self, runner: LoopRunner, target: Tasks) -> None:
        super().__init__(runner)
        self._target = target

    def get(self, task_id: str) -> TaskResult:
        """Read a task's result once (``GET /v1/result/{id}``), without polling.

        Args:
            task_id: The id the create answered with.

        Returns:
            The result as the service reports it now.
        """
        return self._run(self._target.get(task_id))

    def attach(self, task_id: str, family: str, model: str) -> SyncTask:
        """A handle for an existing task (e.g. after a restart); nothing is sent yet.

        Args:
            task_id: The task's id.
            family: The family id, which sets the poll interval and the deadline.
            model: The model name the task was created with.

        Returns:
            The blocking task handle.
        """
        return SyncTask(self._runner, self._target.attach(task_id, family, model))


class SyncAssets(_Blocking):
    """``client.assets``: see ``Assets``."""

    def __init__(self, runner: LoopRunner, target: Assets) -> None:
        super().__init__(runner)
        self._target = target

    @staticmethod
    def asset_uri(asset_id: str) -> str:
        """``asset://{id}``, the form generation requests take."""
        return Assets.asset_uri(asset_id)

    def known_status(self, asset_id: str) -> str | None:
        """The last status this client saw for ``asset_id`` (nothing is sent)."""
        return self._target.known_status(asset_id)

    def upload(self, url: Any, asset_type: str, *, name: str | None = None) -> AssetInfo:
        """Submit a URL (or a finished task, a Path, bytes) to the seedance 2.0 library."""
        return self._run(self._target.upload(url, asset_type, name=name))

    def get(self, asset_id: str) -> AssetInfo:
        """A seedance 2.0 asset's detail."""
        return self._run(self._target.get(asset_id))

    def delete(self, asset_id: str) -> str | None:
        """Delete a seedance 2.0 asset; returns the service's message."""
        return self._run(self._target.delete(asset_id))

    def sd2_upload(
        self,
        *,
        image_urls: Sequence[Any] = (),
        video_urls: Sequence[Any] = (),
        audio_urls: Sequence[Any] = (),
    ) -> AssetBatch:
        """Submit media to the sd2 library; items start as ``submitted``."""
        return self._run(
            self._target.sd2_upload(
                image_urls=image_urls, video_urls=video_urls, audio_urls=audio_urls
            )
        )

    def sd2_status(self, asset_ids: Iterable[str]) -> AssetBatch:
        """Review status of sd2 assets."""
        return self._run(self._target.sd2_status(asset_ids))

    def submit(self, library: str, body: dict[str, Any]) -> AssetBatch:
        """Send one upload body in ``library``'s shape."""
        return self._run(self._target.submit(library, body))

    def status_of(self, library: str, asset_ids: Sequence[str]) -> AssetBatch:
        """Review status of ``asset_ids`` in ``library``."""
        return self._run(self._target.status_of(library, asset_ids))

    def wait_active(
        self,
        asset_ids: Iterable[str],
        *,
        timeout: float | None = None,
        poll_interval: float | None = None,
        on_update: Callable[[AssetInfo | AssetFailure], object] | None = None,
    ) -> dict[str, AssetInfo]:
        """Poll until every asset is ``Active`` (see ``Assets.wait_active``)."""
        return self._run(
            self._target.wait_active(
                asset_ids, timeout=timeout, poll_interval=poll_interval, on_update=on_update
            )
        )

    def host_file(self, data: bytes, *, name: str, content_type: str) -> str:
        """Demo mode only: store a file on the built-in emulator; returns its URL."""
        return self._run(self._target.host_file(data, name=name, content_type=content_type))

    def fetch_media(self, url: str, *, max_bytes: int, timeout: float = 5.0) -> bytes:
        """GET an asset's media for a preview (see ``Assets.fetch_media``)."""
        return self._run(self._target.fetch_media(url, max_bytes=max_bytes, timeout=timeout))


class SyncClassroom(_Blocking):
    """``client.classroom``: see ``Classroom``."""

    def __init__(self, runner: LoopRunner, target: Classroom) -> None:
        super().__init__(runner)
        self._target = target

    def me(self) -> ClassroomMe:
        """``GET /v1/classroom/me`` once (see ``Classroom.me``)."""
        return self._run(self._target.me())
