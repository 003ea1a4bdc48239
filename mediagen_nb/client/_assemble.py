"""Rebuild a whole chat reply from streamed chunks or events, as the official SDKs do.

See the design page, "Chat: turns, streams, tool loops".
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from mediagen_nb.types import (
    ChatCompletion,
    CompletionUsage,
    DoneEvent,
    Message,
    MessageUsage,
    StreamUpdate,
    TextEvent,
    ThinkingEvent,
    ToolCall,
    ToolCallEvent,
    ToolInputEvent,
    ToolUseBlock,
)


def accumulate_delta(acc: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Merge one chunk ``delta`` into the accumulated message (``openai``'s rules)."""
    for key, value in delta.items():
        if key not in acc or acc[key] is None:
            if not _indexed(value):
                acc[key] = value
                continue
            acc[key] = []
        acc[key] = value if key in ("index", "type") else _merged(acc[key], value)
    return acc


def _merged(current: Any, value: Any) -> Any:
    """``current`` with ``value`` added: text and numbers add, objects merge, lists extend."""
    both_text = isinstance(current, str) and isinstance(value, str)
    if both_text or (isinstance(current, int | float) and isinstance(value, int | float)):
        return current + value
    if isinstance(current, dict) and isinstance(value, dict):
        return accumulate_delta(current, value)
    if isinstance(current, list) and isinstance(value, list):
        return _merged_list(current, value)
    return current


def _merged_list(current: list[Any], value: list[Any]) -> list[Any]:
    """A list of scalars extends; a list of indexed entries merges entry by entry."""
    if all(isinstance(x, str | int | float) for x in current) and (current or not _indexed(value)):
        current.extend(value)
        return current
    for entry in value:
        if not isinstance(entry, dict) or not isinstance(entry.get("index"), int):
            raise ValueError(f"list delta entry without an integer index: {entry!r}")
        index = entry["index"]
        if index < len(current):
            current[index] = accumulate_delta(current[index], entry)
        else:
            current.insert(index, entry)
    return current


def _indexed(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(x, dict) and "index" in x for x in value)


class ChatAccumulator:
    """Chat-completion chunks in, the whole ``ChatCompletion`` out, as ``openai`` does."""

    def __init__(self) -> None:
        self.head: dict[str, Any] | None = None
        """Top-level fields of the first chunk (id, created, model, ...)."""
        self.choices: dict[int, dict[str, Any]] = {}
        """Per choice index: ``{"index", "message", "finish_reason", ...}`` accumulated."""
        self.usage: dict[str, Any] | None = None
        self.emit = True
        """False: only accumulate, build no updates (cheaper when nobody reads them)."""

    def feed(self, chunk: dict[str, Any]) -> list[StreamUpdate]:
        """Merge one chunk; return the text / tool updates it produced."""
        if self.head is None:
            self.head = {k: v for k, v in chunk.items() if k not in ("choices", "obfuscation")}
        updates: list[StreamUpdate] = []
        for choice in chunk.get("choices") or []:
            if isinstance(choice, dict):
                updates.extend(self._choice(choice))
        self.usage = chunk.get("usage")
        return updates

    def _choice(self, choice: dict[str, Any]) -> list[StreamUpdate]:
        index = int(choice.get("index") or 0)
        delta = choice.get("delta") or {}
        state = self.choices.get(index)
        content = delta.get("content")
        if state is not None and len(delta) == 1 and isinstance(content, str):
            # the common case, a text delta: what accumulate_delta does, without the walk
            message = state["message"]
            message["content"] = (message.get("content") or "") + content
            if choice.get("finish_reason"):
                state["finish_reason"] = choice["finish_reason"]
                return self._finished(state, index)
            return [TextEvent(content, message["content"], index)] if content and self.emit else []
        if state is None:
            state = {k: v for k, v in choice.items() if k != "delta"}
            state["message"] = accumulate_delta({}, dict(delta))
            self.choices[index] = state
        else:
            accumulate_delta(state["message"], dict(delta))
        if choice.get("finish_reason"):
            state["finish_reason"] = choice["finish_reason"]
        message = state["message"]
        updates: list[StreamUpdate] = []
        if isinstance(delta.get("content"), str) and delta["content"]:
            updates.append(TextEvent(delta["content"], message.get("content") or "", index))
        calls = message.get("tool_calls") or []
        for part in delta.get("tool_calls") or []:
            function = part.get("function") or {}
            fragment = function.get("arguments")
            position = part.get("index", 0)
            if isinstance(fragment, str) and fragment and position < len(calls):
                call_fn = calls[position].get("function") or {}
                updates.append(
                    ToolInputEvent(
                        position,
                        str(call_fn.get("name") or ""),
                        fragment,
                        str(call_fn.get("arguments") or ""),
                        index,
                    )
                )
        if choice.get("finish_reason"):
            updates.extend(self._finished(state, index))
        return updates

    @staticmethod
    def _finished(state: dict[str, Any], index: int) -> list[StreamUpdate]:
        calls = state["message"].get("tool_calls") or []
        return [
            ToolCallEvent(ToolCall.model_validate(c), index) for c in calls if isinstance(c, dict)
        ]

    def text(self, index: int = 0) -> str:
        """Text of one choice so far."""
        state = self.choices.get(index)
        return (state["message"].get("content") or "") if state else ""

    def finish_reason(self, index: int = 0) -> str | None:
        """Finish reason of one choice (None until its last chunk)."""
        state = self.choices.get(index)
        return state.get("finish_reason") if state else None

    def final(self) -> ChatCompletion:
        """The reassembled completion (``object`` ``chat.completion``, choices by index)."""
        choices = []
        for index in sorted(self.choices):
            state = dict(self.choices[index])
            message = {k: v for k, v in state["message"].items() if k != "role"}
            message["role"] = state["message"].get("role") or "assistant"
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    call.pop("index", None)
            state["message"] = message
            choices.append(state)
        return ChatCompletion.model_validate(
            {
                "id": "",
                **(self.head or {}),
                "object": "chat.completion",
                "choices": choices,
                "usage": self.usage,
            }
        )

    def final_usage(self) -> CompletionUsage | None:
        """The usage the stream reported (include_usage), else None."""
        return CompletionUsage.model_validate(self.usage) if self.usage else None


