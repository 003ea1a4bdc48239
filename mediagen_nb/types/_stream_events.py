"""What a stream helper yields while a reply arrives (``stream.events()``), for both endpoints.

One small, protocol-neutral vocabulary, so a chat panel handles chat-completions and
messages streams with the same code:

- :class:`TextEvent` - answer text arrived (``text`` the new piece, ``snapshot`` all so far);
- :class:`ThinkingEvent` - extended-thinking text arrived (messages only);
- :class:`ToolInputEvent` - a fragment of a tool call's JSON arguments arrived;
- :class:`ToolCallEvent` - a tool call is complete (``call``: a :class:`ToolCall` on
  chat-completions, a :class:`ToolUseBlock` on messages; both have ``id``, ``name`` and
  ``input``);
- :class:`DoneEvent` - the stream ended normally; ``final`` is the reassembled reply (the
  same object ``get_final_completion()`` / ``get_final_message()`` return) with its usage.

``choice`` is the chat-completions choice index (``n`` > 1); always 0 on messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mediagen_nb.types._chat_parts import ToolCall, ToolUseBlock
from mediagen_nb.types._responses import ChatCompletion, CompletionUsage, Message, MessageUsage


@dataclass(frozen=True)
class TextEvent:
    """Answer text arrived."""

    text: str
    """The new piece."""
    snapshot: str
    """All answer text of this choice so far."""
    choice: int = 0
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ThinkingEvent:
    """Extended-thinking text arrived (messages with ``thinking`` enabled)."""

    thinking: str
    """The new piece."""
    snapshot: str
    """All thinking text of the current thinking block so far."""
    choice: int = 0
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True)
class ToolInputEvent:
    """A fragment of a tool call's JSON arguments arrived."""

    index: int
    """Which call: position in ``tool_calls`` (chat) or content block index (messages)."""
    name: str
    """The called tool's name (known before its arguments arrive)."""
    partial_json: str
    """The new fragment."""
    snapshot: str
    """All argument JSON text of this call so far (not yet valid JSON until the call ends)."""
    choice: int = 0
    type: Literal["tool_input"] = "tool_input"


@dataclass(frozen=True)
class ToolCallEvent:
    """A tool call is complete: ``call.id``, ``call.name``, ``call.input`` (decoded)."""

    call: ToolCall | ToolUseBlock
    choice: int = 0
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class DoneEvent:
    """The stream ended with its terminator; ``final`` is the whole reply."""

    final: ChatCompletion | Message
    usage: CompletionUsage | MessageUsage | None
    """Token counts (chat: only when ``stream_options.include_usage`` was true)."""
    type: Literal["done"] = "done"


StreamUpdate = TextEvent | ThinkingEvent | ToolInputEvent | ToolCallEvent | DoneEvent
"""Anything ``stream.events()`` yields; switch on ``.type``."""
