"""Tolerant response models: unknown fields are kept, documented ones are typed.

Responses are parsed leniently (the spec shows samples that disagree, e.g. ``object`` and
the asset ``code`` as string or integer), so a newer service never breaks a reader.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator, model_validator

from mediagen_nb.types._chat_parts import (
    AnyContentBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallDelta,
    ToolUseBlock,
)
from mediagen_nb.types._responses_base import Response


class TaskCreateResponse(Response):
    """Create response of every image and video endpoint."""

    id: str | None = None
    object: str | None = None
    created: int | None = None
    model: str | None = None
    status: str
    error: str | None = None


class TaskResult(Response):
    """``GET /v1/result/{id}``."""

    id: str
    object: str | None = None
    created: int | None = None
    model: str | None = None
    status: str
    image_url: str | None = None
    video_url: str | None = None
    actualDuration: float | None = None  # noqa: N815 - the service's field name
    totalTokens: float | None = None  # noqa: N815 - the service's field name
    error: str | None = None

    @property
    def media_url(self) -> str | None:
        """The image or video URL, whichever this task has."""
        return self.image_url or self.video_url


class CompletionUsage(Response):
    """Token counts of a chat completion."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ChatCompletionMessage(Response):
    """The assistant message of a choice: text ``content`` and/or ``tool_calls``."""

    role: str = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    """The tools the model wants called (finish reason ``tool_calls``), else None."""
    refusal: str | None = None
    parsed: Any = Field(default=None, exclude=True)
    """The answer validated into the model given to ``chat.completions.parse`` (else None)."""

    def to_param(self) -> dict[str, Any]:
        """This message as the assistant turn of the next request (``content`` None + calls).

        Append it to ``messages``, then one ``ToolCall.result`` per call, and send again.
        """
        param: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            param["tool_calls"] = [call.to_param() for call in self.tool_calls]
        return param


class ChatChoice(Response):
    """One choice of a chat completion."""

    index: int = 0
    message: ChatCompletionMessage
    finish_reason: str | None = None


class ChatCompletion(Response):
    """A non-streamed chat-completions response."""

    id: str
    object: str = "chat.completion"
    created: int | None = None
    model: str | None = None
    choices: list[ChatChoice]
    usage: CompletionUsage | None = None

    @property
    def text(self) -> str:
        """Content of the first choice."""
        return (self.choices[0].message.content or "") if self.choices else ""

    @property
    def message(self) -> ChatCompletionMessage:
        """The first choice's message (an empty assistant message when there is no choice)."""
        return self.choices[0].message if self.choices else ChatCompletionMessage()

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Tool calls of the first choice (empty list when none)."""
        return list(self.message.tool_calls or [])

    def parse_json(self) -> Any:
        """The first choice's text decoded as JSON (``response_format`` json_object/schema)."""
        return json.loads(self.text)


class ChunkDelta(Response):
    """The partial message of a streamed chunk (text and/or tool-call fragments)."""

    role: str | None = None
    content: str | None = None
    tool_calls: list[ToolCallDelta] | None = None
    refusal: str | None = None


class ChunkChoice(Response):
    """One choice of a streamed chunk."""

    index: int = 0
    delta: ChunkDelta
    finish_reason: str | None = None


class ChatCompletionChunk(Response):
    """One SSE event of a streamed chat completion (its shape is not shown by the spec)."""

    id: str | None = None
    object: str | None = None
    created: int | None = None
    model: str | None = None
    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: CompletionUsage | None = None

    @property
    def text(self) -> str:
        """Text added by this chunk."""
        return "".join(c.delta.content or "" for c in self.choices)


