"""What the chat form may offer for a model and protocol, in the user's words.

Pure functions over the catalog (no widgets), so the rules are tested without a front end:
image attachments on every model's chat-completions; video only for Gemini; the messages
protocol only for Claude and GPT, and image input there not for GPT; tools on both
protocols; a thinking budget on messages (the protocol whose ``thinking.budget_tokens``
takes one).

Labels speak the user's words; each field keeps its API name for the tooltip and for copy as
code (``FIELDS``). Model titles are built from the catalog name ("Claude Sonnet 4.6 ·
premium pool"); the API name stays the option's value and tooltip.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from mediagen_nb.catalog import TEXT_MODELS, text_model
from mediagen_nb.catalog._text import VENDOR_TITLE
from mediagen_nb.types import ChatProtocol

Sampling = Literal["default", "temperature", "top_p"]
AttachmentKind = Literal["image", "video"]
ToolChoice = Literal["auto", "required", "none"]

PROTOCOLS: tuple[ChatProtocol, ...] = ("chat_completions", "messages")
PROTOCOL_LABELS: dict[ChatProtocol, str] = {
    "chat_completions": "Chat Completions",
    "messages": "Messages",
}
PROTOCOL_HELP: dict[ChatProtocol, str] = {
    "chat_completions": "OpenAI-compatible: POST /v1/chat/completions",
    "messages": "Anthropic-compatible: POST /v1/messages",
}
PATHS: dict[ChatProtocol, str] = {
    "chat_completions": "/v1/chat/completions",
    "messages": "/v1/messages",
}
DEFAULT_MAX_TOKENS = 1024
MIN_THINKING_BUDGET = 1024
"""The messages protocol's smallest ``thinking.budget_tokens``."""
MAX_STOP = 4
MAX_FILE_BYTES = 5 * 1024 * 1024
"""Largest image file attached from disk (the messages protocol's per-image limit)."""
FILE_TYPES: dict[str, str] = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
}
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

_VARIANT_WORDS = {
    "standard": "",
    "official": "official",
    "hc": "premium pool",
    "fd": "mixed pool",
    "low": "budget",
}


@dataclass(frozen=True)
class FieldInfo:
    """How one form field is shown: its label, its help line, the API names it sets and its
    placeholder (a value the field's rules accept: a test sends each one)."""

    label: str
    help: str = ""
    api: str = ""
    placeholder: str = ""


FIELDS: dict[str, FieldInfo] = {
    "model": FieldInfo("Model", "", "model"),
    "protocol": FieldInfo("Protocol", "Which compatible API the request goes to.", ""),
    "system": FieldInfo(
        "System prompt",
        "Instructions the model follows for the whole conversation.",
        "system",
        "e.g. You are a concise tutor.",
    ),
    "sampling": FieldInfo("Sampling", "Leave on Default unless you want to steer variety.", ""),
    "temperature": FieldInfo(
        "Temperature", "Higher gives more varied replies, lower more focused.", "temperature"
    ),
    "top_p": FieldInfo(
        "Top P", "Only the most likely words whose chances add up to this.", "top_p"
    ),
    "max_tokens": FieldInfo(
        "Max reply length",
        "In tokens (about ¾ of a word), at least 1. Empty: the service's default.",
        "max_completion_tokens / max_tokens",
        "default",
    ),
    "stop": FieldInfo(
        "Stop sequences",
        f"One per line, at most {MAX_STOP}; the reply ends before one.",
        "stop",
        "one per line",
    ),
    "tools": FieldInfo(
        "Tools",
        "A JSON array of tools (either protocol's shape); the model may ask to call one.",
        "tools",
        '[{"name": "get_weather", "parameters": {"type": "object"}}]',
    ),
    "tool_choice": FieldInfo(
        "Tool use", "Whether the model may, must or must not call a tool.", "tool_choice"
    ),
    "thinking_budget": FieldInfo(
        "Thinking budget",
        f"Tokens the model may spend thinking before it answers; 0 is off, else at least "
        f"{MIN_THINKING_BUDGET}.",
        "thinking.budget_tokens",
        "0 (off)",
    ),
    "attachments": FieldInfo(
        "Attachments", "Images (or videos, for Gemini) sent with your message.", ""
    ),
    "message": FieldInfo("Message", "", "messages"),
}
TOOL_CHOICES: tuple[tuple[ToolChoice, str], ...] = (
    ("auto", "Model decides"),
    ("required", "Must call a tool"),
    ("none", "No tool calls"),
)
SAMPLING_LABELS: dict[Sampling, str] = {
    "default": "Default",
    "temperature": "Temperature",
    "top_p": "Top P",
}
TOOLS_EXAMPLE = """[
  {
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
      "type": "object",
      "properties": {"city": {"type": "string", "description": "City name"}},
      "required": ["city"]
    }
  }
]"""


