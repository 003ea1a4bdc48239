"""Messages on the wire: the JSON body and the Claude-style SSE events of one reply.

Blocks and events in Anthropic's order (described in ``docs/reference/design.md``).
"""

from __future__ import annotations

from typing import Any, Final

from mediagen_nb._serverkit.errors import dumps
from mediagen_nb.emulator._chat_reply import PlannedReply
from mediagen_nb.emulator._chat_thinking import redacted_data
from mediagen_nb.emulator._chat_wire import Item
from mediagen_nb.emulator._textgen import split_deltas

MESSAGES_STOP: Final = {
    "end": "end_turn",
    "stop": "stop_sequence",
    "length": "max_tokens",
    "tool": "tool_use",
    "refusal": "refusal",
}


def _blocks(reply: PlannedReply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.thinking is not None and reply.redacted:
        blocks.append({"type": "redacted_thinking", "data": redacted_data(reply.thinking)})
    elif reply.thinking is not None:
        blocks.append(
            {"type": "thinking", "thinking": reply.thinking, "signature": reply.signature}
        )
    if reply.text or not reply.calls:
        blocks.append({"type": "text", "text": reply.text})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in reply.calls
    )
    return blocks


def messages_body(reply: PlannedReply, *, message_id: str, model: str) -> dict[str, Any]:
    """The non-streamed ``message`` object."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": _blocks(reply),
        "model": model,
        "stop_reason": MESSAGES_STOP[reply.finish],
        "stop_sequence": reply.stop_sequence,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }


def _event(name: str, payload: dict[str, Any]) -> bytes:
    return b"event: " + name.encode("ascii") + b"\ndata: " + dumps(payload) + b"\n\n"


def _delta(index: int, delta: dict[str, Any]) -> Item:
    payload = {"type": "content_block_delta", "index": index, "delta": delta}
    return _event("content_block_delta", payload), True


def _block_items(index: int, block: dict[str, Any], seed: int) -> list[Item]:
    kind = block["type"]
    start: dict[str, Any]
    if kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            _delta(index, {"type": "thinking_delta", "thinking": piece})
            for piece in split_deltas(block["thinking"], seed + 1)
        ]
        deltas.append(_delta(index, {"type": "signature_delta", "signature": block["signature"]}))
    elif kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [
            _delta(index, {"type": "text_delta", "text": piece})
            for piece in split_deltas(block["text"], seed)
        ]
    elif kind == "redacted_thinking":
        start, deltas = block, []  # sent whole: there is nothing to stream
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        text = dumps(block["input"]).decode("ascii")
        pieces = ["", *split_deltas(text, seed + 2 + index)]
        deltas = [
            _delta(index, {"type": "input_json_delta", "partial_json": piece}) for piece in pieces
        ]
    head = _event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    stop = _event("content_block_stop", {"type": "content_block_stop", "index": index})
    return [(head, False), *deltas, (stop, False)]


def messages_items(reply: PlannedReply, *, message_id: str, model: str, seed: int) -> list[Item]:
    """Every SSE event of the streamed reply, ``message_stop`` included, in order."""
    start: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": 1},
    }
    items: list[Item] = [
        (_event("message_start", {"type": "message_start", "message": start}), False)
    ]
    for index, block in enumerate(_blocks(reply)):
        block_items = _block_items(index, block, seed)
        items.append(block_items[0])
        if index == 0:
            items.append((_event("ping", {"type": "ping"}), False))
        items.extend(block_items[1:])
    final = {
        "type": "message_delta",
        "delta": {"stop_reason": MESSAGES_STOP[reply.finish], "stop_sequence": reply.stop_sequence},
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }
    items.append((_event("message_delta", final), False))
    items.append((_event("message_stop", {"type": "message_stop"}), False))
    return items