class MessageUsage(Response):
    """Token counts of a message."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class Message(Response):
    """A non-streamed messages response."""

    id: str
    type: str = "message"
    role: str = "assistant"
    content: list[AnyContentBlock]
    """Typed blocks: TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock (others:
    ContentBlock with their fields kept)."""
    model: str | None = None
    stop_reason: str | None = None
    """``end_turn``, ``max_tokens``, ``stop_sequence`` or ``tool_use``."""
    stop_sequence: str | None = None
    usage: MessageUsage | None = None
    parsed_output: Any = Field(default=None, exclude=True)
    """The answer validated into the model given to ``messages.parse`` (else None)."""

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def thinking(self) -> str:
        """All thinking blocks' text joined (empty without extended thinking)."""
        return "".join(b.thinking for b in self.content if isinstance(b, ThinkingBlock))

    @property
    def thinking_blocks(self) -> list[ThinkingBlock | RedactedThinkingBlock]:
        """The thinking and redacted-thinking blocks, in order."""
        return [b for b in self.content if isinstance(b, ThinkingBlock | RedactedThinkingBlock)]

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        """The ``tool_use`` blocks (stop reason ``tool_use``), in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def to_param(self) -> dict[str, Any]:
        """This reply as the assistant turn of the next request (every block, signatures too)."""
        return {"role": "assistant", "content": [b.to_param() for b in self.content]}

    def parse_json(self) -> Any:
        """The text decoded as JSON (``output_config.format`` json_schema)."""
        return json.loads(self.text)


class StreamEvent(Response):
    """One Claude-style SSE event (names and shapes follow the Anthropic protocol)."""

    type: str
    index: int | None = None
    message: dict[str, Any] | None = None
    content_block: dict[str, Any] | None = None
    delta: dict[str, Any] | None = None
    usage: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """Text added by a ``content_block_delta`` event (``text_delta``)."""
        return self._delta_str("text")

    @property
    def thinking(self) -> str:
        """Thinking text added by a ``content_block_delta`` event (``thinking_delta``)."""
        return self._delta_str("thinking")

    @property
    def partial_json(self) -> str:
        """Tool-input JSON fragment of a ``content_block_delta`` (``input_json_delta``)."""
        return self._delta_str("partial_json")

    def _delta_str(self, key: str) -> str:
        if self.type == "content_block_delta" and self.delta:
            value = self.delta.get(key)
            return value if isinstance(value, str) else ""
        return ""


class AssetEnvelope(Response):
    """Envelope of every asset endpoint: ``code`` "0" means success."""

    code: str
    msg: str | None = None
    data: Any = None

    @field_validator("code", mode="before")
    @classmethod
    def _code_as_text(cls, value: Any) -> str:
        # the seedance 2.0 upload sample shows the integer 0
        return str(value)

    @property
    def ok(self) -> bool:
        """True when the service reports success."""
        return self.code == "0"


class AssetInfo(Response):
    """An asset as either library reports it."""

    assetId: str  # noqa: N815 - the service's field name
    name: str | None = None
    assetType: str | None = None  # noqa: N815 - the service's field name
    status: str | None = None
    url: str | None = None
    originalUrl: str | None = None  # noqa: N815 - the service's field name
    createTime: str | None = None  # noqa: N815 - the service's field name


class AssetFailure(Response):
    """An entry of an sd2 answer's ``failedItems``: what the library did not take, and why.

    The spec does not show these entries. The emulator sends ``url``, ``assetType`` and
    ``reason`` for a refused upload, ``assetId`` and ``reason`` for an id it does not know;
    an entry that is not an object is kept as its text in ``reason``.

    Attributes:
        assetId: The asset the entry is about (a status query), or None.
        url: The URL the library refused (an upload), or None.
        assetType: ``Image``, ``Video`` or ``Audio`` (an upload), or None.
        reason: The library's explanation, or None.
    """

    assetId: str | None = None  # noqa: N815 - the service's field name
    url: str | None = None
    assetType: str | None = None  # noqa: N815 - the service's field name
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _text_as_reason(cls, value: Any) -> Any:
        return value if isinstance(value, dict) else {"reason": str(value)}
