"""Streaming one reply into the chat transcript (the part of ``ChatPanel`` that calls the client).

A reply streams as an asyncio task on the kernel's loop; Stop cancels it and the partial text
stays (design: docs/reference/design.md, "The chat form").
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from mediagen_nb.widgets._base import describe_error
from mediagen_nb.widgets._chat_options import ChatSettings
from mediagen_nb.widgets._chat_stream import Reply
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

T = TypeVar("T")
STOPPED_REASON = "stopped by the user"
"""What the history records for a reply the user stopped (not an error of the service)."""


class ChatRunner:
    """Start, stream, stop: mixed into ``ChatPanel`` (which provides the attributes below)."""

    session: Session
    transcript_view: ChatTranscript
    _task: asyncio.Task[None] | None
    _last: tuple[ChatSettings, dict[str, Any]] | None

    if TYPE_CHECKING:  # provided by the panel base and by ChatPanel

        def spawn(
            self, coro: Coroutine[Any, Any, T], *, name: str | None = None
        ) -> asyncio.Task[T]: ...

        def _revalidate(self) -> None: ...

    _streaming: bool = False
    _stream: Any = None
    """The reply's open stream while it streams (so Stop can say why it closes)."""
    _controls_dirty: bool = False

    @property
    def busy(self) -> bool:
        """True while a reply streams (until its last text is in the transcript)."""
        return self._streaming and self._task is not None and not self._task.done()

    def stop(self) -> None:
        """Cancel the streaming reply; its partial text stays in the transcript."""
        if self._task is not None and not self._task.done():
            if self._stream is not None:
                self._stream.close_reason = STOPPED_REASON
            self._task.cancel()

    def _start(self, settings: ChatSettings, body: dict[str, Any]) -> asyncio.Task[None]:
        self._last = (settings, body)
        index = self.transcript_view.add(
            ChatTurn(
                role="assistant",
                state="streaming",
                model=settings.model,
                protocol=settings.protocol,
            )
        )
        self._streaming = True
        self._task = self.spawn(self._run(settings, body, index), name="chat")
        self._task.add_done_callback(lambda _t: self._after())
        self._revalidate()
        self.transcript_view.flush()  # the new turns go with the caller's message, not later
        return self._task

    def _ended(self) -> None:
        """The reply is over: the buttons follow in the transcript's next (throttled) message,
        so the end of a stream costs no extra comm message."""
        self._streaming = False
        self._stream = None
        self._controls_dirty = True

    def _after(self) -> None:
        if self._streaming:  # cancelled before it started: nothing ended it
            self._ended()
            self.transcript_view.flush()
        self.session.used()  # a classroom's "left" line follows each turn

    def _sync_controls(self) -> None:
        """Called inside each transcript push: refresh the buttons once a reply ended."""
        if self._controls_dirty:
            self._controls_dirty = False
            self._revalidate()

    async def _run(self, settings: ChatSettings, body: dict[str, Any], index: int) -> None:
        from mediagen_nb.client import StreamInterruptedError

        view = self.transcript_view
        stream: Any = None
        reply = Reply()

        def end(state: str, **extra: Any) -> None:
            self._ended()
            view.finish(
                index,
                text=reply.text,
                thinking=reply.thinking,
                signature=reply.signature,
                tool_calls=reply.tool_calls,
                state=state,
                turn_id=getattr(stream, "turn_id", None),
                **extra,
            )

        try:
            client = self.session.client
            if settings.protocol == "chat_completions":
                stream = await client.chat.completions.create(
                    **body, stream=True, stream_options={"include_usage": True}
                )
            else:
                stream = await client.messages.create(**body, stream=True)
            self._stream = stream
            async for update in stream.events():
                reply.feed(update)
                view.stream(reply.text, reply.thinking, reply.tool_calls)
            end("complete", usage=reply.usage)
        except asyncio.CancelledError:
            if stream is not None:
                await stream.aclose()
            end("stopped")
            await view.drain()
            raise
        except StreamInterruptedError as exc:
            if len(exc.partial_text) > len(reply.text):
                reply.text = exc.partial_text
            end("error", error=exc.reason)
        except Exception as exc:  # shown on the turn itself (a failed request, a refused key)
            end("error", error=describe_error(exc))
        await view.drain()
