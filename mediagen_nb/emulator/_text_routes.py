"""The text gateway: ``POST /v1/chat/completions`` and ``POST /v1/messages``.

Mounted under the text prefix (``/gateway``). Answers come from ``_textgen`` and follow the
OpenAI and Anthropic wire formats closely enough that the official ``openai`` and
``anthropic`` packages work unchanged, streaming included. Decisions (the spec shows none):

- **Errors.** A body that breaks a rule of ``validate_request`` gets 400
  ``{"error": {"type": "invalid_request_error", "message": "field: rule; ...",
  "param": "<first field>"}}``; warnings never block. Two protocol aliases the request types
  model are checked by ``validate_request`` too: chat ``max_tokens`` (legacy alias of
  ``max_completion_tokens``, which wins when both are set) and messages ``stop_sequences``.
- **Non-streaming bodies** carry exactly the spec's fields (messages add ``stop_sequence``,
  the Anthropic field that names the matched stop sequence). Finish reasons: chat ``stop`` /
  ``length``; messages ``end_turn`` / ``max_tokens`` / ``stop_sequence``. One choice only
  (``n`` is ignored).
- **Chat streaming**: ``data: {chat.completion.chunk}`` events: a role chunk, content deltas
  of 2-4 tokens, a chunk with ``finish_reason``, a usage chunk (empty ``choices``) when
  ``stream_options.include_usage`` is true (then every chunk carries ``usage: null``), and
  ``data: [DONE]``.
- **Messages streaming**: ``event: NAME`` + ``data: {...}`` pairs exactly as Anthropic sends
  them: message_start, content_block_start, ping, content_block_delta (text_delta) ...,
  content_block_stop, message_delta (stop_reason, usage.output_tokens), message_stop.
- **Pacing**: ``STREAM_DELTA_S`` seconds between deltas, divided by the emulator speed, so a
  typical answer (~40 deltas) streams in about 1.5 s at speed 1. When the state's
  ``text_rate`` is set (tokens per wall-clock second; the demo emulator sets a human pace so
  a reply can be watched and stopped), each delta waits its token count over that rate
  instead, whatever the speed.
- **Stream cut fault**: when ``faults.should_cut_stream()`` says so, the body ends cleanly
  after ``faults.cut_point(n)`` deltas, without the terminator (no finish chunk, no
  ``[DONE]``; no message_delta / message_stop). Clients must treat that as incomplete.
- **Latency** faults and auth are the app middleware's job (category ``"text"``).

App state read from ``request.app.state.emulator`` (see ``TextState``): ``speed``,
``now()``, ``random_hex(n)``, ``faults.should_cut_stream()``, ``faults.cut_point(n)``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Final, Protocol

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mediagen_nb.emulator._errors import dumps, error_response, json_response
from mediagen_nb.emulator._middleware import JSON_KEY
from mediagen_nb.emulator._textgen import (
    Completion,
    Conversation,
    chat_conversation,
    count_tokens,
    generate,
    messages_conversation,
    split_deltas,
)
from mediagen_nb.types import Problem, errors_only, validate_request

__all__ = ["STREAM_DELTA_S", "TextState", "text_routes"]

STREAM_DELTA_S: Final = 0.04
"""Service seconds between two streamed deltas (divided by the emulator speed)."""

CHAT_FINISH: Final = {"end": "stop", "stop": "stop", "length": "length"}
MESSAGES_STOP: Final = {"end": "end_turn", "stop": "stop_sequence", "length": "max_tokens"}
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


def _bad_request(problems: list[Problem]) -> Response:
    body = {
        "error": {
            "type": "invalid_request_error",
            "message": "; ".join(str(p) for p in problems),
            "param": problems[0].field,
        }
    }
    return Response(dumps(body), status_code=400, media_type="application/json")


async def _read_json(request: Request) -> dict[str, Any] | Response:
    """The body as a JSON object, or a 400 response saying what is wrong.

    The emulator middleware has usually parsed (and size-checked) it already.
    """
    if JSON_KEY in request.scope:
        body = request.scope[JSON_KEY]
    else:
        try:
            body = json.loads(await request.body())
        except (ValueError, UnicodeDecodeError) as exc:
            return error_response(400, f"request body is not valid JSON: {exc}")
    if not isinstance(body, dict):
        return _bad_request([Problem("(body)", "must be a JSON object")])
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
    body = await _read_json(request)
    if isinstance(body, Response):
        return body
    problems = errors_only(validate_request(path, body))
    if problems:
        return _bad_request(problems)
    return body, reader(body)


def _deltas(state: TextState, completion: Completion, request_id: str) -> tuple[list[str], int]:
    """The text's deltas and how many to send (fewer when the stream is cut)."""
    deltas = split_deltas(completion.text, int(request_id[-8:], 16))
    send = len(deltas)
    if state.faults.should_cut_stream():
        send = state.faults.cut_point(len(deltas))
    return deltas, send


