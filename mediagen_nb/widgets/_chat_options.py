"""What the chat form may offer for a model and protocol, in the user's words.

Pure functions over the catalog (no widgets): model titles, protocols, attachment kinds, and
``FIELDS`` (each field's label, help, API name and placeholder; the settings' from the
catalog's ``CHAT_SETTINGS``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from mediagen_nb.catalog import TEXT_MODELS, text_model
from mediagen_nb.catalog._chat_settings import CHAT_SETTINGS, chat_setting
from mediagen_nb.catalog._chat_settings import TOOLS_EXAMPLE as CATALOG_TOOLS_EXAMPLE
from mediagen_nb.catalog._text import VENDOR_TITLE
from mediagen_nb.types import ChatProtocol
from mediagen_nb.widgets._chat_fields import choices

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
MAX_FILE_BYTES = 5 * 1024 * 1024
"""Largest image file attached from disk (the messages protocol's per-image limit)."""
FILE_TYPES: dict[str, str] = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WebP",
}

TOOLS_EXAMPLE = CATALOG_TOOLS_EXAMPLE
"""What "Insert example" puts into the tools box (the catalog's tools setting's example)."""
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


_FORM_FIELDS: dict[str, FieldInfo] = {
    "model": FieldInfo("Model", "", "model"),
    "protocol": FieldInfo("Protocol", "Which compatible API the request goes to.", ""),
    "attachments": FieldInfo(
        "Attachments", "Images (or videos, for Gemini) sent with your message.", ""
    ),
    "message": FieldInfo("Message", "", "messages"),
}
"""The form's own fields (the settings come from the catalog)."""


class _Fields(Mapping[str, FieldInfo]):
    """Every field of the form in order: model, protocol, the catalog's settings (read
    when asked, so a setting registered at run time is there), attachments, message."""

    def _all(self) -> dict[str, FieldInfo]:
        own = _FORM_FIELDS
        settings = {
            s.key: FieldInfo(s.label, s.help, s.api_name, s.placeholder) for s in CHAT_SETTINGS
        }
        head = {k: own[k] for k in ("model", "protocol")}
        return {**head, **settings, **{k: own[k] for k in ("attachments", "message")}}

    def __getitem__(self, key: str) -> FieldInfo:
        return self._all()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


FIELDS: Mapping[str, FieldInfo] = _Fields()


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
    setting = chat_setting("thinking_budget")
    return setting is not None and setting.offered(protocol)


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
    setting = chat_setting("sampling")
    return tuple(v for v, _label in choices(setting, protocol)) if setting else ("default",)


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

    def get(self, key: str) -> Any:
        """A setting's value by its form key (a setting without a field here: ``extra``)."""
        if key in SETTING_FIELDS:
            return getattr(self, key)
        if key in self.extra:
            return self.extra[key]
        setting = chat_setting(key)
        return None if setting is None else setting.default


SETTING_FIELDS = frozenset(f.name for f in fields(ChatSettings)) - {"extra", "attachments"}
"""What ``ChatSettings`` holds as fields (another declared setting's value is in ``extra``)."""


def field_of(problem_field: str) -> str:
    """Which form control a problem's JSON path belongs to (for showing it next to it)."""
    head = problem_field.split(".", maxsplit=1)[0].split("[", maxsplit=1)[0]
    if head == "messages":
        return "attachments" if ".content[" in problem_field else "message"
    owners = {
        path.split(".")[0]: s.key
        for s in CHAT_SETTINGS
        if s.send != "system"
        for path in s.wire.values()
    }
    owners |= {alias: s.key for s in CHAT_SETTINGS for alias in s.aliases}
    owners |= {"image_urls": "attachments", "video_urls": "attachments"}
    return owners.get(head, head if head in FIELDS else "message")


def human(field_name: str, rule: str) -> str:
    """A message naming the field as the user sees it: ``Stop sequences: at most 4``.

    API names inside the rule (a setting's ``aliases``) become the labels the form shows.
    """
    info = FIELDS.get(field_name)
    labels = {alias: f"the {s.label.lower()}" for s in CHAT_SETTINGS for alias in s.aliases}
    words = rule
    if labels:
        names = "|".join(sorted(map(re.escape, labels), key=len, reverse=True))
        words = re.sub(rf"\b({names})\b", lambda m: labels[m[1]], rule)
    return f"{info.label if info else field_name}: {words}"
