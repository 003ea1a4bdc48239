"""The chat form as data: its default values, their coercion, and what the front end offers.

``values`` (the synced dict the front end edits) becomes ``ChatSettings`` here; ``coerce``
makes values consistent with the model (a protocol it is served on, a sampling mode the
protocol has, numbers that are numbers); ``form_spec`` is what the front end renders: model
groups with readable titles, protocols, sampling modes, attachment kinds, whether thinking is
offered, and each field's label, help and API name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mediagen_nb.widgets._chat_options import (
    FIELDS,
    FILE_TYPES,
    MAX_FILE_BYTES,
    MAX_STOP,
    PROTOCOL_HELP,
    PROTOCOL_LABELS,
    SAMPLING_LABELS,
    TOOL_CHOICES,
    TOOLS_EXAMPLE,
    Attachment,
    ChatSettings,
    attachment_kinds,
    capability_hint,
    max_tokens_help,
    model_groups,
    model_title,
    protocols_for,
    reply_limit,
    sampling_for,
    split_lines,
    takes_thinking,
)

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULTS: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "protocol": "chat_completions",
    "system": "",
    "sampling": "default",
    "temperature": 1.0,
    "top_p": 1.0,
    "max_tokens": 0,
    "stop": "",
    "tools": "",
    "tool_choice": "auto",
    "thinking_budget": 0,
    "message": "",
}


def coerce(values: dict[str, Any]) -> dict[str, Any]:
    """The values made consistent with the model (protocol, sampling, numbers)."""
    v = {**DEFAULTS, **values}
    allowed = protocols_for(str(v["model"]))
    if v["protocol"] not in allowed:
        v["protocol"] = allowed[0]
    if v["sampling"] not in sampling_for(v["protocol"]):
        v["sampling"] = "default"
    if v["tool_choice"] not in dict(TOOL_CHOICES):
        v["tool_choice"] = "auto"
    v["max_tokens"] = _whole(v["max_tokens"])  # a bad length stays, for the validator to name
    v["thinking_budget"] = max(0, _whole(v["thinking_budget"]))
    for name in ("temperature", "top_p"):
        try:
            v[name] = float(v[name])
        except (TypeError, ValueError):
            v[name] = 1.0
    return v


def _whole(value: Any) -> int:
    """A whole number typed in the form; empty or unreadable is 0 ("not set")."""
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        return int(float(value))
    except (TypeError, ValueError, OverflowError):
        return 0


def _fields(model: str) -> dict[str, dict[str, str]]:
    """Each field's label, help, API name and placeholder; the reply length's help gives the
    model's range."""
    out = {
        k: {"label": f.label, "help": f.help, "api": f.api, "placeholder": f.placeholder}
        for k, f in FIELDS.items()
    }
    high = reply_limit(model)
    if high is not None:
        out["max_tokens"]["help"] = max_tokens_help(high)
    return out


def settings_of(values: dict[str, Any], attachments: Sequence[Attachment] = ()) -> ChatSettings:
    """The form's choices as ``ChatSettings`` (values coerced first)."""
    v = coerce(values)
    return ChatSettings(
        model=str(v["model"]),
        protocol=v["protocol"],
        system=str(v["system"]),
        sampling=v["sampling"],
        temperature=float(v["temperature"]),
        top_p=float(v["top_p"]),
        max_tokens=int(v["max_tokens"]),
        stop=split_lines(str(v["stop"])),
        attachments=tuple(attachments),
        tools=str(v["tools"]),
        tool_choice=v["tool_choice"],
        thinking_budget=int(v["thinking_budget"]),
    )


def form_spec(settings: ChatSettings) -> dict[str, Any]:
    """What the front end offers for these settings (the synced ``spec`` trait)."""
    model, protocol = settings.model, settings.protocol
    allowed = protocols_for(model)
    return {
        "models": model_groups(),
        "protocols": [
            {
                "value": p,
                "label": PROTOCOL_LABELS[p],
                "title": PROTOCOL_HELP[p],
                "disabled": p not in allowed,
            }
            for p in PROTOCOL_LABELS
        ],
        "sampling": [{"value": s, "label": SAMPLING_LABELS[s]} for s in sampling_for(protocol)],
        "temperature_max": 2.0 if protocol == "chat_completions" else 1.0,
        "stop": protocol == "chat_completions",
        "max_stop": MAX_STOP,
        "kinds": list(attachment_kinds(model, protocol)),
        "thinking": takes_thinking(protocol),
        "tool_choices": [{"value": c, "label": t} for c, t in TOOL_CHOICES],
        "tools_example": TOOLS_EXAMPLE,
        "capability": capability_hint(model, protocol),
        "title": model_title(model),
        "fields": _fields(model),
        "max_tokens_max": reply_limit(model),
        "file_types": sorted(FILE_TYPES),
        "max_file_bytes": MAX_FILE_BYTES,
    }
