"""The text gateway: ``POST /v1/chat/completions`` and ``POST /v1/messages``.

Mounted under ``/gateway``; answers follow the OpenAI and Anthropic wire formats closely
enough that the official SDKs work unchanged, streaming included.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Final, Protocol

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mediagen_nb._serverkit.errors import JSON_KEY, error_response, json_response
from mediagen_nb.emulator._chat_reply import build_reply, read_prompt
from mediagen_nb.emulator._chat_thinking import bad_signature
from mediagen_nb.emulator._chat_wire import Item, chat_body, chat_items
from mediagen_nb.emulator._logprobs import check_logprobs
from mediagen_nb.emulator._messages_wire import messages_body, messages_items
from mediagen_nb.emulator._schema_limits import SchemaLimitError, body_schema_problems
from mediagen_nb.emulator._textgen import (
    Conversation,
    chat_conversation,
    count_tokens,
    messages_conversation,
)
from mediagen_nb.types import ChatProtocol, Problem, validate_request
from mediagen_nb.types._problem import errors_only

__all__ = ["STREAM_DELTA_S", "TextState", "text_routes"]

STREAM_DELTA_S: Final = 0.04
"""Service seconds between two streamed deltas (divided by the emulator speed)."""

CHAT_PATH: Final = "/v1/chat/completions"
SSE_HEADERS: Final = {"cache-control": "no-cache", "x-accel-buffering": "no"}

_sleep = asyncio.sleep  # module-level so tests can record the pacing without waiting


class StreamFaults(Protocol):
    """The part of the fault injector the text routes use."""

    def should_cut_stream(self) -> bool:
        """Whether the stream being started stops mid-way."""
        ...

    def cut_point(self, length: int) -> int:
        """How many of ``length`` deltas are sent before the cut."""
        ...


class TextState(Protocol):
    """What the text routes read from ``app.state.emulator``."""

    speed: float
    text_rate: float | None

    @property
    def faults(self) -> StreamFaults:
        """Fault injector."""
        ...

    def now(self) -> float:
        """Emulator clock, Unix seconds."""
        ...

    def random_hex(self, nbytes: int) -> str:
        """Hex id material."""
        ...


def _state(request: Request) -> TextState:
    state: TextState = request.app.state.emulator
    return state


def _bad_request(problems: list[Problem], protocol: ChatProtocol) -> Response:
    return error_response(
        400,
        "; ".join(str(p) for p in problems),
        error_type="invalid_request_error",
        protocol=protocol,
        param=problems[0].field,
    )


async def _read_json(request: Request, protocol: ChatProtocol) -> dict[str, Any] | Response:
    """The body as a JSON object, or a 400 response saying what is wrong.

    The emulator middleware has usually parsed (and size-checked) it already.
    """
    if JSON_KEY in request.scope:
        body = request.scope[JSON_KEY]
    else:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError) as exc:
            return error_response(400, f"request body is not valid JSON: {exc}", protocol=protocol)
    if not isinstance(body, dict):
        return _bad_request([Problem("(body)", "must be a JSON object")], protocol)
    return body


def _stop_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for s in value if isinstance(s, str)]
    return []


async def _parse(
    request: Request, path: str, reader: Callable[[dict[str, Any]], Conversation]
) -> tuple[dict[str, Any], Conversation] | Response:
    protocol: ChatProtocol = "chat_completions" if path == CHAT_PATH else "messages"
    body = await _read_json(request, protocol)
    if isinstance(body, Response):
        return body
    problems = errors_only(validate_request(path, body)) or body_schema_problems(body)
    if problems:
        return _bad_request(problems, protocol)
    return body, reader(body)


# -- chat completions ------------------------------------------------------------------------


def _delta_text(value: Any) -> str:
    """The strings a delta carries (text, thinking, tool arguments), joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_delta_text(v) for k, v in value.items() if k not in ("type", "id", "role"))
    if isinstance(value, list):
        return " ".join(_delta_text(v) for v in value)
    return ""