def _pace(state: TextState, piece: str) -> float:
    """Seconds to wait before sending ``piece``: its tokens at ``text_rate``, else by speed."""
    rate = state.text_rate
    if rate:
        return count_tokens(piece) / rate
    return STREAM_DELTA_S / state.speed


def _sse(payload: dict[str, Any]) -> bytes:
    return b"data: " + dumps(payload) + b"\n\n"


def _event(name: str, payload: dict[str, Any]) -> bytes:
    return b"event: " + name.encode("ascii") + b"\ndata: " + dumps(payload) + b"\n\n"


# -- chat completions ------------------------------------------------------------------------


async def chat_completions(request: Request) -> Response:
    """``POST /v1/chat/completions`` (JSON or SSE)."""
    parsed = await _parse(request, "/v1/chat/completions", chat_conversation)
    if isinstance(parsed, Response):
        return parsed
    body, conversation = parsed
    state = _state(request)
    limit = body.get("max_completion_tokens")
    if limit is None:
        limit = body.get("max_tokens")
    model = str(body["model"])
    completion = generate(
        model, conversation, body, max_tokens=limit, stop=_stop_list(body.get("stop"))
    )
    request_id = "chatcmpl-" + state.random_hex(12)
    created = int(state.now())
    usage = {
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "total_tokens": completion.total_tokens,
    }
    if body.get("stream") is not True:
        return json_response(
            {
                "id": request_id,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": completion.text},
                        "finish_reason": CHAT_FINISH[completion.finish],
                    }
                ],
                "usage": usage,
            }
        )
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    deltas, send = _deltas(state, completion, request_id)

    def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
        payload: dict[str, Any] = {
            "id": request_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if include_usage:
            payload["usage"] = None
        return _sse(payload)

    async def events() -> AsyncIterator[bytes]:
        yield chunk({"role": "assistant", "content": ""}, None)
        for piece in deltas[:send]:
            await _sleep(_pace(state, piece))
            yield chunk({"content": piece}, None)
        if send < len(deltas):
            return  # injected stream cut: no finish chunk, no [DONE]
        yield chunk({}, CHAT_FINISH[completion.finish])
        if include_usage:
            yield _sse(
                {
                    "id": request_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
        yield b"data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


# -- messages --------------------------------------------------------------------------------


async def messages(request: Request) -> Response:
    """``POST /v1/messages`` (JSON or Claude-style SSE)."""
    parsed = await _parse(request, "/v1/messages", messages_conversation)
    if isinstance(parsed, Response):
        return parsed
    body, conversation = parsed
    state = _state(request)
    model = str(body["model"])
    completion = generate(
        model,
        conversation,
        body,
        max_tokens=int(body["max_tokens"]),
        stop=_stop_list(body.get("stop_sequences")),
    )
    message_id = "msg_" + state.random_hex(12)
    stop_reason = MESSAGES_STOP[completion.finish]
    if body.get("stream") is not True:
        return json_response(
            {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": completion.text}],
                "model": model,
                "stop_reason": stop_reason,
                "stop_sequence": completion.stop_sequence,
                "usage": {
                    "input_tokens": completion.prompt_tokens,
                    "output_tokens": completion.completion_tokens,
                },
            }
        )
    deltas, send = _deltas(state, completion, message_id)
    start: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": completion.prompt_tokens, "output_tokens": 1},
    }

    async def events() -> AsyncIterator[bytes]:
        yield _event("message_start", {"type": "message_start", "message": start})
        yield _event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        yield _event("ping", {"type": "ping"})
        for piece in deltas[:send]:
            await _sleep(_pace(state, piece))
            yield _event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        if send < len(deltas):
            return  # injected stream cut: no block stop, no message_delta / message_stop
        yield _event("content_block_stop", {"type": "content_block_stop", "index": 0})
        yield _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": completion.stop_sequence},
                "usage": {"output_tokens": completion.completion_tokens},
            },
        )
        yield _event("message_stop", {"type": "message_stop"})

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


def text_routes() -> list[Route]:
    """The text gateway's routes, to mount under the text prefix (``/gateway``)."""
    return [
        Route("/v1/chat/completions", chat_completions, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
    ]
