"""Streamed chat replies: typed chunks/events while they arrive, the assembled reply after."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import httpx2
from pydantic import BaseModel, ValidationError

from mediagen_nb.types import (
    ChatCompletion,
    ChatCompletionChunk,
    CompletionUsage,
    Message,
    MessageUsage,
    StreamEvent,
    StreamUpdate,
    TextEvent,
)

from ._assemble import ChatAccumulator, MessageAccumulator, done
from ._exceptions import StreamInterruptedError
from ._parse import first_problem
from ._sse import ServerSentEvent, SSEDecoder, aiter_sse

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
DONE = "[DONE]"

OnComplete = Callable[["BaseStream[Any]"], None]
OnIncomplete = Callable[["BaseStream[Any]", str], None]


def _error_text(payload: Any) -> str | None:
    if isinstance(payload, dict) and payload.get("error") is not None:
        err = payload["error"]
        if isinstance(err, dict):
            return str(err.get("message") or err.get("type") or err)
        return str(err)
    return None


class BaseStream(Generic[T]):
    """An SSE response turned into typed items; iterate once, then read the assembled reply.

    Read it one way, once: ``async for item in stream`` (the raw chunks or events),
    ``async for update in stream.events()`` (the stream helper:
    ``TextEvent``, ``ThinkingEvent``, ``ToolInputEvent`` and
    ``ToolCallEvent`` as they arrive, then a ``DoneEvent`` with the whole reply and its
    usage), or ``async for piece in stream.text_stream`` (just the answer text). A stream
    that ends without its terminator, breaks at the transport level or carries an
    ``error`` event raises ``StreamInterruptedError`` with the text received so far.

    Example:
        ```python
        stream = await client.chat.completions.create(model=m, messages=turns, stream=True)
        async for piece in stream.text_stream:
            print(piece, end="")
        ```

    Args:
        response: The open streamed HTTP response. The client builds streams: use
            ``stream=True`` or ``.stream(...)`` on ``chat.completions`` or ``messages``.
        on_complete: Called once with the stream when it ends after its terminator (the
            client records the finished turn with it).
        on_incomplete: Called once with the stream and the reason when it ends without
            its terminator (cut, closed early or cancelled).
    """

    def __init__(
        self,
        response: httpx2.Response,
        *,
        on_complete: OnComplete | None = None,
        on_incomplete: OnIncomplete | None = None,
    ) -> None:
        self.response = response
        self.text = ""
        """All text received so far (the whole reply once the stream is done)."""
        self.done = False
        """True once the terminator was seen."""
        self.error: StreamInterruptedError | None = None
        self.id: str | None = None
        self.model: str | None = None
        self.turn_id: str | None = None
        """Ledger key of this chat turn (set by the client)."""
        self.keepalives = 0
        """Comment lines (keep-alives) seen."""
        self._decoder = SSEDecoder()
        self._iterator: AsyncIterator[T] | None = None
        self._on_complete = on_complete
        self._on_incomplete = on_incomplete
        self._finished = False
        self.close_reason = "closed before the end"
        """What the history records for an unfinished reply its consumer closed or cancelled;
        set it first to say why (e.g. "stopped by the user")."""
        self._updates: list[StreamUpdate] = []
        self._emit = False
        """True once ``events()`` runs: only then are updates built and kept."""

    def _handle(self, event: ServerSentEvent) -> T | None:
        """Turn one event into an item (None: nothing to yield); set ``done`` at the end."""
        raise NotImplementedError

    def __aiter__(self) -> AsyncIterator[T]:
        if self._iterator is None:
            self._iterator = self._iterate()
        return self._iterator

    async def _iterate(self) -> AsyncIterator[T]:
        try:
            try:
                async for event in aiter_sse(self.response.aiter_bytes(), self._decoder):
                    if self.done:
                        # Read the body to its end (as the official SDKs do): only a fully
                        # read response returns its connection to the pool for reuse.
                        continue
                    self.keepalives = self._decoder.comments
                    item = self._handle(event)
                    if item is not None:
                        yield item
            except httpx2.TransportError as exc:
                if not self.done:  # after the terminator the reply is whole: only reuse is lost
                    self._interrupt(f"connection broke ({type(exc).__name__})", exc)
            except StreamInterruptedError as exc:
                self._interrupt(exc.reason, exc)
            if not self.done:
                self._interrupt("the stream ended without its terminator", None)
        finally:
            # Also runs when the consumer stops early (the generator is closed).
            await self.response.aclose()
            self._finish()

    def _interrupt(self, reason: str, cause: BaseException | None) -> None:
        self.error = StreamInterruptedError(self.text, reason)
        raise self.error from cause

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        try:
            if self.done and self._on_complete is not None:
                self._on_complete(self)
            elif not self.done and self._on_incomplete is not None:
                reason = self.error.reason if self.error is not None else self.close_reason
                self._on_incomplete(self, reason)
        except Exception:  # callbacks only record; they must never break the stream
            pass

    async def _final(self) -> ChatCompletion | Message:
        raise NotImplementedError

    async def events(self) -> AsyncIterator[StreamUpdate]:
        """The stream helper: text, thinking and tool-call updates as they arrive, then
        a ``DoneEvent`` with the whole reply and its usage.

        Yields:
            ``TextEvent``, ``ThinkingEvent``, ``ToolInputEvent`` and ``ToolCallEvent``
            updates, and a final ``DoneEvent``.

        Raises:
            StreamInterruptedError: The stream broke; ``partial_text`` holds what came.
        """
        self._emit = True
        async for _item in self:
            updates, self._updates = self._updates, []
            for update in updates:
                yield update
        yield done(await self._final())

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """Only the answer text (choice 0) as it arrives."""
        return self._text_pieces()

    async def _text_pieces(self) -> AsyncIterator[str]:
        async for update in self.events():
            if isinstance(update, TextEvent) and update.choice == 0:
                yield update.text

    async def until_done(self) -> Self:
        """Read the rest of the stream.

        Returns:
            This stream, now done.

        Raises:
            StreamInterruptedError: The stream broke before its end.
        """
        async for _item in self:
            pass
        return self

    async def aclose(self) -> None:
        """Stop reading and close the connection (recorded as incomplete if not done)."""
        if self._iterator is not None and hasattr(self._iterator, "aclose"):
            await self._iterator.aclose()
        await self.response.aclose()
        self._finish()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _json(self, event: ServerSentEvent) -> Any:
        try:
            payload = json.loads(event.data)
        except (ValueError, RecursionError):
            raise StreamInterruptedError(
                self.text, f"event is not JSON: {event.data[:80]!r}"
            ) from None
        error = _error_text(payload)
        if error is not None:
            raise StreamInterruptedError(self.text, f"the service sent an error: {error}")
        return payload

    def _typed(self, model: type[M], payload: Any) -> M:
        """An event as ``model``; a wrong shape ends the stream (``StreamInterruptedError``)."""
        try:
            return model.model_validate(payload)
        except ValidationError as exc:
            reason = f"event is not a valid {model.__name__} ({first_problem(exc)})"
        raise StreamInterruptedError(self.text, reason)


class ChatCompletionStream(BaseStream[ChatCompletionChunk]):
    """Streamed ``/v1/chat/completions``: yields ``ChatCompletionChunk`` items.

    It ends at ``data: [DONE]``; ``text``, ``finish_reason`` and ``usage`` fill in as the
    chunks come, and ``get_final_completion`` rebuilds the whole reply.

    Args:
        response: The open streamed HTTP response (the client builds streams).
        **kwargs: ``on_complete`` and ``on_incomplete``, as for ``BaseStream``.
    """

    def __init__(self, response: httpx2.Response, **kwargs: Any) -> None:
        super().__init__(response, **kwargs)
        self.finish_reason: str | None = None
        """Finish reason of choice 0: ``stop``, ``length`` or ``tool_calls``."""
        self.usage: CompletionUsage | None = None
        """Set by the final chunk when ``stream_options.include_usage`` is true."""
        self.created: int | None = None
        self.accumulator = ChatAccumulator()
        """Every choice, tool call included, merged so far (``accumulator.final()``)."""

    def _handle(self, event: ServerSentEvent) -> ChatCompletionChunk | None:
        if event.data.strip() == DONE:
            self.done = True
            return None
        payload = self._json(event)
        chunk = self._typed(ChatCompletionChunk, payload)
        if isinstance(payload, dict):
            self.accumulator.emit = self._emit
            updates = self.accumulator.feed(payload)
            if self._emit:
                self._updates.extend(updates)
        self.id = self.id or chunk.id
        self.model = self.model or chunk.model
        self.created = self.created or chunk.created
        self.text = self.accumulator.text(0)
        self.finish_reason = self.accumulator.finish_reason(0)
        if chunk.usage is not None:
            self.usage = chunk.usage
        return chunk

    async def _final(self) -> ChatCompletion:
        return self.accumulator.final()

    async def get_final_completion(self) -> ChatCompletion:
        """Read the rest of the stream and return the whole reply.

        Returns:
            One ``ChatCompletion`` (all choices, tool calls, usage), as the ``openai``
            SDK's stream state rebuilds it.

        Raises:
            StreamInterruptedError: The stream broke before its end.
        """
        await self.until_done()
        return self.accumulator.final()


class MessageStream(BaseStream[StreamEvent]):
    """Streamed ``/v1/messages``: yields Claude-style ``StreamEvent`` items.

    Events are ``message_start``, ``content_block_start``, ``content_block_delta``,
    ``content_block_stop``, ``message_delta``, ``message_stop`` (the end) and ``ping``;
    ``text``, ``thinking``, ``stop_reason`` and ``usage`` fill in as they come, and
    ``get_final_message`` rebuilds the whole reply.

    Args:
        response: The open streamed HTTP response (the client builds streams).
        **kwargs: ``on_complete`` and ``on_incomplete``, as for ``BaseStream``.
    """

    def __init__(self, response: httpx2.Response, **kwargs: Any) -> None:
        super().__init__(response, **kwargs)
        self.stop_reason: str | None = None
        """``end_turn``, ``max_tokens``, ``stop_sequence`` or ``tool_use``."""
        self.usage = MessageUsage()
        self.thinking = ""
        """All thinking text received so far."""
        self.accumulator = MessageAccumulator()
        """The message with every block (thinking, text, tool_use) merged so far."""

    def _handle(self, event: ServerSentEvent) -> StreamEvent | None:
        payload = self._json(event)
        if isinstance(payload, dict) and "type" not in payload:
            payload = {**payload, "type": event.event}
        item = self._typed(StreamEvent, payload)
        if isinstance(payload, dict):
            self.accumulator.emit = self._emit
            updates = self.accumulator.feed(payload)
            if self._emit:
                self._updates.extend(updates)
        self.thinking += item.thinking
        self._apply(item)
        return item

    def _apply(self, item: StreamEvent) -> None:
        """What one event changes: id and model, text, stop reason, usage, the end."""
        if item.type == "message_start" and item.message:
            self.id = item.message.get("id")
            self.model = item.message.get("model")
            self._usage_from(item.message.get("usage"))
        elif item.type == "content_block_start" and item.content_block:
            start_text = item.content_block.get("text")
            self.text += start_text if isinstance(start_text, str) else ""
        elif item.type == "content_block_delta":
            self.text += item.text
        elif item.type == "message_delta":
            if item.delta and item.delta.get("stop_reason"):
                self.stop_reason = str(item.delta["stop_reason"])
            self._usage_from(item.usage)
        elif item.type == "message_stop":
            self.done = True
        elif item.type == "error":
            raise StreamInterruptedError(self.text, f"the service sent an error: {item}")

    def _usage_from(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        for name in ("input_tokens", "output_tokens"):
            value = usage.get(name)
            if isinstance(value, int):
                setattr(self.usage, name, value)

    async def _final(self) -> Message:
        return self.accumulator.final()

    async def get_final_message(self) -> Message:
        """Read the rest of the stream and return the whole reply.

        Returns:
            One ``Message`` (thinking, text and tool_use blocks, usage), as the
            ``anthropic`` SDK's ``accumulate_event`` rebuilds it.

        Raises:
            StreamInterruptedError: The stream broke before its end.
        """
        await self.until_done()
        return self.accumulator.final()