_DELTA_USAGE = (
    "output_tokens",
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


class MessageAccumulator:
    """Messages stream events in, the whole ``Message`` out, as ``anthropic`` does."""

    def __init__(self) -> None:
        self.snapshot: dict[str, Any] | None = None
        self._json: dict[int, str] = {}
        self._text = ""
        self.emit = True
        """False: only accumulate, build no updates (cheaper when nobody reads them)."""

    def feed(self, event: dict[str, Any]) -> list[StreamUpdate]:
        """Apply one event; return the text / thinking / tool updates it produced."""
        kind = event.get("type")
        if self.snapshot is None:
            if kind == "message_start" and isinstance(event.get("message"), dict):
                self.snapshot = json.loads(json.dumps(event["message"]))
                self.snapshot.setdefault("content", [])
            return []
        content: list[dict[str, Any]] = self.snapshot["content"]
        if kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            content.append(block)
            if block.get("type") == "text":
                self._text += str(block.get("text") or "")
        elif kind == "content_block_delta":
            return self._delta(content, int(event.get("index") or 0), event.get("delta") or {})
        elif kind == "content_block_stop":
            block = content[int(event.get("index") or 0)]
            if block.get("type") == "tool_use":
                return [ToolCallEvent(ToolUseBlock.model_validate(block))]
        elif kind == "message_delta":
            self._message_delta(event)
        return []

    def _delta(
        self, content: list[dict[str, Any]], index: int, delta: dict[str, Any]
    ) -> list[StreamUpdate]:
        block = content[index]
        kind = delta.get("type")
        if kind == "text_delta" and block.get("type") == "text":
            piece = str(delta.get("text") or "")
            block["text"] = (block.get("text") or "") + piece
            self._text += piece
            return [TextEvent(piece, self._text)] if self.emit else []
        if kind == "thinking_delta" and block.get("type") == "thinking":
            block["thinking"] = (block.get("thinking") or "") + str(delta.get("thinking") or "")
            return [ThinkingEvent(str(delta.get("thinking") or ""), block["thinking"])]
        if kind == "signature_delta" and block.get("type") == "thinking":
            block["signature"] = delta.get("signature")
        elif kind == "input_json_delta" and block.get("type") == "tool_use":
            fragment = str(delta.get("partial_json") or "")
            buffer = self._json.get(index, "") + fragment
            self._json[index] = buffer
            if buffer:
                # incomplete so far: the SDK keeps a partial object, we keep the last whole one
                with contextlib.suppress(ValueError):
                    block["input"] = json.loads(buffer)
            if fragment:
                return [ToolInputEvent(index, str(block.get("name") or ""), fragment, buffer)]
        return []

    def _message_delta(self, event: dict[str, Any]) -> None:
        assert self.snapshot is not None
        delta = event.get("delta") or {}
        self.snapshot["stop_reason"] = delta.get("stop_reason")
        self.snapshot["stop_sequence"] = delta.get("stop_sequence")
        usage = self.snapshot.setdefault("usage", {})
        given = event.get("usage") or {}
        for name in _DELTA_USAGE:
            if given.get(name) is not None:
                usage[name] = given[name]

    def text(self) -> str:
        """All text blocks so far, joined."""
        return self._text

    def final(self) -> Message:
        """The reassembled message."""
        return Message.model_validate(self.snapshot or {"id": "", "content": []})

    def final_usage(self) -> MessageUsage | None:
        """Usage as reported (message_start, overwritten by message_delta)."""
        usage = (self.snapshot or {}).get("usage")
        return MessageUsage.model_validate(usage) if isinstance(usage, dict) else None


def done(final: ChatCompletion | Message) -> DoneEvent:
    """The ``DoneEvent`` of a finished stream."""
    return DoneEvent(final, final.usage)
