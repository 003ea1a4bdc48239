"""Chat-completions on the wire: the JSON body and the SSE chunks of one or more replies.

Shapes as OpenAI's (checked against its OpenAPI schema by ``tests/test_emulator_openapi.py``);
the chunk order is described in ``docs/reference/design.md``.
"""

from __future__ import annotations

from typing import Any, Final

from mediagen_nb._serverkit.errors import dumps
from mediagen_nb.emulator._chat_reply import PlannedReply
from mediagen_nb.emulator._logprobs import logprobs_for
from mediagen_nb.emulator._textgen import split_deltas

CHAT_FINISH: Final = {
    "end": "stop",
    "stop": "stop",
    "length": "length",
    "tool": "tool_calls",
    "refusal": "content_filter",
}

Item = tuple[bytes, bool]
"""One SSE event and whether it is a paced delta (the stream-cut fault counts those)."""


def usage_of(replies: list[PlannedReply]) -> dict[str, int]:
    """OpenAI usage of all choices (the prompt is counted once)."""
    completion = sum(r.completion_tokens for r in replies)
    prompt = replies[0].prompt_tokens if replies else 0
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _message(reply: PlannedReply) -> dict[str, Any]:
    if not reply.calls:
        return {"role": "assistant", "content": reply.text, "refusal": None}
    return {
        "role": "assistant",
        "content": reply.text or None,
        "refusal": None,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.json}}
            for c in reply.calls
        ],
    }


def _logprobs(text: str, top: int | None) -> dict[str, Any] | None:
    if top is None:
        return None
    return {"content": logprobs_for(text, top), "refusal": None}


def chat_body(
    replies: list[PlannedReply],
    *,
    request_id: str,
    created: int,
    model: str,
    top_logprobs: int | None = None,
) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` object (``top_logprobs`` None: no logprobs)."""
    return {
        "id": request_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": i,
                "message": _message(r),
                "logprobs": _logprobs(r.text, top_logprobs),
                "finish_reason": CHAT_FINISH[r.finish],
            }
            for i, r in enumerate(replies)
        ],
        "usage": usage_of(replies),
    }


def _deltas(reply: PlannedReply, seed: int) -> list[dict[str, Any]]:
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


class _Chunks:
    """Writes the chunks of one streamed completion: each choice's deltas with the logprobs
    of the tokens that start inside them."""

    def __init__(
        self,
        replies: list[PlannedReply],
        *,
        request_id: str,
        created: int,
        model: str,
        include_usage: bool,
        top_logprobs: int | None,
    ) -> None:
        self.head = {
            "id": request_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
        }
        self.include_usage = include_usage
        self.tokens = [_logprobs(r.text, top_logprobs) for r in replies]
        self.sent = [0] * len(replies)  # characters of text sent so far, per choice
        self.next = [0] * len(replies)  # the first logprobs entry not sent yet, per choice
        self.start = [0] * len(replies)  # where that entry's token starts in the text

    def chunk(self, choices: list[dict[str, Any]], usage: Any = None) -> bytes:
        payload: dict[str, Any] = {**self.head, "choices": choices}
        if self.include_usage:
            payload["usage"] = usage
        return b"data: " + dumps(payload) + b"\n\n"

    def one(self, index: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        text = delta.get("content") or ""
        logprobs: dict[str, Any] | None = None
        whole = self.tokens[index]
        if text and whole is not None:
            # the tokens that start inside this delta (a token's leading space may not);
            # deltas are consecutive, so the walk goes on where the last one stopped
            entries, first = whole["content"], self.next[index]
            last, start, end = first, self.start[index], self.sent[index] + len(text)
            while last < len(entries) and start < end:
                start += len(entries[last]["token"])
                last += 1
            self.next[index], self.start[index] = last, start
            logprobs = {"content": entries[first:last], "refusal": None}
        self.sent[index] += len(text)
        choice = {"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
        return self.chunk([choice])


def chat_items(
    replies: list[PlannedReply],
    *,
    request_id: str,
    created: int,
    model: str,
    include_usage: bool,
    seed: int,
    top_logprobs: int | None = None,
) -> list[Item]:
    """Every SSE event of the streamed reply, ``[DONE]`` included, in order."""
    out = _Chunks(
        replies,
        request_id=request_id,
        created=created,
        model=model,
        include_usage=include_usage,
        top_logprobs=top_logprobs,
    )
    items: list[Item] = []
    for index, reply in enumerate(replies):
        role: dict[str, Any] = {"role": "assistant", "content": None if reply.calls else ""}
        items.append((out.one(index, role), False))
    streams = [_deltas(r, seed + 7919 * i) for i, r in enumerate(replies)]
    for step in range(max((len(s) for s in streams), default=0)):
        for index, deltas in enumerate(streams):
            if step < len(deltas):
                items.append((out.one(index, deltas[step]), True))
    for index, reply in enumerate(replies):
        items.append((out.one(index, {}, CHAT_FINISH[reply.finish]), False))
    if include_usage:
        items.append((out.chunk([], usage_of(replies)), False))
    items.append((b"data: [DONE]\n\n", False))
    return items