def _pace(state: TextState, payload: bytes) -> float:
    """Seconds to wait before a paced delta: its tokens at ``text_rate``, else by speed."""
    rate = state.text_rate
    if not rate:
        return STREAM_DELTA_S / state.speed
    data = json.loads(payload.split(b"data: ", 1)[1])
    deltas = [c.get("delta") for c in data.get("choices") or []] or [data.get("delta")]
    return max(1, count_tokens(_delta_text(deltas))) / rate


async def _stream(state: TextState, items: list[Item]) -> Response:
    """Send ``items`` as SSE, pacing the deltas; an injected cut stops after some deltas."""
    deltas = sum(1 for _, paced in items if paced)
    send = deltas
    if state.faults.should_cut_stream():
        send = state.faults.cut_point(deltas)
    cut = send < deltas

    async def events() -> AsyncIterator[bytes]:
        sent = 0
        for payload, paced in items:
            if paced:
                if cut and sent >= send:
                    return  # injected stream cut: no terminator
                await _sleep(_pace(state, payload))
                sent += 1
            elif cut and sent >= send and sent > 0:
                return
            yield payload

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


async def chat_completions(request: Request) -> Response:
    """``POST /v1/chat/completions`` (JSON or SSE)."""
    parsed = await _parse(request, CHAT_PATH, chat_conversation)
    if isinstance(parsed, Response):
        return parsed
    body, conversation = parsed
    state = _state(request)
    limit = body.get("max_completion_tokens")
    if limit is None:
        limit = body.get("max_tokens")
    model = str(body["model"])
    request_id = "chatcmpl-" + state.random_hex(12)
    n_value = body.get("n")
    n = n_value if isinstance(n_value, int) else 1
    top = body.get("top_logprobs")
    top_logprobs = (top if isinstance(top, int) else 0) if body.get("logprobs") is True else None
    try:
        prompt = read_prompt(body, "chat_completions", conversation, model=model)
        replies = [
            build_reply(
                prompt,
                max_tokens=limit,
                stop=_stop_list(body.get("stop")),
                id_seed=request_id,
                choice=i,
            )
            for i in range(max(1, n))
        ]
        check_logprobs(replies, top_logprobs)
    except SchemaLimitError as exc:
        return _bad_request([Problem(exc.field, exc.rule)], "chat_completions")
    created = int(state.now())
    if body.get("stream") is not True:
        return json_response(
            chat_body(
                replies,
                request_id=request_id,
                created=created,
                model=model,
                top_logprobs=top_logprobs,
            )
        )
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    items = chat_items(
        replies,
        request_id=request_id,
        created=created,
        model=model,
        include_usage=include_usage,
        seed=int(request_id[-8:], 16),
        top_logprobs=top_logprobs,
    )
    return await _stream(state, items)


# -- messages --------------------------------------------------------------------------------


async def messages(request: Request) -> Response:
    """``POST /v1/messages`` (JSON or Claude-style SSE)."""
    parsed = await _parse(request, "/v1/messages", messages_conversation)
    if isinstance(parsed, Response):
        return parsed
    body, conversation = parsed
    bad = bad_signature(body)
    if bad is not None:
        return _bad_request([Problem(bad, "invalid signature in thinking block")], "messages")
    state = _state(request)
    model = str(body["model"])
    message_id = "msg_" + state.random_hex(12)
    try:
        reply = build_reply(
            read_prompt(body, "messages", conversation, model=model),
            max_tokens=int(body["max_tokens"]),
            stop=_stop_list(body.get("stop_sequences")),
            id_seed=message_id,
        )
    except SchemaLimitError as exc:
        return _bad_request([Problem(exc.field, exc.rule)], "messages")
    if body.get("stream") is not True:
        return json_response(messages_body(reply, message_id=message_id, model=model))
    items = messages_items(reply, message_id=message_id, model=model, seed=int(message_id[-8:], 16))
    return await _stream(state, items)


def text_routes() -> list[Route]:
    """The text gateway's routes, to mount under the text prefix (``/gateway``)."""
    return [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
    ]
