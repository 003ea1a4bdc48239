"""What a stream helper yields while a reply arrives (``stream.events()``), for both endpoints.

One small, protocol-neutral vocabulary, so a chat panel handles chat completions and messages
streams with the same code; switch on ``.type``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mediagen_nb.types._chat_parts import ToolCall, ToolUseBlock
from mediagen_nb.types._responses import ChatCompletion, CompletionUsage, Message, MessageUsage


@dataclass(frozen=True)
class TextEvent:
    """Answer text arrived.

    Attributes:
        text: The new piece.
        snapshot: All answer text of this choice so far.
        choice: The chat completions choice index (``n`` > 1); always 0 on messages.
        type: ``"text"``.
    """

    text: str
    snapshot: str
    choice: int = 0
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ThinkingEvent:
    """Extended-thinking text arrived (messages with ``thinking`` enabled).

    Attributes:
        thinking: The new piece.
        snapshot: All thinking text of the current thinking block so far.
        choice: Always 0 (messages has one choice).
        type: ``"thinking"``.
    """

    thinking: str
    snapshot: str
    choice: int = 0
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True)
class ToolInputEvent:
    """A fragment of a tool call's JSON arguments arrived.

    Attributes:
        index: Which call: its position in ``tool_calls`` (chat completions) or its content
            block index (messages).
        name: The called tool's name (known before its arguments arrive).
        partial_json: The new fragment.
        snapshot: All argument JSON text of this call so far (not valid JSON until the call
            ends).
        choice: The chat completions choice index; always 0 on messages.
        type: ``"tool_input"``.
    """

    index: int
    name: str
    partial_json: str
    snapshot: str
    choice: int = 0
    type: Literal["tool_input"] = "tool_input"


@dataclass(frozen=True)
class ToolCallEvent:
    """A tool call is complete.

    Attributes:
        call: A ``ToolCall`` (chat completions) or a ``ToolUseBlock`` (messages);
            both have ``id``, ``name`` and ``input`` (the decoded arguments).
        choice: The chat completions choice index; always 0 on messages.
        type: ``"tool_call"``.
    """

    call: ToolCall | ToolUseBlock
    choice: int = 0
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class DoneEvent:
    """The stream ended with its terminator.

    Attributes:
        final: The whole reply, reassembled: the object ``get_final_completion()`` /
            ``get_final_message()`` return.
        usage: Token counts (chat completions: only when ``stream_options.include_usage``
            was true).
        type: ``"done"``.
    """

    final: ChatCompletion | Message
    usage: CompletionUsage | MessageUsage | None
    type: Literal["done"] = "done"


StreamUpdate = TextEvent | ThinkingEvent | ToolInputEvent | ToolCallEvent | DoneEvent
"""Anything ``stream.events()`` yields; switch on ``.type``."""
