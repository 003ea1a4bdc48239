"""What the chat form may offer for a model and protocol, and the request body it builds.

Pure functions over the catalog (no widgets), so the rules are tested without a front end:
image attachments on every model's chat-completions; video only for Gemini; the messages
protocol only for Claude and GPT, and image input there not for GPT.

Decisions where the spec is silent: streamed chat-completions ask for
``stream_options.include_usage`` (the OpenAI protocol's way to get usage in a stream) so
each turn can show its usage; ``top_p`` and ``stop`` are offered on chat-completions only
(the messages table lists neither); the messages ``max_tokens`` (required) defaults to 1024;
attachments are sent as ``image_url`` / ``video_url`` parts on chat-completions and as
``image`` blocks with a URL ``source`` on messages (the compatible protocols' shapes);
since the spec leaves those shapes to the protocols, the request types do not check the
URLs inside them, so the form checks each attachment is an http(s) URL itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.catalog import TEXT_MODELS, VENDOR_TITLE, text_model
from mediagen_nb.types import Problem, is_url

Protocol = Literal["chat-completions", "messages"]
Sampling = Literal["default", "temperature", "top_p"]
AttachmentKind = Literal["image", "video"]

PROTOCOLS: tuple[Protocol, ...] = ("chat-completions", "messages")
PATHS: dict[Protocol, str] = {
    "chat-completions": "/v1/chat/completions",
    "messages": "/v1/messages",
}
DEFAULT_MAX_TOKENS = 1024
MAX_STOP = 4


def model_options() -> list[tuple[str, str]]:
    """(label, model) for a dropdown, grouped by vendor (the catalog's table order)."""
    options: list[tuple[str, str]] = []
    for name, entry in TEXT_MODELS.items():
        variant = "" if entry.variant == "standard" else f" ({entry.variant_meaning})"
        options.append((f"{VENDOR_TITLE[entry.vendor]} · {name}{variant}", name))
    return options


def protocols_for(model: str) -> tuple[Protocol, ...]:
    """Protocols whose endpoint accepts ``model`` (messages: Claude and GPT only)."""
    entry = text_model(model)
    if entry is None or "messages" in entry.endpoints:
        return PROTOCOLS
    return ("chat-completions",)


def attachment_kinds(model: str, protocol: Protocol) -> tuple[AttachmentKind, ...]:
    """Media the model can take as input on this protocol."""
    entry = text_model(model)
    if entry is None:
        return ("image",) if protocol == "chat-completions" else ()
    if protocol == "chat-completions":
        return ("image", "video") if entry.video_input_chat else ("image",)
    return ("image",) if entry.image_input_messages else ()


def capability_hint(model: str, protocol: Protocol) -> str:
    """One or two plain sentences: what this model takes here and why something is missing."""
    entry = text_model(model)
    if entry is None:
        return f"{model}: not in the catalog; capabilities unknown."
    kinds = attachment_kinds(model, protocol)
    takes = " and ".join(f"{k}s" for k in kinds) if kinds else "no media (text only)"
    notes = [f"{VENDOR_TITLE[entry.vendor]} · {entry.variant_meaning}: attachments take {takes}."]
    if "messages" not in entry.endpoints:
        notes.append("The messages protocol accepts Claude and GPT models only.")
    if protocol == "chat-completions" and not entry.video_input_chat:
        notes.append("Video input: Gemini models only.")
    if protocol == "messages" and entry.vendor == "gpt":
        notes.append("Image input on messages is not supported for GPT; use chat-completions.")
    return " ".join(notes)


def sampling_for(protocol: Protocol) -> tuple[Sampling, ...]:
    """Sampling controls offered: temperature or top_p, one at a time."""
    return (
        ("default", "temperature", "top_p")
        if protocol == "chat-completions"
        else (
            "default",
            "temperature",
        )
    )


@dataclass(frozen=True)
class ChatSettings:
    """The form's current choices (everything but the conversation)."""

    model: str
    protocol: Protocol = "chat-completions"
    system: str = ""
    sampling: Sampling = "default"
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 0
    """0 means "not set" on chat-completions; messages then uses ``DEFAULT_MAX_TOKENS``."""
    stop: tuple[str, ...] = ()
    image_urls: tuple[str, ...] = ()
    video_urls: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """Endpoint path of the protocol."""
        return PATHS[self.protocol]

    @property
    def attachments(self) -> tuple[str, ...]:
        """The attachment URLs that are valid for this model and protocol."""
        kinds = attachment_kinds(self.model, self.protocol)
        images = self.image_urls if "image" in kinds else ()
        videos = self.video_urls if "video" in kinds else ()
        return images + videos


def split_lines(text: str) -> tuple[str, ...]:
    """Non-empty stripped lines (URL lists, stop sequences: one per line)."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def user_content(settings: ChatSettings, text: str) -> str | list[dict[str, Any]]:
    """The user message content: plain text, or a multimodal array when media is attached."""
    kinds = attachment_kinds(settings.model, settings.protocol)
    images = settings.image_urls if "image" in kinds else ()
    videos = settings.video_urls if "video" in kinds else ()
    if not images and not videos:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if settings.protocol == "chat-completions":
        parts += [{"type": "image_url", "image_url": {"url": u}} for u in images]
        parts += [{"type": "video_url", "video_url": {"url": u}} for u in videos]
    else:
        parts += [{"type": "image", "source": {"type": "url", "url": u}} for u in images]
    return parts


def build_request(
    settings: ChatSettings,
    history: Sequence[tuple[str, Any]],
    content: str | list[dict[str, Any]],
) -> dict[str, Any]:
    """The request body (without ``stream``) for ``history`` + a new user message."""
    messages: list[dict[str, Any]] = []
    system = settings.system.strip()
    if system and settings.protocol == "chat-completions":
        messages.append({"role": "system", "content": system})
    messages += [{"role": role, "content": value} for role, value in history]
    messages.append({"role": "user", "content": content})
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
    if settings.protocol == "messages":
        body["max_tokens"] = settings.max_tokens or DEFAULT_MAX_TOKENS
        if system:
            body["system"] = system
        if settings.sampling == "temperature":
            body["temperature"] = settings.temperature
        return body
    if settings.sampling == "temperature":
        body["temperature"] = settings.temperature
    elif settings.sampling == "top_p":
        body["top_p"] = settings.top_p
    if settings.max_tokens:
        body["max_completion_tokens"] = settings.max_tokens
    if len(settings.stop) == 1:
        body["stop"] = settings.stop[0]
    elif settings.stop:
        body["stop"] = list(settings.stop)
    return body


def attachment_problems(settings: ChatSettings) -> list[Problem]:
    """Each attachment the request would carry must be an http(s) URL."""
    kinds = attachment_kinds(settings.model, settings.protocol)
    lists = {"image_urls": settings.image_urls, "video_urls": settings.video_urls}
    return [
        Problem(f"{name}[{index}]", f"{url!r} is not an http(s) URL")
        for name, urls in lists.items()
        if name.split("_")[0] in kinds
        for index, url in enumerate(urls)
        if not is_url(url)
    ]


def field_of(problem_field: str) -> str:
    """Which form control a problem's JSON path belongs to (for showing it next to it)."""
    head = problem_field.split(".", maxsplit=1)[0].split("[", maxsplit=1)[0]
    if head == "messages":
        return "attachments" if ".content[" in problem_field else "message"
    if head in ("image_urls", "video_urls"):
        return "attachments"
    return {"max_completion_tokens": "max_tokens"}.get(head, head)


def _split_content(content: Any) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(text, image URLs, video URLs) of a message content in either protocol's shape."""
    if isinstance(content, str):
        return content, (), ()
    texts: list[str] = []
    images: list[str] = []
    videos: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            texts.append(str(part.get("text", "")))
        elif kind in ("image_url", "video_url"):
            ref = part.get(kind)
            url = ref.get("url") if isinstance(ref, dict) else ref
            (images if kind == "image_url" else videos).append(str(url))
        elif kind == "image" and isinstance(part.get("source"), dict):
            images.append(str(part["source"].get("url", "")))
    return "\n".join(texts), tuple(images), tuple(videos)


def settings_from_body(body: dict[str, Any]) -> tuple[ChatSettings, str]:
    """The form settings and draft message of a recorded request ("open in form").

    The protocol is inferred from the body: ``max_tokens`` is sent only on messages (this
    form sends ``max_completion_tokens`` on chat-completions). Earlier turns are not
    restored; the last user message becomes the draft.
    """
    protocol: Protocol = "messages" if "max_tokens" in body else "chat-completions"
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = body.get("system") if isinstance(body.get("system"), str) else ""
    for message in messages:
        if message.get("role") == "system" and isinstance(message.get("content"), str):
            system = message["content"]
    users = [m for m in messages if m.get("role") == "user"]
    text, images, videos = _split_content(users[-1].get("content")) if users else ("", (), ())
    sampling: Sampling = (
        "top_p" if "top_p" in body else "temperature" if "temperature" in body else "default"
    )
    stop = body.get("stop")
    stops = (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop or ())
    tokens = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    settings = ChatSettings(
        model=str(body.get("model", "")),
        protocol=protocol,
        system=str(system or ""),
        sampling=sampling,
        temperature=float(body.get("temperature", 1.0)),
        top_p=float(body.get("top_p", 1.0)),
        max_tokens=int(tokens),
        stop=stops,
        image_urls=images,
        video_urls=videos,
    )
    return settings, text
