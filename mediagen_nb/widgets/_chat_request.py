"""The request body the chat form builds, in each protocol's shape, and the way back.

The settings' fields come from the catalog's declarations (``_chat_fields``); here are the
conversation's messages, attachments and tool turns (design notes: docs/reference/design.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mediagen_nb.types import ChatProtocol, Problem
from mediagen_nb.types._problem import is_url
from mediagen_nb.widgets._chat_fields import declared_problems, read_settings, write_settings
from mediagen_nb.widgets._chat_form import settings_of
from mediagen_nb.widgets._chat_options import (
    FILE_TYPES,
    MAX_FILE_BYTES,
    Attachment,
    ChatSettings,
    attachment_kinds,
    reply_limit,
)
from mediagen_nb.widgets._chat_tool_json import parse_tools

if TYPE_CHECKING:
    from mediagen_nb.widgets._transcript import ChatTurn


def user_content(
    settings: ChatSettings, text: str, attachments: Sequence[Attachment] = ()
) -> str | list[dict[str, Any]]:
    """The user message content: plain text, or a multimodal array when media is attached.

    Attachments this model and protocol do not take are left out.
    """
    kinds = attachment_kinds(settings.model, settings.protocol)
    chosen = [a for a in attachments if a.kind in kinds]
    if not chosen:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for item in chosen:
        if settings.protocol == "chat_completions":
            key = f"{item.kind}_url"
            parts.append({"type": key, key: {"url": item.url}})
        elif item.kind == "image" and item.is_file:
            head, _, data = item.url.partition(",")
            media_type = head.removeprefix("data:").split(";")[0]
            source = {"type": "base64", "media_type": media_type, "data": data}
            parts.append({"type": "image", "source": source})
        elif item.kind == "image":
            parts.append({"type": "image", "source": {"type": "url", "url": item.url}})
    return parts


def _assistant(settings: ChatSettings, turn: ChatTurn) -> list[dict[str, Any]]:
    """The messages that send ``turn`` (and its tool results) back to the model."""
    calls = [c for c in turn.tool_calls if c.result is not None]
    if settings.protocol == "chat_completions":
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        results = [{"role": "tool", "tool_call_id": c.id, "content": c.result} for c in calls]
        return [message, *results]
    blocks: list[dict[str, Any]] = []
    if turn.thinking and turn.signature:
        blocks.append({"type": "thinking", "thinking": turn.thinking, "signature": turn.signature})
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.input} for c in calls]
    if not calls:
        return [{"role": "assistant", "content": turn.text}]
    results = [{"type": "tool_result", "tool_use_id": c.id, "content": c.result} for c in calls]
    return [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]


def conversation(settings: ChatSettings, turns: Sequence[ChatTurn]) -> list[dict[str, Any]]:
    """The messages of ``turns`` in the protocol's shape (empty assistant turns left out)."""
    messages: list[dict[str, Any]] = []
    for turn in turns:
        if turn.role == "user":
            messages.append(
                {"role": "user", "content": user_content(settings, turn.text, turn.attachments)}
            )
        elif turn.text or any(c.result is not None for c in turn.tool_calls):
            messages += _assistant(settings, turn)
    return messages


def build_request(settings: ChatSettings, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The request body (without ``stream``) for the conversation ``messages``."""
    return write_settings(settings, {"model": settings.model, "messages": messages})


def form_problems(settings: ChatSettings) -> list[Problem]:
    """Rules the form checks itself (attachment URLs, the tools JSON); the thinking budget's
    rules are ``validate_request``'s."""
    found: list[Problem] = []
    for item in settings.sent_attachments:
        if not item.is_file and not is_url(item.url):
            found.append(Problem("attachments", f"{item.url!r} is not an http(s) URL"))
    found += parse_tools(settings.tools)[1]
    named = {p.field for p in found}
    limit = reply_limit(settings.model)
    return found + [p for p in declared_problems(settings, limit) if p.field not in named]


def file_problem(name: str, media_type: str, size: int) -> str | None:
    """Why a file cannot be attached (None when it can)."""
    if media_type not in FILE_TYPES:
        kinds = ", ".join(FILE_TYPES.values())
        return f"{name or 'the file'} is not an image of type {kinds}"
    if size > MAX_FILE_BYTES:
        return f"{name} is {size / 1_048_576:.1f} MB; at most {MAX_FILE_BYTES // 1_048_576} MB"
    return None


def _split_content(content: Any) -> tuple[str, list[Attachment]]:
    """(text, attachments) of a message content in either protocol's shape."""
    if isinstance(content, str):
        return content, []
    texts: list[str] = []
    found: list[Attachment] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            texts.append(str(part.get("text", "")))
        elif kind in ("image_url", "video_url"):
            ref = part.get(kind)
            url = ref.get("url") if isinstance(ref, dict) else ref
            found.append(Attachment("image" if kind == "image_url" else "video", str(url)))
        elif kind == "image" and isinstance(part.get("source"), dict):
            source = part["source"]
            if source.get("type") == "base64":
                url = f"data:{source.get('media_type')};base64,{source.get('data', '')}"
                found.append(
                    Attachment("image", url, name="image", media_type=str(source.get("media_type")))
                )
            else:
                found.append(Attachment("image", str(source.get("url", ""))))
    return "\n".join(texts), found


def settings_from_body(body: dict[str, Any]) -> tuple[ChatSettings, str]:
    """The form settings and draft message of a recorded request ("open in form").

    The protocol is inferred from the body: ``max_tokens`` is sent only on messages (this
    form sends ``max_completion_tokens`` on chat-completions). Earlier turns are not
    restored; the last user message with text becomes the draft.
    """
    values, attachments, text = values_from_body(body)
    return settings_of(values, attachments), text


def values_from_body(body: dict[str, Any]) -> tuple[dict[str, Any], list[Attachment], str]:
    """The form values, attachments and draft of a recorded request (see ``settings_from_body``).

    Args:
        body: A chat-completions or messages request body.

    Returns:
        The form's values (model, protocol, every declared setting), the last user
        message's attachments and its text.
    """
    protocol: ChatProtocol = "messages" if "max_tokens" in body else "chat_completions"
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    text, attachments = _split_content(users[-1].get("content")) if users else ("", [])
    values = {"model": str(body.get("model", "")), "protocol": protocol}
    return {**values, **read_settings(body, protocol)}, attachments, text
