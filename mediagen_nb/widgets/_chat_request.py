"""The request body the chat form builds, in each protocol's shape, and the way back.

Decisions where the spec is silent: streamed chat-completions ask for
``stream_options.include_usage`` (the OpenAI protocol's way to get usage in a stream);
``top_p`` and ``stop`` are offered on chat-completions only (the messages table lists
neither); the messages ``max_tokens`` (required) defaults to 1024, or to the thinking budget
plus 1024 when thinking is on (the budget must stay below it). Attachments by URL are
``image_url`` / ``video_url`` parts on chat-completions and ``image`` blocks with a ``url``
source on messages; a file goes as a ``data:`` URL on chat-completions and as the messages
protocol's ``base64`` source (the same bytes, in the shape that protocol takes inline).

Tools are typed as JSON in either protocol's shape (``{"type": "function", "function":
{...}}`` or ``{"name", "description", "input_schema"}``, or the bare ``{"name",
"parameters"}``) and sent in the chosen protocol's shape. A turn that called tools is sent
back as the protocol expects: chat-completions an assistant message with ``tool_calls``
(``content`` null when it said nothing) and one ``role: "tool"`` message per result;
messages an assistant turn of ``thinking`` (with its signature) / ``text`` / ``tool_use``
blocks and a user turn of ``tool_result`` blocks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mediagen_nb.types import ChatProtocol, Problem
from mediagen_nb.types._problem import is_url
from mediagen_nb.widgets._chat_options import (
    DEFAULT_MAX_TOKENS,
    FILE_TYPES,
    MAX_FILE_BYTES,
    TOOL_NAME,
    Attachment,
    ChatSettings,
    Sampling,
    ToolChoice,
    attachment_kinds,
)

if TYPE_CHECKING:
    from mediagen_nb.widgets._transcript import ChatTurn


def parse_tools(text: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The tools typed in the form, as neutral ``{name, description, schema}`` dicts."""
    if not text.strip():
        return [], []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [
            Problem("tools", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
        ]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return [], [Problem("tools", "must be a JSON array of tools")]
    tools: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for index, item in enumerate(data):
        where = f"tool {index + 1}"
        if not isinstance(item, dict):
            problems.append(Problem("tools", f"{where} must be a JSON object"))
            continue
        spec = item.get("function") if item.get("type") == "function" else item
        spec = spec if isinstance(spec, dict) else {}
        name = spec.get("name")
        schema = spec.get("parameters", spec.get("input_schema", {"type": "object"}))
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            problems.append(
                Problem("tools", f"{where} needs a name of letters, digits, _ or - (1-64)")
            )
        elif not isinstance(schema, dict):
            problems.append(Problem("tools", f"{name}: parameters must be a JSON Schema object"))
        else:
            description = spec.get("description")
            tools.append({"name": name, "description": str(description or ""), "schema": schema})
    names = [t["name"] for t in tools]
    problems += [
        Problem("tools", f"{n}: the name is used twice")
        for n in sorted(set(names))
        if names.count(n) > 1
    ]
    return tools, problems


def tools_body(settings: ChatSettings) -> dict[str, Any]:
    """``tools`` and ``tool_choice`` in the protocol's shape (empty without valid tools)."""
    tools, problems = parse_tools(settings.tools)
    if problems or not tools:
        return {}
    choice: ToolChoice = settings.tool_choice
    if settings.protocol == "chat_completions":
        return {
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": t["name"],
                        **({"description": t["description"]} if t["description"] else {}),
                        "parameters": t["schema"],
                    },
                }
                for t in tools
            ],
            **({} if choice == "auto" else {"tool_choice": choice}),
        }
    wire = {"auto": "auto", "required": "any", "none": "none"}[choice]
    return {
        "tools": [
            {
                "name": t["name"],
                **({"description": t["description"]} if t["description"] else {}),
                "input_schema": t["schema"],
            }
            for t in tools
        ],
        **({} if choice == "auto" else {"tool_choice": {"type": wire}}),
    }


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
    system = settings.system.strip()
    if settings.protocol == "messages":
        body = _messages_body(settings, messages, system)
    else:
        if system:
            messages = [{"role": "system", "content": system}, *messages]
        body = _chat_body(settings, messages)
    return {**body, **tools_body(settings)}


def _messages_body(
    settings: ChatSettings, messages: list[dict[str, Any]], system: str
) -> dict[str, Any]:
    floor = (
        settings.thinking_budget + DEFAULT_MAX_TOKENS if settings.thinking else DEFAULT_MAX_TOKENS
    )
    body: dict[str, Any] = {
        "model": settings.model,
        "messages": messages,
        "max_tokens": settings.max_tokens or floor,
    }
    if system:
        body["system"] = system
    if settings.sampling == "temperature":
        body["temperature"] = settings.temperature
    if settings.thinking:
        body["thinking"] = {"type": "enabled", "budget_tokens": settings.thinking_budget}
    return body


def _chat_body(settings: ChatSettings, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
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


def form_problems(settings: ChatSettings) -> list[Problem]:
    """Rules the form checks itself (attachment URLs, the tools JSON); the thinking budget's
    rules are ``validate_request``'s."""
    found: list[Problem] = []
    for item in settings.sent_attachments:
        if not item.is_file and not is_url(item.url):
            found.append(Problem("attachments", f"{item.url!r} is not an http(s) URL"))
    found += parse_tools(settings.tools)[1]
    return found


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
    protocol: ChatProtocol = "messages" if "max_tokens" in body else "chat_completions"
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    system = body.get("system") if isinstance(body.get("system"), str) else ""
    for message in messages:
        if message.get("role") in ("system", "developer") and isinstance(
            message.get("content"), str
        ):
            system = message["content"]
    users = [m for m in messages if m.get("role") == "user"]
    text, attachments = _split_content(users[-1].get("content")) if users else ("", [])
    sampling: Sampling = (
        "top_p" if "top_p" in body else "temperature" if "temperature" in body else "default"
    )
    stop = body.get("stop")
    stops = (stop,) if isinstance(stop, str) else tuple(str(s) for s in stop or ())
    tokens = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    thinking = body.get("thinking")
    budget = thinking.get("budget_tokens", 0) if isinstance(thinking, dict) else 0
    tools = body.get("tools")
    choice = body.get("tool_choice")
    wire = choice.get("type") if isinstance(choice, dict) else choice
    tool_choice: ToolChoice = {"any": "required", "tool": "required"}.get(
        str(wire), wire if wire in ("required", "none") else "auto"
    )  # type: ignore[assignment]
    settings = ChatSettings(
        model=str(body.get("model", "")),
        protocol=protocol,
        system=str(system or ""),
        sampling=sampling,
        temperature=float(body.get("temperature", 1.0)),
        top_p=float(body.get("top_p", 1.0)),
        max_tokens=int(tokens),
        stop=stops,
        attachments=tuple(attachments),
        tools=json.dumps(tools, indent=2) if isinstance(tools, list) and tools else "",
        tool_choice=tool_choice,
        thinking_budget=int(budget) if isinstance(budget, int) else 0,
    )
    return settings, text
