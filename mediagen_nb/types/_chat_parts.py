"""Typed parts of chat replies: tool calls, content blocks, thinking, and tool results.

Each has ``to_param()`` (or ``result()``): the dict to append to the next request's
``messages``, so a tool loop is "append reply, append results, send again".
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Tag

from mediagen_nb.types._responses_base import Response


class FunctionCall(Response):
    """The function a chat-completions tool call invokes: ``name`` and JSON ``arguments``."""

    name: str = ""
    arguments: str = ""
    """The arguments as the JSON text the model wrote (parse with ``parsed``)."""

    def parsed(self) -> Any:
        """``arguments`` decoded from JSON (``{}`` when empty); ValueError if not JSON."""
        return json.loads(self.arguments) if self.arguments.strip() else {}


class ToolCall(Response):
    """One chat-completions tool call (``message.tool_calls[i]``)."""

    id: str = ""
    type: str = "function"
    function: FunctionCall

    @property
    def name(self) -> str:
        """The called tool's name."""
        return self.function.name

    @property
    def input(self) -> Any:
        """The arguments decoded from JSON (same shape as a ``tool_use`` block's ``input``)."""
        return self.function.parsed()

    def to_param(self) -> dict[str, Any]:
        """This call as it goes back in an assistant message's ``tool_calls``."""
        return {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.function.name, "arguments": self.function.arguments},
        }

    def result(self, content: str | list[dict[str, Any]]) -> dict[str, Any]:
        """The message that answers this call; append it to the next request's ``messages``.

        Args:
            content: The tool's output: text, or a list of content parts.

        Returns:
            ``{"role": "tool", "tool_call_id": ..., "content": ...}``.
        """
        return {"role": "tool", "tool_call_id": self.id, "content": content}


class FunctionCallDelta(Response):
    """A fragment of a streamed tool call's function (name first, then argument pieces)."""

    name: str | None = None
    arguments: str | None = None


class ToolCallDelta(Response):
    """One entry of a chunk's ``delta.tool_calls``: ``index`` says which call it extends."""

    index: int = 0
    id: str | None = None
    type: str | None = None
    function: FunctionCallDelta | None = None


class ContentBlock(Response):
    """A messages content block; the base of the typed blocks and the type of unknown ones."""

    type: str = "text"
    text: str | None = None
    """Set on text blocks (kept here so ``block.text`` works on any block)."""

    def to_param(self) -> dict[str, Any]:
        """This block as it goes back in an assistant turn (every field the service sent)."""
        return self.model_dump(mode="json", exclude_none=True)


class TextBlock(ContentBlock):
    """``{"type": "text", "text": ...}``."""

    type: Literal["text"] = "text"
    text: str = ""


class ThinkingBlock(ContentBlock):
    """Extended thinking: the reasoning ``thinking`` text and its ``signature``.

    Send the block back unchanged (``to_param()``) in the assistant turn of a tool loop:
    the service checks the signature.
    """

    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str = ""


class RedactedThinkingBlock(ContentBlock):
    """Thinking the service encrypted: opaque ``data`` to send back unchanged."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str = ""


class ToolUseBlock(ContentBlock):
    """A messages tool call: ``id``, ``name`` and ``input`` (already a JSON object)."""

    type: Literal["tool_use"] = "tool_use"
    id: str = ""
    name: str = ""
    input: Any = None

    def result(
        self, content: str | list[dict[str, Any]], *, is_error: bool = False
    ) -> dict[str, Any]:
        """The ``tool_result`` block answering this call; put it in the next user turn.

        ``tool_results_turn(*blocks)`` wraps the blocks of every call into that turn.

        Args:
            content: The tool's output: text, or a list of content blocks.
            is_error: Mark the output as an error the model should see as one.

        Returns:
            ``{"type": "tool_result", "tool_use_id": ..., "content": ...}`` (with
            ``"is_error": true`` when asked).
        """
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.id, "content": content}
        if is_error:
            block["is_error"] = True
        return block


_BLOCK_TAGS = frozenset({"text", "thinking", "redacted_thinking", "tool_use"})


def _block_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in _BLOCK_TAGS else "other"


AnyContentBlock = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[RedactedThinkingBlock, Tag("redacted_thinking")]
    | Annotated[ToolUseBlock, Tag("tool_use")]
    | Annotated[ContentBlock, Tag("other")],
    Discriminator(_block_tag),
]
"""A content block of a ``Message``, typed by its ``type``."""


def tool_results_turn(*blocks: dict[str, Any]) -> dict[str, Any]:
    """The user turn that answers a messages reply's tool calls.

    Args:
        *blocks: ``tool_result`` blocks, one per call, from ``ToolUseBlock.result``.

    Returns:
        ``{"role": "user", "content": [...blocks]}``, to append to ``messages``.

    Example:
        >>> turn = tool_results_turn(*(b.result(run(b)) for b in reply.tool_uses))
    """
    return {"role": "user", "content": list(blocks)}
