"""Chat request models (OpenAI-style chat-completions, Anthropic-style messages)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from mediagen_nb.catalog._families import family_for_model
from mediagen_nb.catalog._params import CHAT_MAX_STOP, CHAT_TEMPERATURE, ChatRole, MessagesRole
from mediagen_nb.catalog._text import TEXT_MODELS, text_model, text_vendor_of
from mediagen_nb.types._chat_protocol import chat_content_may_be_null, chat_protocol_problems
from mediagen_nb.types._messages_protocol import messages_protocol_problems
from mediagen_nb.types._parts import content_part_problems, image_parts, system_problems
from mediagen_nb.types._problem import Problem, RequestModel, RuleContext

_VIDEO_PART_TYPES = frozenset({"video_url", "video", "input_video"})


class ChatMessage(BaseModel):
    """One conversation entry of a chat-completions request."""

    model_config = ConfigDict(defer_build=True, strict=True, extra="allow")
    role: ChatRole
    content: Any

    @model_validator(mode="before")
    @classmethod
    def _tool_calls_need_no_content(cls, data: Any) -> Any:
        # an assistant turn that only calls tools may leave content out (the protocol allows it)
        if isinstance(data, dict) and "content" not in data and data.get("tool_calls"):
            return {**data, "content": None}
        return data


class MessagesMessage(BaseModel):
    """One conversation entry of a messages request (no ``system`` role here)."""

    model_config = ConfigDict(defer_build=True, strict=True, extra="allow")
    role: MessagesRole
    content: Any


def _content_problems(content: Any, field: str) -> Iterator[Problem]:
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        yield Problem(field, "must be a string or an array of content parts")
        return
    for index, part in enumerate(content):
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            yield Problem(f"{field}[{index}]", "must be an object with a string 'type'")


def _part_types(messages: list[Any]) -> Iterator[tuple[str, str]]:
    """(JSON path, part type) of every multimodal part in a conversation."""
    for m_index, message in enumerate(messages):
        content = message.content
        if isinstance(content, list):
            for p_index, part in enumerate(content):
                if isinstance(part, dict) and isinstance(part.get("type"), str):
                    yield f"messages[{m_index}].content[{p_index}]", part["type"]


def _text_model_problems(model: str, ctx: RuleContext) -> Iterator[Problem]:
    owner = family_for_model(model)  # an image or video name: refused even when unknown allowed
    if not model.strip():
        yield Problem("model", "must not be empty")
    elif owner is not None:
        where = f"send it to {owner.create_path}"
        yield Problem(
            "model", f"{model!r} belongs to {owner.title}, not to the text models; {where}"
        )
    elif model not in TEXT_MODELS and not (ctx.allow_unknown_models and text_vendor_of(model)):
        yield Problem(
            "model",
            f"unknown text model {model!r}; see mediagen_nb.catalog.TEXT_MODELS "
            "(pass allow_unknown_models=True for models newer than this catalog)",
        )


def _vendor(model: str) -> str | None:
    entry = text_model(model)
    return entry.vendor if entry else text_vendor_of(model)


class ChatCompletionRequest(RequestModel):
    """``POST {text_base_url}/v1/chat/completions``."""

    _warn_unknown_fields = False

    model: str
    messages: list[ChatMessage]
    temperature: float | None = None
    top_p: float | None = None
    stream: bool | None = None
    max_completion_tokens: int | None = None
    max_tokens: int | None = None
    """Legacy alias of ``max_completion_tokens`` that OpenAI-compatible clients still send."""
    stop: Any = None
    logprobs: bool | None = None
    top_logprobs: int | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from _text_model_problems(self.model, ctx)
        if not self.messages:
            yield Problem("messages", "must contain at least one message")
        yield from self._logprob_rules()
        yield from self._message_rules()
        yield from self._sampling_rules()
        yield from _stop_problems(self.stop)
        yield from chat_protocol_problems(self)

    def _logprob_rules(self) -> Iterator[Problem]:
        if self.top_logprobs is None:
            return
        if not 0 <= self.top_logprobs <= 20:
            yield Problem("top_logprobs", "must be between 0 and 20")
        if self.logprobs is not True:
            yield Problem("top_logprobs", "needs logprobs: true")

    def _message_rules(self) -> Iterator[Problem]:
        """Each message's content and parts; video parts for Gemini models only."""
        for index, message in enumerate(self.messages):
            field = f"messages[{index}].content"
            if not chat_content_may_be_null(message):
                yield from _content_problems(message.content, field)
            yield from content_part_problems(message.content, field, anthropic=False)
        if _vendor(self.model) not in ("gpt", "claude"):
            return
        for field, part in _part_types(self.messages):
            if part in _VIDEO_PART_TYPES:
                yield Problem(
                    field, "video input on chat-completions is supported by Gemini models only"
                )

    def _sampling_rules(self) -> Iterator[Problem]:
        """temperature, top_p (not both) and the token limits."""
        low, high = CHAT_TEMPERATURE
        if self.temperature is not None and not low <= self.temperature <= high:
            yield Problem("temperature", f"must be between {low:g} and {high:g}")
        if self.top_p is not None and not 0 <= self.top_p <= 1:
            yield Problem("top_p", "must be between 0 and 1")
        if self.temperature is not None and self.top_p is not None:
            yield Problem("top_p", "adjust temperature or top_p, not both", "warning")
        for name in ("max_completion_tokens", "max_tokens"):
            yield from _reply_length_problems(self.model, name, getattr(self, name))


