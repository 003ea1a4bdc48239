"""The catalog's chat settings at work: coerced form values, request body fields, the way back.

One small function per kind of control (coercion) and per kind of ``send`` (writing and
reading the body), so a setting declared in the catalog needs no code here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mediagen_nb.catalog._chat_settings import (
    CHAT_SETTINGS,
    DEFAULT_MAX_TOKENS,
    ChatSetting,
    chat_setting,
)
from mediagen_nb.catalog._text import ChatProtocol
from mediagen_nb.types import Problem
from mediagen_nb.widgets._chat_tool_json import parse_tools, wire_tools

if TYPE_CHECKING:
    from mediagen_nb.widgets._chat_options import ChatSettings


def split_lines(text: str) -> tuple[str, ...]:
    """Non-empty stripped lines (stop sequences: one per line).

    Args:
        text: Text typed in the form.

    Returns:
        Its lines, stripped, without the empty ones.
    """
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def whole(value: Any) -> int:
    """A whole number typed in the form; empty or unreadable is 0 ("not set")."""
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        return int(float(value))
    except (TypeError, ValueError, OverflowError):
        return 0


def shown_by(selector: ChatSetting, option: Any) -> list[ChatSetting]:
    """The settings a selector's option shows."""
    return [
        s
        for s in CHAT_SETTINGS
        if s.show_when and s.show_when[0] == selector.key and option in s.show_when[1]
    ]


def choices(setting: ChatSetting, protocol: ChatProtocol) -> tuple[tuple[Any, str], ...]:
    """The options offered on ``protocol`` (a selector's option that shows only settings the
    protocol lacks is left out)."""
    if setting.send != "selector":
        return setting.options
    return tuple(
        (value, label)
        for value, label in setting.options
        if not shown_by(setting, value)
        or any(s.offered(protocol) for s in shown_by(setting, value))
    )