def _version(base: str) -> str:
    """``claude-sonnet-4-6`` -> ``Sonnet 4.6``; ``gemini-3-flash-preview`` -> ``3 Flash (preview)``.

    (The vendor word is added by ``model_title``.)
    """
    words = base.split("-")[1:]
    out: list[str] = []
    numbers: list[str] = []
    preview = False
    for word in words:
        if re.fullmatch(r"\d+(\.\d+)?", word):
            numbers.append(word)
            continue
        if numbers:
            out.append(".".join(numbers))
            numbers = []
        if word == "preview":
            preview = True
        elif word == "lite" and out:
            out[-1] += "-Lite"
        else:
            out.append(word.capitalize())
    if numbers:
        out.append(".".join(numbers))
    return " ".join(out) + (" (preview)" if preview else "")


def model_title(name: str) -> str:
    """A readable, distinct title: ``Claude Sonnet 4.6 · premium pool``, ``GPT-5.5 · budget``."""
    entry = text_model(name)
    if entry is None:
        return name
    if entry.vendor == "gpt":
        head = "GPT-" + entry.base.removeprefix("gpt-")
    else:
        head = f"{VENDOR_TITLE[entry.vendor]} {_version(entry.base)}"
    words = _VARIANT_WORDS[entry.variant]
    return f"{head} · {words}" if words else head


def model_options() -> list[tuple[str, str]]:
    """(title, model) for a picker, in the catalog's order (grouped by vendor)."""
    return [(model_title(name), name) for name in TEXT_MODELS]


def model_groups() -> list[dict[str, Any]]:
    """The picker as data: ``[{label: vendor, options: [{value, label, title}]}]``."""
    groups: list[dict[str, Any]] = []
    for name, entry in TEXT_MODELS.items():
        vendor = VENDOR_TITLE[entry.vendor]
        if not groups or groups[-1]["label"] != vendor:
            groups.append({"label": vendor, "options": []})
        groups[-1]["options"].append(
            {"value": name, "label": model_title(name), "title": f"{name}: {entry.variant_meaning}"}
        )
    return groups


def reply_limit(model: str) -> int | None:
    """The model's longest reply in tokens (catalog); None for a model not in the catalog."""
    entry = text_model(model)
    return None if entry is None else entry.max_output_tokens


def max_tokens_help(high: int) -> str:
    """The reply length's help for a model whose longest reply is ``high`` tokens."""
    return f"In tokens (about ¾ of a word), 1 to {high:,} for this model. Empty: the default."


def protocols_for(model: str) -> tuple[ChatProtocol, ...]:
    """Protocols whose endpoint accepts ``model`` (messages: Claude and GPT only)."""
    entry = text_model(model)
    if entry is None or "messages" in entry.endpoints:
        return PROTOCOLS
    return ("chat_completions",)


def attachment_kinds(model: str, protocol: ChatProtocol) -> tuple[AttachmentKind, ...]:
    """Media the model can take as input on this protocol."""
    entry = text_model(model)
    if entry is None:
        return ("image",) if protocol == "chat_completions" else ()
    if protocol == "chat_completions":
        return ("image", "video") if entry.video_input_chat else ("image",)
    return ("image",) if entry.image_input_messages else ()


def takes_thinking(protocol: ChatProtocol) -> bool:
    """Whether the protocol has a thinking budget (messages: ``thinking.budget_tokens``)."""
    return protocol == "messages"


