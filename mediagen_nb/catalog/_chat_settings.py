"""The chat form's settings as data: what the user sees, the wire field per protocol, the rule.

``CHAT_SETTINGS`` lists them in the form's order; ``register_chat_setting`` adds one at run
time (the form, its validation, the request body and the way back follow).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mediagen_nb.catalog._params import CHAT_MAX_STOP, CHAT_TEMPERATURE
from mediagen_nb.catalog._text import ChatProtocol

ChatControl = Literal["text", "lines", "json", "number", "slider", "segmented", "select"]
"""How the front end draws a setting (``lines``: one value per line; ``json``: monospace)."""
ChatSend = Literal["field", "lines", "system", "tools", "choice", "selector"]
"""How a value reaches the body: a field at a dotted path, stop-like lines (one is a string),
the system prompt (a field, or a first message), the tools array (each protocol's shape), an
option's wire value, or nothing (a selector decides which settings show)."""

DEFAULT_MAX_TOKENS = 1024
"""The messages protocol's ``max_tokens`` when the form leaves the length empty."""
MIN_THINKING_BUDGET = 1024
"""The messages protocol's smallest ``thinking.budget_tokens``."""
CHAT_PROTOCOLS: tuple[ChatProtocol, ...] = ("chat_completions", "messages")
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
"""What "Insert example" puts into the tools box."""


@dataclass(frozen=True)
class ChatSetting:
    """One setting of the chat form and how it maps to and from each protocol's body."""

    key: str
    """Its name in the form's values."""
    control: ChatControl
    label: str
    help: str = ""
    wire: Mapping[ChatProtocol, str] = field(default_factory=dict, compare=False)
    """The body field (dotted path) per protocol; a protocol not listed does not offer it."""
    send: ChatSend = "field"
    default: Any = ""
    off: Any = None
    """The value that sends nothing (None: the default)."""
    minimum: float | None = None
    maximum: float | None = None
    maximum_by: Mapping[ChatProtocol, float] = field(default_factory=dict, compare=False)
    """A protocol's own maximum (else ``maximum``)."""
    reply_limit: bool = False
    """The maximum is the model's longest reply (the catalog's ``max_output_tokens``)."""
    floor: float | None = None
    """A typed number below this becomes it (None: kept, for the validator to name)."""
    step: float | None = None
    max_items: int | None = None
    placeholder: str = ""
    example: str = ""
    """A whole value the form offers to insert ("Insert example")."""
    api: str = ""
    """The API name(s) the tooltip shows; "" joins the wire fields."""
    aliases: tuple[str, ...] = ()
    """API names that mean this setting in a validator's problem (its field, or a word of its
    rule): the message names the setting's label instead."""
    options: tuple[tuple[Any, str], ...] = ()
    """``(value, label)`` of a segmented or select control."""
    wire_options: Mapping[ChatProtocol, Mapping[Any, Any]] = field(
        default_factory=dict, compare=False
    )
    """A choice's wire value per protocol and option (an option not listed sends nothing)."""
    read_aliases: Mapping[Any, Any] = field(default_factory=dict, compare=False)
    """More wire values (or their ``type``) read back as an option."""
    also: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Constant fields sent before the value, beside it (``thinking.type: enabled``)."""
    required_on: tuple[ChatProtocol, ...] = ()
    """Protocols where the field is always sent: ``DEFAULT_MAX_TOKENS`` (plus the value of
    ``fallback_plus`` when that setting is sent) when the value is off."""
    fallback_plus: str = ""
    show_when: tuple[str, tuple[Any, ...]] | None = None
    """``(key, values)``: offered while ``values[key]`` is one of ``values``; ``(key, ())``:
    sent only when ``key`` sent something."""

    @property
    def unset(self) -> Any:
        """The value that sends nothing."""
        return self.default if self.off is None else self.off

    def offered(self, protocol: ChatProtocol) -> bool:
        """Whether the protocol takes this setting (a selector: always)."""
        return self.send == "selector" or protocol in self.wire

    def maximum_for(self, protocol: ChatProtocol) -> float | None:
        """The upper bound on ``protocol`` (without the model's reply limit)."""
        return self.maximum_by.get(protocol, self.maximum)

    @property
    def api_name(self) -> str:
        """What the tooltip names: ``max_completion_tokens / max_tokens``."""
        if self.api or self.send == "selector":
            return self.api
        return " / ".join(dict.fromkeys(self.wire[p] for p in CHAT_PROTOCOLS if p in self.wire))


_SAMPLING = ChatSetting(
    "sampling",
    "segmented",
    "Sampling",
    "Leave on Default unless you want to steer variety.",
    send="selector",
    default="default",
    options=(("default", "Default"), ("temperature", "Temperature"), ("top_p", "Top P")),
)
CHAT_SETTINGS: list[ChatSetting] = [
    ChatSetting(
        "system",
        "text",
        "System prompt",
        "Instructions the model follows for the whole conversation.",
        wire={"chat_completions": "messages", "messages": "system"},
        send="system",
        api="system",
        placeholder="e.g. You are a concise tutor.",
    ),
    _SAMPLING,
    ChatSetting(
        "temperature",
        "slider",
        "Temperature",
        "Higher gives more varied replies, lower more focused.",
        wire={"chat_completions": "temperature", "messages": "temperature"},
        default=1.0,
        minimum=CHAT_TEMPERATURE[0],
        maximum=CHAT_TEMPERATURE[1],
        maximum_by={"messages": 1.0},
        step=0.05,
        show_when=("sampling", ("temperature",)),
    ),
    ChatSetting(
        "top_p",
        "slider",
        "Top P",
        "Only the most likely words whose chances add up to this.",
        wire={"chat_completions": "top_p"},
        default=1.0,
        minimum=0.0,
        maximum=1.0,
        step=0.05,
        show_when=("sampling", ("top_p",)),
    ),
    ChatSetting(
        "max_tokens",
        "number",
        "Max reply length",
        "In tokens (about ¾ of a word), at least 1. Empty: the service's default.",
        wire={"chat_completions": "max_completion_tokens", "messages": "max_tokens"},
        default=0,
        minimum=1,
        reply_limit=True,
        step=1,
        placeholder="default",
        aliases=("max_completion_tokens", "max_tokens"),
        required_on=("messages",),
        fallback_plus="thinking_budget",
    ),
    ChatSetting(
        "stop",
        "lines",
        "Stop sequences",
        f"One per line, at most {CHAT_MAX_STOP}; the reply ends before one.",
        wire={"chat_completions": "stop"},
        send="lines",
        max_items=CHAT_MAX_STOP,
        aliases=("stop_sequences",),
        placeholder="one per line",
    ),
    ChatSetting(
        "tools",
        "json",
        "Tools",
        "A JSON array of tools (either protocol's shape); the model may ask to call one.",
        wire={"chat_completions": "tools", "messages": "tools"},
        send="tools",
        placeholder='[{"name": "get_weather", "parameters": {"type": "object"}}]',
        example=TOOLS_EXAMPLE,
    ),
    ChatSetting(
        "tool_choice",
        "select",
        "Tool use",
        "Whether the model may, must or must not call a tool.",
        wire={"chat_completions": "tool_choice", "messages": "tool_choice"},
        send="choice",
        default="auto",
        options=(
            ("auto", "Model decides"),
            ("required", "Must call a tool"),
            ("none", "No tool calls"),
        ),
        wire_options={
            "chat_completions": {"required": "required", "none": "none"},
            "messages": {"required": {"type": "any"}, "none": {"type": "none"}},
        },
        read_aliases={"any": "required", "tool": "required"},
        show_when=("tools", ()),
    ),
    ChatSetting(
        "thinking_budget",
        "number",
        "Thinking budget",
        f"Tokens the model may spend thinking before it answers; 0 is off, else at least "
        f"{MIN_THINKING_BUDGET}.",
        wire={"messages": "thinking.budget_tokens"},
        default=0,
        minimum=MIN_THINKING_BUDGET,
        floor=0,
        step=256,
        placeholder="0 (off)",
        aliases=("budget_tokens",),
        also={"thinking.type": "enabled"},
    ),
]
"""Every setting of the chat form, in the form's order (model, protocol, attachments and the
message are the form's own)."""


def chat_setting(key: str) -> ChatSetting | None:
    """The declared setting named ``key`` (None when there is none).

    Args:
        key: The setting's name in the form's values.

    Returns:
        Its declaration, or None.
    """
    return next((s for s in CHAT_SETTINGS if s.key == key), None)


def register_chat_setting(setting: ChatSetting) -> Callable[[], None]:
    """Add a setting to the chat form at run time (after the declared ones).

    Args:
        setting: The declaration.

    Returns:
        The function that removes it again.

    Raises:
        ValueError: A setting of that name is already declared.
    """
    if chat_setting(setting.key) is not None:
        raise ValueError(f"chat setting {setting.key!r} is already declared")
    CHAT_SETTINGS.append(setting)

    def remove() -> None:
        CHAT_SETTINGS[:] = [s for s in CHAT_SETTINGS if s is not setting]

    return remove