def _reply_length_problems(model: str, name: str, value: int | None) -> Iterator[Problem]:
    """A token limit: at least 1, at most the model's longest reply (catalog) when known."""
    if value is None:
        return
    if value < 1:
        yield Problem(name, "must be at least 1")
        return
    entry = text_model(model)
    if entry is not None and value > entry.max_output_tokens:
        yield Problem(
            name, f"must be at most {entry.max_output_tokens:,} ({model}'s longest reply)"
        )


def _stop_problems(stop: Any) -> Iterator[Problem]:
    if stop is None or isinstance(stop, str):
        return
    if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
        yield Problem("stop", "must be a string or an array of strings")
    elif len(stop) > CHAT_MAX_STOP:
        yield Problem("stop", f"takes at most {CHAT_MAX_STOP} sequences, got {len(stop)}")


class MessagesRequest(RequestModel):
    """``POST {text_base_url}/v1/messages``."""

    _warn_unknown_fields = False

    model: str
    max_tokens: int
    messages: list[MessagesMessage]
    system: Any = None
    stream: bool | None = None
    temperature: float | None = None
    stop_sequences: list[str] | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from _text_model_problems(self.model, ctx)
        vendor = _vendor(self.model)
        if vendor == "gemini":
            yield Problem("model", "the messages endpoint accepts Claude and GPT models only")
        yield from _reply_length_problems(self.model, "max_tokens", self.max_tokens)
        if not self.messages:
            yield Problem("messages", "must contain at least one message")
        for index, message in enumerate(self.messages):
            yield from _content_problems(message.content, f"messages[{index}].content")
            field = f"messages[{index}].content"
            yield from content_part_problems(message.content, field, anthropic=True)
            if vendor == "gpt":  # wherever the image sits, tool_result content included
                for path in image_parts(message.content, field):
                    yield Problem(
                        path,
                        "image input on the messages endpoint is not supported for GPT models; "
                        "use chat-completions",
                    )
        yield from system_problems(self.system)
        if self.system is not None and not isinstance(self.system, (str, list)):
            yield Problem("system", "must be a string (or an array of text blocks)")
        if self.temperature is not None and not 0 <= self.temperature <= 1:
            yield Problem("temperature", "must be between 0 and 1 (the messages protocol's range)")
        yield from messages_protocol_problems(self)