def _float(setting: ChatSetting, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float(setting.default)


def coerce_value(setting: ChatSetting, value: Any, protocol: ChatProtocol) -> Any:
    """A form value made what its control holds (an option, a number); text stays as typed."""
    if setting.control in ("segmented", "select"):
        allowed = [v for v, _label in choices(setting, protocol)]
        return value if value in allowed else setting.default
    if setting.control == "number":
        number = whole(value)
        return number if setting.floor is None else max(int(setting.floor), number)
    if setting.control == "slider":
        return _float(setting, value)
    return value


def to_settings(setting: ChatSetting, value: Any) -> Any:
    """A coerced form value as ``ChatSettings`` holds it (stop lines become a tuple)."""
    if setting.control == "lines":
        return split_lines(str(value))
    if setting.control in ("text", "json"):
        return str(value)
    return value


def to_values(setting: ChatSetting, value: Any) -> Any:
    """A ``ChatSettings`` value as the form holds it (the reverse of ``to_settings``)."""
    if setting.control == "lines":
        return "\n".join(value)
    return value


def _sends_value(setting: ChatSetting, settings: ChatSettings) -> bool:
    """Offered, and chosen by its selector or not the value that sends nothing."""
    if not setting.offered(settings.protocol) or setting.send == "selector":
        return False
    when = setting.show_when
    if when is not None and when[1]:  # chosen by its selector: sent whatever its value
        return settings.get(when[0]) in when[1]
    return bool(settings.get(setting.key) != setting.unset)


def _put(body: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path (``thinking.budget_tokens``) in ``body``."""
    *heads, last = path.split(".")
    node = body
    for head in heads:
        node = node.setdefault(head, {})
    node[last] = value


def _get(body: dict[str, Any], path: str) -> Any:
    """The value at a dotted path of ``body`` (None when missing)."""
    node: Any = body
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _send_field(setting: ChatSetting, settings: ChatSettings, body: dict[str, Any]) -> bool:
    protocol = settings.protocol
    if _sends_value(setting, settings):
        value = settings.get(setting.key)
    elif protocol in setting.required_on:
        plus = chat_setting(setting.fallback_plus)
        extra = settings.get(plus.key) if plus and _sends_value(plus, settings) else 0
        value = DEFAULT_MAX_TOKENS + extra
    else:
        return False
    for path, constant in setting.also.items():
        _put(body, path, constant)
    _put(body, setting.wire[protocol], value)
    return True


def _send_lines(setting: ChatSetting, settings: ChatSettings, body: dict[str, Any]) -> bool:
    lines = settings.get(setting.key)
    if not _sends_value(setting, settings) or not lines:
        return False
    _put(body, setting.wire[settings.protocol], lines[0] if len(lines) == 1 else list(lines))
    return True


def _send_system(setting: ChatSetting, settings: ChatSettings, body: dict[str, Any]) -> bool:
    text = str(settings.get(setting.key)).strip()
    if not text:
        return False
    if settings.protocol == "messages":
        body[setting.wire["messages"]] = text
    else:
        body["messages"] = [{"role": "system", "content": text}, *body["messages"]]
    return True


def _send_tools(setting: ChatSetting, settings: ChatSettings, body: dict[str, Any]) -> bool:
    tools, problems = parse_tools(str(settings.get(setting.key)))
    if problems or not tools:
        return False
    _put(body, setting.wire[settings.protocol], wire_tools(tools, settings.protocol))
    return True


def _send_choice(setting: ChatSetting, settings: ChatSettings, body: dict[str, Any]) -> bool:
    wire = setting.wire_options.get(settings.protocol, {}).get(settings.get(setting.key))
    if wire is None or not _sends_value(setting, settings):
        return False
    _put(body, setting.wire[settings.protocol], wire)
    return True


_SENDERS: dict[str, Callable[[ChatSetting, ChatSettings, dict[str, Any]], bool]] = {
    "field": _send_field,
    "lines": _send_lines,
    "system": _send_system,
    "tools": _send_tools,
    "choice": _send_choice,
}


def write_settings(settings: ChatSettings, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (model and messages) with every declared setting the form sends added.

    Fields a protocol requires come first. A setting shown while another sent something
    (``show_when=(key, ())``, e.g. tool use while there are tools) is sent only when that
    one was.
    """
    sent: set[str] = set()
    protocol = settings.protocol
    for setting in sorted(CHAT_SETTINGS, key=lambda s: protocol not in s.required_on):
        when = setting.show_when
        if setting.send == "selector" or not setting.offered(protocol):
            continue
        if when is not None and not when[1] and when[0] not in sent:
            continue
        if _SENDERS[setting.send](setting, settings, body):
            sent.add(setting.key)
    return body


# --- the way back: a recorded body as form values -----------------------------------------


def _read_field(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    path = setting.wire.get(protocol)
    value = _get(body, path) if path else None
    if setting.control in ("number", "slider"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return setting.default
        return float(value) if setting.control == "slider" else int(value)
    return setting.default if value is None else str(value)


def _read_lines(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    value = _get(body, setting.wire[protocol]) if protocol in setting.wire else None
    if isinstance(value, str):
        return value
    return "\n".join(str(v) for v in value) if isinstance(value, list) else ""


def _read_system(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    system = body.get("system")
    text = system if isinstance(system, str) else ""
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") not in ("system", "developer"):
            continue
        if isinstance(message.get("content"), str):
            text = message["content"]
    return text


def _read_tools(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    tools = _get(body, setting.wire[protocol]) if protocol in setting.wire else None
    return json.dumps(tools, indent=2) if isinstance(tools, list) and tools else ""


def _read_choice(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    value = _get(body, setting.wire[protocol]) if protocol in setting.wire else None
    wire = value.get("type") if isinstance(value, dict) else value
    known: dict[Any, Any] = {}
    for table in setting.wire_options.values():
        for option, sent in table.items():
            known[sent.get("type") if isinstance(sent, dict) else sent] = option
    known.update(setting.read_aliases)
    return known.get(wire, setting.default) if isinstance(wire, str) else setting.default


def _read_selector(setting: ChatSetting, body: dict[str, Any], protocol: ChatProtocol) -> Any:
    """The last option one of whose settings the body holds (else the default)."""
    for option, _label in reversed(choices(setting, protocol)):
        for shown in shown_by(setting, option):
            path = shown.wire.get(protocol)
            if path and _get(body, path) is not None:
                return option
    return setting.default


_READERS: dict[str, Callable[[ChatSetting, dict[str, Any], ChatProtocol], Any]] = {
    "field": _read_field,
    "lines": _read_lines,
    "system": _read_system,
    "tools": _read_tools,
    "choice": _read_choice,
    "selector": _read_selector,
}


def read_settings(body: dict[str, Any], protocol: ChatProtocol) -> dict[str, Any]:
    """The form values of every declared setting in a recorded ``body`` of ``protocol``."""
    return {s.key: _READERS[s.send](s, body, protocol) for s in CHAT_SETTINGS}


# --- the declared rules --------------------------------------------------------------------


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def declared_problems(settings: ChatSettings, reply_limit: int | None) -> list[Problem]:
    """Each sent setting checked against its declared bounds (the form's own check, so a
    setting the request validators do not know is checked too)."""
    found: list[Problem] = []
    for setting in CHAT_SETTINGS:
        if not _sends_value(setting, settings):
            continue
        value = settings.get(setting.key)
        if setting.control in ("number", "slider"):
            high = setting.maximum_for(settings.protocol)
            if setting.reply_limit and reply_limit is not None:
                high = reply_limit if high is None else min(high, reply_limit)
            if setting.minimum is not None and value < setting.minimum:
                found.append(Problem(setting.key, f"must be at least {_number(setting.minimum)}"))
            elif high is not None and value > high:
                found.append(Problem(setting.key, f"must be at most {_number(high)}"))
        elif setting.max_items is not None and len(value) > setting.max_items:
            found.append(Problem(setting.key, f"takes at most {setting.max_items}"))
    return found
