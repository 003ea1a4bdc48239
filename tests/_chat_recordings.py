"""Recorded SSE bodies of the two chat protocols, shaped as the real services send them.

Each is the raw bytes of a response body. They exercise what stream reassembly must get right:
tool-call fragments merged by index (two parallel calls, the name and id only in the first
fragment), several choices interleaved, a usage-only final chunk; thinking then signature,
text, and a tool_use block whose input arrives in JSON fragments, usage overwritten by
message_delta.
"""

from __future__ import annotations

import json
from typing import Any


def sse(*payloads: Any) -> bytes:
    """``data:`` events (chat-completions style), ending with ``[DONE]``."""
    body = b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in payloads)
    return body + b"data: [DONE]\n\n"


def named(*payloads: dict[str, Any]) -> bytes:
    """``event:`` + ``data:`` pairs (messages style); the event name is the payload type."""
    return b"".join(
        b"event: " + p["type"].encode() + b"\ndata: " + json.dumps(p).encode() + b"\n\n"
        for p in payloads
    )


def _chunk(choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-rec1",
        "object": "chat.completion.chunk",
        "created": 1_750_000_000,
        "model": "gpt-5.4",
        "system_fingerprint": "fp_rec",
        "choices": choices,
        **extra,
    }


def _call(index: int, **fields: Any) -> dict[str, Any]:
    return {
        "index": 0,
        "delta": {"tool_calls": [{"index": index, **fields}]},
        "finish_reason": None,
    }


CHAT_TOOL_CALLS = sse(
    _chunk(
        [
            {
                "index": 0,
                "delta": {"role": "assistant", "content": None, "refusal": None},
                "finish_reason": None,
            }
        ],
        usage=None,
    ),
    _chunk(
        [
            _call(
                0,
                id="call_weather1",
                type="function",
                function={"name": "get_weather", "arguments": ""},
            )
        ],
        usage=None,
    ),
    _chunk([_call(0, function={"arguments": '{"city"'})], usage=None),
    _chunk([_call(0, function={"arguments": ': "Paris", "unit": "c'})], usage=None),
    _chunk([_call(0, function={"arguments": 'elsius"}'})], usage=None),
    _chunk(
        [
            _call(
                1, id="call_time2", type="function", function={"name": "get_time", "arguments": ""}
            )
        ],
        usage=None,
    ),
    _chunk([_call(1, function={"arguments": '{"zone": "Europe/Paris"}'})], usage=None),
    _chunk([{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], usage=None),
    _chunk([], usage={"prompt_tokens": 61, "completion_tokens": 34, "total_tokens": 95}),
)
"""Two parallel tool calls, arguments in fragments, include_usage on."""

CHAT_TWO_CHOICES = sse(
    _chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]),
    _chunk([{"index": 1, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]),
    _chunk([{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]),
    _chunk([{"index": 1, "delta": {"content": "Hi"}, "finish_reason": None}]),
    _chunk([{"index": 1, "delta": {"content": " there"}, "finish_reason": None}]),
    _chunk([{"index": 0, "delta": {"content": " world"}, "finish_reason": None}]),
    _chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}]),
    _chunk([{"index": 1, "delta": {}, "finish_reason": "stop"}]),
)
"""``n`` = 2: two choices' deltas interleaved, each with its own finish reason."""


def _block_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


MESSAGES_THINKING_TOOL_USE = named(
    {
        "type": "message_start",
        "message": {
            "id": "msg_rec1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4-6",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 472, "output_tokens": 2},
        },
    },
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    _block_delta(0, {"type": "thinking_delta", "thinking": "The user wants the weather"}),
    _block_delta(0, {"type": "thinking_delta", "thinking": " in Paris; I should call the tool."}),
    _block_delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}),
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "ping"},
    _block_delta(1, {"type": "text_delta", "text": "Let me check"}),
    _block_delta(1, {"type": "text_delta", "text": " the weather."}),
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {
            "type": "tool_use",
            "id": "toolu_rec1",
            "name": "get_weather",
            "input": {},
        },
    },
    _block_delta(2, {"type": "input_json_delta", "partial_json": ""}),
    _block_delta(2, {"type": "input_json_delta", "partial_json": '{"city": "Pa'}),
    _block_delta(2, {"type": "input_json_delta", "partial_json": 'ris", "days": [1, 2]}'}),
    {"type": "content_block_stop", "index": 2},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"input_tokens": 472, "output_tokens": 89},
    },
    {"type": "message_stop"},
)
"""Thinking (with signature), text, then a tool_use block with fragmented input."""
