"""Text resources: ``chat.completions.create`` (OpenAI-style) and ``messages.create``
(Anthropic-style), each plain or streamed, each recorded as a chat turn.

A turn is recorded as ``started`` (request body) before sending, then ``completed`` (text,
usage, finish/stop reason), ``incomplete`` (partial text and reason, for a cut or abandoned
stream) or ``failed`` (the error, when no reply arrived).
"""

from __future__ import annotations

from typing import Any, Literal, overload

from mediagen_nb.types import ChatCompletion, Message

from ._context import ClientContext
from ._recording import new_turn_id
from ._streams import BaseStream, ChatCompletionStream, MessageStream

CHAT_PATH = "/v1/chat/completions"
MESSAGES_PATH = "/v1/messages"


def _usage(stream: BaseStream[Any]) -> dict[str, Any] | None:
    usage = getattr(stream, "usage", None)
    return usage.model_dump(mode="json") if usage is not None else None


class _TextResource:
    def __init__(self, context: ClientContext) -> None:
        self._ctx = context

    def _started(self, turn_id: str, path: str, body: dict[str, Any]) -> None:
        self._ctx.recorder.event(
            "chat",
            "started",
            turn_id,
            model=str(body.get("model")),
            service=self._ctx.core.settings.text_base_url,
            endpoint=path,
            request=body,
        )

    def _callbacks(self, turn_id: str, model: str) -> dict[str, Any]:
        recorder = self._ctx.recorder

        def completed(stream: BaseStream[Any]) -> None:
            recorder.event(
                "chat",
                "completed",
                turn_id,
                model=model,
                text=stream.text,
                usage=_usage(stream),
                finish_reason=getattr(stream, "finish_reason", None)
                or getattr(stream, "stop_reason", None),
                stream=True,
            )

        def incomplete(stream: BaseStream[Any], reason: str) -> None:
            recorder.event(
                "chat", "incomplete", turn_id, model=model, text=stream.text, error=reason
            )

        return {"on_complete": completed, "on_incomplete": incomplete}

    async def _send(self, path: str, body: dict[str, Any], stream: bool) -> Any:
        self._ctx.check(path, body)
        turn_id = new_turn_id()
        model = str(body.get("model"))
        self._started(turn_id, path, body)
        try:
            if stream:
                response = await self._ctx.core.open_stream("text", path, body)
            else:
                data, _response = await self._ctx.core.request("POST", "text", path, body)
        except Exception as exc:
            self._ctx.recorder.event("chat", "failed", turn_id, model=model, error=str(exc))
            raise
        if stream:
            cls = ChatCompletionStream if path == CHAT_PATH else MessageStream
            result: BaseStream[Any] = cls(response, **self._callbacks(turn_id, model))
            result.turn_id = turn_id
            return result
        reply = ChatCompletion if path == CHAT_PATH else Message
        parsed = reply.model_validate(data)
        self._ctx.recorder.event(
            "chat",
            "completed",
            turn_id,
            model=model,
            text=parsed.text,
            usage=parsed.usage.model_dump(mode="json") if parsed.usage else None,
            finish_reason=parsed.choices[0].finish_reason
            if isinstance(parsed, ChatCompletion) and parsed.choices
            else getattr(parsed, "stop_reason", None),
            stream=False,
        )
        return parsed


class Completions(_TextResource):
    """``POST {text_base_url}/v1/chat/completions``."""

    @overload
    async def create(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        stream: Literal[False] = False,
        **params: Any,
    ) -> ChatCompletion: ...

    @overload
    async def create(
        self, *, model: str, messages: list[dict[str, Any]], stream: Literal[True], **params: Any
    ) -> ChatCompletionStream: ...

    async def create(
        self, *, model: str, messages: list[dict[str, Any]], stream: bool = False, **params: Any
    ) -> ChatCompletion | ChatCompletionStream:
        """Send a chat completion; ``stream=True`` returns a :class:`ChatCompletionStream`.

        ``params`` are the spec's optional fields (temperature, top_p, max_completion_tokens,
        stop, ...); the body is validated first (``RequestValidationError``, nothing sent).
        """
        body: dict[str, Any] = {"model": model, "messages": messages, **params}
        if stream:
            body["stream"] = True
        result: ChatCompletion | ChatCompletionStream = await self._send(CHAT_PATH, body, stream)
        return result


class Chat:
    """The ``chat`` namespace (holds ``completions``)."""

    def __init__(self, context: ClientContext) -> None:
        self.completions = Completions(context)


class Messages(_TextResource):
    """``POST {text_base_url}/v1/messages``."""

    @overload
    async def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: Literal[False] = False,
        **params: Any,
    ) -> Message: ...

    @overload
    async def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: Literal[True],
        **params: Any,
    ) -> MessageStream: ...

    async def create(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        stream: bool = False,
        **params: Any,
    ) -> Message | MessageStream:
        """Send a message; ``stream=True`` returns a :class:`MessageStream` of Claude events.

        ``params``: ``system``, ``temperature`` and other fields of the compatible protocol.
        """
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "messages": messages,
            **params,
        }
        if stream:
            body["stream"] = True
        result: Message | MessageStream = await self._send(MESSAGES_PATH, body, stream)
        return result
