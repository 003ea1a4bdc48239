"""Chat-completions on the wire: the JSON body and the SSE chunks of one or more replies.

Non-streamed: ``choices[i].message`` is ``{"role": "assistant", "content": text}``, or, with
tool calls, ``content`` null (no preamble text, as OpenAI models do) plus ``tool_calls:
[{"id", "type": "function", "function": {"name", "arguments": <JSON text>}}]`` and finish
reason ``tool_calls``. Streamed, per choice (chunks of the ``n`` choices interleaved, each
carrying its ``index``): a role chunk (``content`` "" or, with tool calls, null), text
deltas, or for each call a chunk with ``index``, ``id``, ``type`` and ``function.name`` (and
``arguments`` "") followed by argument fragments; then a chunk with the finish reason; then,
with ``stream_options.include_usage``, a usage chunk with empty ``choices`` (every earlier
chunk then carries ``usage: null``), and ``data: [DONE]``.
"""

from __future__ import annotations

from typing import Any, Final

from mediagen_nb.emulator._chat_reply import Reply
from mediagen_nb.emulator._errors import dumps
from mediagen_nb.emulator._textgen import split_deltas

CHAT_FINISH: Final = {"end": "stop", "stop": "stop", "length": "length", "tool": "tool_calls"}

Item = tuple[bytes, bool]
"""One SSE event and whether it is a paced delta (the stream-cut fault counts those)."""


def usage_of(replies: list[Reply]) -> dict[str, int]:
    """OpenAI usage of all choices (the prompt is counted once)."""
    completion = sum(r.completion_tokens for r in replies)
    prompt = replies[0].prompt_tokens if replies else 0
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _message(reply: Reply) -> dict[str, Any]:
    if not reply.calls:
        return {"role": "assistant", "content": reply.text}
    return {
        "role": "assistant",
        "content": reply.text or None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.json}}
            for c in reply.calls
        ],
    }


def chat_body(replies: list[Reply], *, request_id: str, created: int, model: str) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` object."""
    return {
        "id": request_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {"index": i, "message": _message(r), "finish_reason": CHAT_FINISH[r.finish]}
            for i, r in enumerate(replies)
        ],
        "usage": usage_of(replies),
    }


def _deltas(reply: Reply, seed: int) -> list[dict[str, Any]]:
    """The deltas of one choice after its role chunk."""
    out: list[dict[str, Any]] = []
    if reply.text:
        out.extend({"content": piece} for piece in split_deltas(reply.text, seed))
    for index, call in enumerate(reply.calls):
        out.append(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }
                ]
            }
        )
        out.extend(
            {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            for piece in split_deltas(call.json, seed + index + 1)
        )
    return out


def chat_items(
    replies: list[Reply],
    *,
    request_id: str,
    created: int,
    model: str,
    include_usage: bool,
    seed: int,
) -> list[Item]:
    """Every SSE event of the streamed reply, ``[DONE]`` included, in order."""

    def chunk(choices: list[dict[str, Any]], usage: Any = None) -> bytes:
        payload: dict[str, Any] = {
            "id": request_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": choices,
        }
        if include_usage:
            payload["usage"] = usage
        return b"data: " + dumps(payload) + b"\n\n"

    def one(index: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        return chunk([{"index": index, "delta": delta, "finish_reason": finish}])

    items: list[Item] = []
    for index, reply in enumerate(replies):
        role: dict[str, Any] = {"role": "assistant", "content": None if reply.calls else ""}
        items.append((one(index, role), False))
    streams = [_deltas(r, seed + 7919 * i) for i, r in enumerate(replies)]
    for step in range(max((len(s) for s in streams), default=0)):
        for index, deltas in enumerate(streams):
            if step < len(deltas):
                items.append((one(index, deltas[step]), True))
    for index, reply in enumerate(replies):
        items.append((one(index, {}, CHAT_FINISH[reply.finish]), False))
    if include_usage:
        items.append((chunk([], usage_of(replies)), False))
    items.append((b"data: [DONE]\n\n", False))
    return items
