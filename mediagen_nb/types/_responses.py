"""Tolerant response models: unknown fields are kept, documented ones are typed.

Responses are parsed leniently (the spec shows samples that disagree, e.g. ``object`` and
the asset ``code`` as string or integer), so a newer service never breaks a reader.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator


class Response(BaseModel):
    """Base of every response model: keep unknown fields, coerce JSON types leniently."""

    model_config = ConfigDict(defer_build=True, extra="allow")


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
    """The assistant message of a choice."""

    role: str = "assistant"
    content: str | None = None


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


class ChunkDelta(Response):
    """The partial message of a streamed chunk."""

    role: str | None = None
    content: str | None = None


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
    choices: list[ChunkChoice] = []
    usage: CompletionUsage | None = None

    @property
    def text(self) -> str:
        """Text added by this chunk."""
        return "".join(c.delta.content or "" for c in self.choices)


class MessageUsage(Response):
    """Token counts of a message."""

    input_tokens: int = 0
    output_tokens: int = 0


class ContentBlock(Response):
    """One block of a message's content."""

    type: str = "text"
    text: str | None = None


class Message(Response):
    """A non-streamed messages response."""

    id: str
    type: str = "message"
    role: str = "assistant"
    content: list[ContentBlock]
    model: str | None = None
    stop_reason: str | None = None
    usage: MessageUsage | None = None

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text or "" for b in self.content if b.type == "text")


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
        """Text added by a ``content_block_delta`` event."""
        if self.type == "content_block_delta" and self.delta:
            value = self.delta.get("text")
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
