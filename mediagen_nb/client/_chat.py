"""Text resources: ``chat.completions`` (OpenAI-style) and ``messages`` (Anthropic-style).

Each call is plain or streamed, validated first, retried as the SDKs do and recorded as a
chat turn; ``parse`` and ``run_tools`` add typed answers and tool loops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Sequence
from types import TracebackType
from typing import Any, Generic, Literal, TypeVar, overload

from pydantic import BaseModel

from mediagen_nb.types import ChatCompletion, Message

from ._chat_tools import (
    M,
    ToolRun,
    function_tool,
    json_schema_format,
    output_config,
    parsed_chat,
    parsed_message,
    tool_loop,
)
from ._context import ClientContext
from ._parse import parse_answer
from ._recording import new_turn_id
from ._streams import BaseStream, ChatCompletionStream, MessageStream

S = TypeVar("S", bound=BaseStream[Any])

CANCELLED = "cancelled before the answer came"
"""Error of a chat turn whose request was cancelled (its history row ends incomplete)."""
CHAT_PATH = "/v1/chat/completions"
MESSAGES_PATH = "/v1/messages"


class StreamManager(Generic[S]):
    """What ``.stream(...)`` returns: ``async with`` it, or ``await`` it, to get the stream.

    ``async with client.messages.stream(...) as stream:`` opens the request on entry and
    closes the connection on exit (an unfinished reply is recorded as incomplete).
    ``stream = await client.messages.stream(...)`` opens it too; then close it yourself
    (``await stream.aclose()``) if you stop reading early.

    Example:
        ```python
        async with client.chat.completions.stream(model="gpt-5.4", messages=turns) as s:
            async for piece in s.text_stream:
                print(piece, end="")
        ```

    Args:
        opener: Opens the request and returns the stream; the namespace's ``stream``
            method passes it. You do not build this yourself.
    """

    def __init__(self, opener: Callable[[], Awaitable[S]]) -> None:
        self._opener = opener
        self._stream: S | None = None

    def __await__(self) -> Generator[Any, None, S]:
        return self._opener().__await__()

    async def __aenter__(self) -> S:
        self._stream = await self._opener()
        return self._stream

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._stream is not None:
            await self._stream.aclose()


def _extras(reply: ChatCompletion | Message) -> dict[str, Any]:
    """What a turn holds besides text, for the ledger: tool calls and thinking, when present."""
    extras: dict[str, Any] = {}
    if isinstance(reply, ChatCompletion):
        calls = [
            {"id": c.id, "name": c.name, "arguments": c.function.arguments}
            for c in reply.tool_calls
        ]
    else:
        calls = [{"id": b.id, "name": b.name, "input": b.input} for b in reply.tool_uses]
        if reply.thinking:
            extras["thinking"] = reply.thinking
    if calls:
        extras["tool_calls"] = calls
    return extras


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
            accumulator = getattr(stream, "accumulator", None)
            extras = _extras(accumulator.final()) if accumulator is not None else {}
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
                **extras,
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
        core = self._ctx.core

        async def attempt() -> Any:
            if stream:
                return await core.open_stream("text", path, body, retry=False)
            return await core.request("POST", "text", path, body, retry=False)

        try:
            sent = await self._ctx.chat_retry.run(
                attempt, sleep=self._ctx.sleep, rng=self._ctx.rng, what=f"POST {path}"
            )
            if stream:
                response = sent
            else:
                data, answer = sent
        except asyncio.CancelledError:  # stopped (a sweep's Stop, an interrupted cell)
            self._ctx.recorder.event("chat", "incomplete", turn_id, model=model, error=CANCELLED)
            raise
        except Exception as exc:
            self._ctx.recorder.event("chat", "failed", turn_id, model=model, error=str(exc))
            raise
        if stream:
            cls = ChatCompletionStream if path == CHAT_PATH else MessageStream
            result: BaseStream[Any] = cls(response, **self._callbacks(turn_id, model))
            result.turn_id = turn_id
            return result
        parsed: ChatCompletion | Message
        if path == CHAT_PATH:
            parsed = parse_answer(ChatCompletion, data, answer)
        else:
            parsed = parse_answer(Message, data, answer)
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
            **_extras(parsed),
        )
        return parsed


class Completions(_TextResource):
    """``client.chat.completions``: the OpenAI-style ``POST /v1/chat/completions``.

    Every call is validated before sending, re-sent after a lost connection, 408, 409, 429
    or 5xx as the official SDKs do (at most ``chat_max_retries`` times; a stream only while
    opening), and recorded in the history as a chat turn.

    Args:
        context: The client's shared state. You do not build this: use
            ``client.chat.completions``.
    """

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
        """Send a chat completion (OpenAI-style); the body is validated first.

        The reply's ``tool_calls`` / ``message.to_param()`` continue a tool loop.

        Args:
            model: A text model of the catalog, e.g. ``gpt-5.4`` or ``claude-sonnet-4-6``.
            messages: The turns: ``system``, ``developer``, ``user``, ``assistant``
                (``content`` None + ``tool_calls``) and ``tool`` (``tool_call_id``).
            stream: Return a ``ChatCompletionStream`` of chunks instead of the reply.
            **params: The protocol's optional fields, sent unchanged once checked:
                ``temperature``, ``top_p`` (0..1), ``max_completion_tokens``, ``stop``,
                ``tools=[{"type": "function", "function": {"name", "description",
                "parameters": <JSON Schema>, "strict": bool}}]``, ``tool_choice="auto" |
                "none" | "required" | {"type": "function", "function": {"name": ...}}``,
                ``response_format={"type": "json_object"} | {"type": "json_schema",
                "json_schema": {"name", "schema", "strict"}}``, ``n`` (1-128),
                ``stream_options={"include_usage": True}`` (with ``stream`` only).
                Tool loop: append ``reply.message.to_param()``, then ``call.result(output)``
                for each of ``reply.tool_calls``, and send again (or use ``run_tools``).

        Returns:
            The completion, or the stream when ``stream=True``.

        Raises:
            RequestValidationError: The body breaks a rule (nothing sent).
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
        """
        body: dict[str, Any] = {"model": model, "messages": messages, **params}
        if stream:
            body["stream"] = True
        result: ChatCompletion | ChatCompletionStream = await self._send(CHAT_PATH, body, stream)
        return result

    def stream(
        self, *, model: str, messages: list[dict[str, Any]], **params: Any
    ) -> StreamManager[ChatCompletionStream]:
        """Open a streamed completion for the stream helper (``async with`` or ``await``).

        Asks for usage (``stream_options.include_usage``) unless ``stream_options`` is given,
        so the final ``DoneEvent`` carries token counts.

        Args:
            model: A text model of the catalog.
            messages: The turns, as for ``create``.
            **params: Other fields of ``create``.

        Returns:
            A manager: ``async with`` it (or ``await`` it) to get the
            ``ChatCompletionStream``; the request is sent then.
        """
        params.setdefault("stream_options", {"include_usage": True})

        async def opener() -> ChatCompletionStream:
            return await self.create(model=model, messages=messages, stream=True, **params)

        return StreamManager(opener)

    async def parse(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        response_format: type[M],
        **params: Any,
    ) -> ChatCompletion:
        """Ask for a typed answer: an instance of a pydantic model.

        Args:
            model: A text model of the catalog.
            messages: The turns, as for ``create``.
            response_format: The pydantic model; its JSON Schema is sent, strict.
            **params: Other fields of ``create``.

        Returns:
            The completion, with ``choices[i].message.parsed`` set to the instance (None
            for a choice that stopped at a tool call).

        Raises:
            pydantic.ValidationError: The answer is not valid JSON of the model.
            RequestValidationError: The body breaks a rule (nothing sent).
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
        """
        reply = await self.create(
            model=model,
            messages=messages,
            response_format=json_schema_format(response_format),
            **params,
        )
        return parsed_chat(reply, response_format)

    async def run_tools(
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
        """Call the Python functions ``tools`` until the model answers.

        A tool's JSON Schema comes from its type hints, its description from its
        docstring's first paragraph; a function that raises is reported to the model as
        the tool's (error) result.

        Args:
            model: A text model of the catalog.
            messages: The conversation so far.
            tools: Python functions (sync or async) the model may call.
            max_steps: The most requests to send.
            stream: Stream each request; ``on_text`` receives the text as it arrives.
            on_text: Called with each piece of streamed text.
            response_format: A pydantic model for a typed final answer, put in
                ``run.final.choices[0].message.parsed``.
            **params: Other fields of ``create``.

        Returns:
            The run: ``calls`` (each tool call and its result) and ``final`` (the answer).

        Raises:
            ToolLoopError: The model still called tools after ``max_steps`` requests.
        """
        offered = [function_tool(f) for f in tools]
        if response_format is not None:
            params["response_format"] = json_schema_format(response_format)
        params["tools"] = [t.chat_param() for t in offered]

        async def send(conversation: list[dict[str, Any]]) -> ChatCompletion:
            if not stream:
                return await self.create(model=model, messages=conversation, stream=False, **params)
            async with self.stream(model=model, messages=conversation, **params) as opened:
                async for piece in opened.text_stream:
                    if on_text is not None:
                        on_text(piece)
                final: ChatCompletion = await opened.get_final_completion()
                return final

        run = await tool_loop("chat_completions", send, messages, offered, max_steps)
        if response_format is not None:
            parsed_chat(run.final, response_format)
        return run


class Chat:
    """``client.chat``: holds ``completions`` (``client.chat.completions.create(...)``).

    Args:
        context: The client's shared state. You do not build this: use ``client.chat``.
    """

    def __init__(self, context: ClientContext) -> None:
        self.completions = Completions(context)


class Messages(_TextResource):
    """``client.messages``: the Anthropic-style ``POST /v1/messages``.

    Every call is validated before sending, re-sent after a lost connection, 408, 409, 429
    or 5xx as the official SDKs do (at most ``chat_max_retries`` times; a stream only while
    opening), and recorded in the history as a chat turn.

    Args:
        context: The client's shared state. You do not build this: use ``client.messages``.
    """

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
        """Send a message (Anthropic-style); the body is validated first.

        The reply's ``content`` is typed blocks (``TextBlock``, ``ThinkingBlock``,
        ``ToolUseBlock``...); ``reply.to_param()`` and ``block.result(output)`` continue a
        tool loop.

        Args:
            model: A text model of the catalog.
            max_tokens: The most tokens of the reply.
            messages: The ``user`` and ``assistant`` turns.
            stream: Return a ``MessageStream`` of events instead of the reply.
            **params: The protocol's other fields, sent unchanged once checked:
                ``system``, ``temperature`` (0..1), ``top_p``, ``stop_sequences``,
                ``tools=[{"name", "description", "input_schema": <JSON Schema>}]``,
                ``tool_choice={"type": "auto" | "any" | "none"} | {"type": "tool",
                "name": ...}``, ``thinking={"type": "enabled", "budget_tokens": N}``
                (1024 <= N < ``max_tokens``), ``output_config={"format": {"type":
                "json_schema", "schema": ...}}``. Tool loop: append ``reply.to_param()``,
                then ``tool_results_turn(*(b.result(output) for b in reply.tool_uses))``,
                and send again (or use ``run_tools``).

        Returns:
            The message, or the stream when ``stream=True``.

        Raises:
            RequestValidationError: The body breaks a rule (nothing sent).
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
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

    def stream(
        self, *, model: str, max_tokens: int, messages: list[dict[str, Any]], **params: Any
    ) -> StreamManager[MessageStream]:
        """Open a streamed message for the stream helper (``async with`` or ``await``).

        Args:
            model: A text model of the catalog.
            max_tokens: The most tokens of the reply.
            messages: The turns, as for ``create``.
            **params: Other fields of ``create``.

        Returns:
            A manager: ``async with`` it (or ``await`` it) to get the
            ``MessageStream``; the request is sent then.
        """

        async def opener() -> MessageStream:
            return await self.create(
                model=model, max_tokens=max_tokens, messages=messages, stream=True, **params
            )

        return StreamManager(opener)

    async def parse(
        self,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        output_format: type[M],
        **params: Any,
    ) -> Message:
        """Ask for a typed answer: an instance of a pydantic model.

        Args:
            model: A text model of the catalog.
            max_tokens: The most tokens of the reply.
            messages: The turns, as for ``create``.
            output_format: The pydantic model, sent as ``output_config``.
            **params: Other fields of ``create``.

        Returns:
            The message, with ``parsed_output`` set to the instance (None when the reply
            stopped at a tool call).

        Raises:
            pydantic.ValidationError: The answer is not valid JSON of the model.
            RequestValidationError: The body breaks a rule (nothing sent).
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
        """
        reply = await self.create(
            model=model,
            max_tokens=max_tokens,
            messages=messages,
            output_config=output_config(output_format),
            **params,
        )
        return parsed_message(reply, output_format)

    async def run_tools(
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
        """Call the Python functions ``tools`` until the model answers.

        Args:
            model: A text model of the catalog.
            max_tokens: The most tokens of each reply.
            messages: The conversation so far.
            tools: Python functions (sync or async) the model may call.
            max_steps: The most requests to send.
            stream: Stream each request; ``on_text`` receives the text as it arrives.
            on_text: Called with each piece of streamed text.
            output_format: A pydantic model for a typed final answer, put in
                ``run.final.parsed_output``.
            **params: Other fields of ``create``.

        Returns:
            The run: ``calls`` (each tool call and its result) and ``final`` (the answer).

        Raises:
            ToolLoopError: The model still called tools after ``max_steps`` requests.
        """
        offered = [function_tool(f) for f in tools]
        if output_format is not None:
            params["output_config"] = output_config(output_format)
        params["tools"] = [t.messages_param() for t in offered]

        async def send(conversation: list[dict[str, Any]]) -> Message:
            if not stream:
                return await self.create(
                    model=model,
                    max_tokens=max_tokens,
                    messages=conversation,
                    stream=False,
                    **params,
                )
            manager = self.stream(
                model=model, max_tokens=max_tokens, messages=conversation, **params
            )
            async with manager as opened:
                async for piece in opened.text_stream:
                    if on_text is not None:
                        on_text(piece)
                message: Message = await opened.get_final_message()
                return message

        run = await tool_loop("messages", send, messages, offered, max_steps)
        if output_format is not None:
            parsed_message(run.final, output_format)
        return run
