"""The chat form as data: its default values, their coercion, and what the front end offers.

Every setting's control, label, bounds and default come from the catalog's ``CHAT_SETTINGS``;
the model picker, protocols and attachment kinds from the text models' capabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mediagen_nb.catalog._chat_settings import CHAT_SETTINGS, ChatSetting
from mediagen_nb.types import ChatProtocol
from mediagen_nb.widgets._chat_fields import choices, coerce_value, to_settings
from mediagen_nb.widgets._chat_options import (
    FIELDS,
    FILE_TYPES,
    MAX_FILE_BYTES,
    PROTOCOL_HELP,
    PROTOCOL_LABELS,
    SETTING_FIELDS,
    Attachment,
    ChatSettings,
    attachment_kinds,
    capability_hint,
    max_tokens_help,
    model_groups,
    model_title,
    protocols_for,
    reply_limit,
    takes_thinking,
)

DEFAULT_MODEL = "claude-sonnet-4-6"


def defaults() -> dict[str, Any]:
    """The form's values before the user changes anything (every declared setting's default).

    Returns:
        ``{field: value}``: model, protocol, the settings, and an empty message.
    """
    settings = {s.key: s.default for s in CHAT_SETTINGS}
    return {"model": DEFAULT_MODEL, "protocol": "chat_completions", **settings, "message": ""}


def coerce(values: dict[str, Any]) -> dict[str, Any]:
    """The values made consistent with the model (protocol, options, numbers)."""
    v = {**defaults(), **values}
    allowed = protocols_for(str(v["model"]))
    if v["protocol"] not in allowed:
        v["protocol"] = allowed[0]
    for setting in CHAT_SETTINGS:
        v[setting.key] = coerce_value(setting, v[setting.key], v["protocol"])
    return v


def _fields(model: str) -> dict[str, dict[str, str]]:
    """Each field's label, help, API name and placeholder; the reply length's help gives the
    model's range."""
    out = {
        k: {"label": f.label, "help": f.help, "api": f.api, "placeholder": f.placeholder}
        for k, f in FIELDS.items()
    }
    high = reply_limit(model)
    if high is not None:
        for setting in CHAT_SETTINGS:
            if setting.reply_limit:
                out[setting.key]["help"] = max_tokens_help(high)
    return out


def settings_of(values: dict[str, Any], attachments: Sequence[Attachment] = ()) -> ChatSettings:
    """The form's choices as ``ChatSettings`` (values coerced first)."""
    v = coerce(values)
    typed = {s.key: to_settings(s, v[s.key]) for s in CHAT_SETTINGS}
    return ChatSettings(
        model=str(v["model"]),
        protocol=v["protocol"],
        attachments=tuple(attachments),
        **{k: value for k, value in typed.items() if k in SETTING_FIELDS},
        extra={k: value for k, value in typed.items() if k not in SETTING_FIELDS},
    )


def _control(setting: ChatSetting, protocol: ChatProtocol, model: str) -> dict[str, Any]:
    """One setting as the front end draws it on this protocol, for this model."""
    high = setting.maximum_for(protocol)
    limit = reply_limit(model) if setting.reply_limit else None
    if limit is not None:
        high = limit if high is None else min(high, limit)
    when = setting.show_when
    return {
        "key": setting.key,
        "control": setting.control,
        "offered": setting.offered(protocol),
        "options": [{"value": v, "label": t} for v, t in choices(setting, protocol)],
        "minimum": setting.minimum,
        "maximum": high,
        "step": setting.step,
        "floor": setting.floor,
        "off": setting.unset,
        "example": setting.example,
        "show_when": None if when is None else {"key": when[0], "in": list(when[1])},
    }


def form_spec(settings: ChatSettings) -> dict[str, Any]:
    """What the front end offers for these settings (the synced ``spec`` trait)."""
    model, protocol = settings.model, settings.protocol
    allowed = protocols_for(model)
    controls = [_control(s, protocol, model) for s in CHAT_SETTINGS]
    by_key = {c["key"]: c for c in controls}
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
        "settings": controls,
        "sampling": by_key["sampling"]["options"] if "sampling" in by_key else [],
        "stop": "stop" in by_key and by_key["stop"]["offered"],
        "kinds": list(attachment_kinds(model, protocol)),
        "thinking": takes_thinking(protocol),
        "capability": capability_hint(model, protocol),
        "title": model_title(model),
        "fields": _fields(model),
        "max_tokens_max": reply_limit(model),
        "file_types": sorted(FILE_TYPES),
        "max_file_bytes": MAX_FILE_BYTES,
    }