def capability_hint(model: str, protocol: ChatProtocol) -> str:
    """One or two plain sentences: what this model takes here and why something is missing."""
    entry = text_model(model)
    if entry is None:
        return f"{model} is not in the catalog, so what it accepts is unknown."
    kinds = attachment_kinds(model, protocol)
    takes = " and ".join(f"{k}s" for k in kinds) if kinds else "text only"
    notes = [f"{model_title(model)} takes {takes} here."]
    if "messages" not in entry.endpoints:
        notes.append("The Messages protocol serves Claude and GPT models only.")
    if protocol == "chat_completions" and not entry.video_input_chat:
        notes.append("Video input: Gemini models only.")
    if protocol == "messages" and entry.vendor == "gpt":
        notes.append("For images with GPT, use Chat Completions.")
    return " ".join(notes)


def sampling_for(protocol: ChatProtocol) -> tuple[Sampling, ...]:
    """Sampling controls offered: temperature or top_p, one at a time."""
    if protocol == "chat_completions":
        return ("default", "temperature", "top_p")
    return ("default", "temperature")


@dataclass(frozen=True)
class Attachment:
    """One image or video sent with a user message: by URL, or a file as a data URL.

    ``url`` of a file is its ``data:`` URL; it stays in the kernel (the front end is sent
    ``to_json()``, which leaves it out, so a saved notebook does not carry the file).
    """

    kind: AttachmentKind
    url: str
    name: str = ""
    media_type: str = ""
    size: int = 0
    key: str = ""

    @property
    def is_file(self) -> bool:
        """True for a file attached from disk (sent inline)."""
        return self.url.startswith("data:")

    @property
    def label(self) -> str:
        """File name, or the URL."""
        return self.name or self.url

    def to_json(self) -> dict[str, Any]:
        """What the front end shows (never the file's bytes)."""
        return {
            "key": self.key,
            "kind": self.kind,
            "source": "file" if self.is_file else "url",
            "label": self.label,
            "url": "" if self.is_file else self.url,
            "size": self.size,
        }


@dataclass(frozen=True)
class ChatSettings:
    """The form's current choices (everything but the conversation)."""

    model: str
    protocol: ChatProtocol = "chat_completions"
    system: str = ""
    sampling: Sampling = "default"
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 0
    """0 means "not set" on chat-completions; messages then uses ``DEFAULT_MAX_TOKENS``."""
    stop: tuple[str, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    tools: str = ""
    """JSON text of the tools (empty: none)."""
    tool_choice: ToolChoice = "auto"
    thinking_budget: int = 0
    """0: thinking off (messages only)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> str:
        """Endpoint path of the protocol."""
        return PATHS[self.protocol]

    @property
    def sent_attachments(self) -> tuple[Attachment, ...]:
        """The attachments this model and protocol accept (the others wait, unsent)."""
        kinds = attachment_kinds(self.model, self.protocol)
        return tuple(a for a in self.attachments if a.kind in kinds)

    @property
    def thinking(self) -> bool:
        """Thinking is on (and the protocol takes it)."""
        return self.thinking_budget > 0 and takes_thinking(self.protocol)


def split_lines(text: str) -> tuple[str, ...]:
    """Non-empty stripped lines (stop sequences: one per line)."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def field_of(problem_field: str) -> str:
    """Which form control a problem's JSON path belongs to (for showing it next to it)."""
    head = problem_field.split(".", maxsplit=1)[0].split("[", maxsplit=1)[0]
    if head == "messages":
        return "attachments" if ".content[" in problem_field else "message"
    if head == "thinking":
        return "thinking_budget"
    return {
        "max_completion_tokens": "max_tokens",
        "stop_sequences": "stop",
        "image_urls": "attachments",
        "video_urls": "attachments",
    }.get(head, head if head in FIELDS else "message")


_API_WORDS = re.compile(r"\b(max_completion_tokens|max_tokens|budget_tokens|stop_sequences)\b")
_API_WORD_LABELS = {
    "max_completion_tokens": "the max reply length",
    "max_tokens": "the max reply length",
    "budget_tokens": "the thinking budget",
    "stop_sequences": "the stop sequences",
}


def human(field_name: str, rule: str) -> str:
    """A message naming the field as the user sees it: ``Stop sequences: at most 4``.

    API names inside the rule become the labels the form shows.
    """
    info = FIELDS.get(field_name)
    words = _API_WORDS.sub(lambda m: _API_WORD_LABELS[m[1]], rule)
    return f"{info.label if info else field_name}: {words}"
