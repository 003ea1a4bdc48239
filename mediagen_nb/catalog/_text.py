"""Text models: every name the spec's table allows, their suffix variants and capabilities.

The spec lists base names per vendor and which suffix variants each base is offered in. A
name exists only where the table says so: ``gpt-5.5-low`` exists, ``claude-opus-4-7-low``
does not, and the two flash-lite Gemini models have no variants at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Vendor = Literal["gpt", "claude", "gemini"]
Variant = Literal["standard", "official", "hc", "fd", "low"]
ChatProtocol = Literal["chat_completions", "messages"]
"""The two chat protocols: OpenAI-compatible chat completions and Anthropic-compatible messages."""

VARIANT_SUFFIX: dict[Variant, str] = {
    "standard": "",
    "official": "-official",
    "hc": "-hc",
    "fd": "-fd",
    "low": "-low",
}

VARIANT_MEANING: dict[Variant, str] = {
    "standard": "standard",
    "official": "official version",
    "hc": "high-quality pool (premium account pool)",
    "fd": "proxy / mixed account pool",
    "low": "budget version",
}

_OFFERS: tuple[tuple[Vendor, tuple[str, ...], tuple[Variant, ...]], ...] = (
    ("gpt", ("gpt-5.4", "gpt-5.5"), ("standard", "official", "hc", "fd", "low")),
    (
        "claude",
        (
            "claude-haiku-4-5",
            "claude-opus-4-5",
            "claude-opus-4-6",
            "claude-opus-4-7",
            "claude-sonnet-4-5",
            "claude-sonnet-4-6",
        ),
        ("standard", "official", "hc", "fd"),
    ),
    (
        "gemini",
        ("gemini-2.5-pro", "gemini-3-flash-preview", "gemini-3.1-pro-preview"),
        ("standard", "official", "low"),
    ),
    ("gemini", ("gemini-2.5-flash-lite", "gemini-3.1-flash-lite-preview"), ("standard",)),
)

VENDOR_TITLE: dict[Vendor, str] = {"gpt": "GPT", "claude": "Claude", "gemini": "Gemini"}

MAX_OUTPUT_TOKENS: dict[str, int] = {
    "gpt-5.4": 128_000,
    "gpt-5.5": 128_000,
    "claude-haiku-4-5": 64_000,
    "claude-opus-4-5": 64_000,
    "claude-opus-4-6": 128_000,
    "claude-opus-4-7": 128_000,
    "claude-sonnet-4-5": 64_000,
    "claude-sonnet-4-6": 128_000,
    "gemini-2.5-pro": 65_536,
    "gemini-3-flash-preview": 65_536,
    "gemini-3.1-pro-preview": 65_536,
    "gemini-2.5-flash-lite": 65_536,
    "gemini-3.1-flash-lite-preview": 65_536,
}
"""Longest reply of each base model, in tokens (every suffix variant shares its base's).

Decision: the spec shows no output limit, so these are the vendors' published maxima for
the base models (Nov 2026, as LangChain's model profiles and LiteLLM's model map list them,
so their SDKs' defaults pass); the validators bound ``max_completion_tokens`` /
``max_tokens`` by them and the chat form shows the range.
"""


@dataclass(frozen=True)
class TextModel:
    """One chat model name with what the spec says it can do.

    Attributes:
        name: The model name (``claude-sonnet-4-6``).
        vendor: ``gpt``, ``claude`` or ``gemini``.
        base: The name without its variant suffix.
        variant: The suffix's kind (see ``variant_meaning``).
    """

    name: str
    vendor: Vendor
    base: str
    variant: Variant

    @property
    def variant_meaning(self) -> str:
        """Plain-words meaning of the name's suffix."""
        return VARIANT_MEANING[self.variant]

    @property
    def max_output_tokens(self) -> int:
        """The longest reply this model gives, in tokens (``MAX_OUTPUT_TOKENS``)."""
        return MAX_OUTPUT_TOKENS[self.base]

    @property
    def endpoints(self) -> tuple[ChatProtocol, ...]:
        """Endpoints that accept this model (messages: Claude and GPT only)."""
        if self.vendor == "gemini":
            return ("chat_completions",)
        return ("chat_completions", "messages")

    @property
    def image_input_chat(self) -> bool:
        """Image analysis on chat-completions: all models."""
        return True

    @property
    def video_input_chat(self) -> bool:
        """Video analysis on chat-completions: Gemini models only."""
        return self.vendor == "gemini"

    @property
    def image_input_messages(self) -> bool:
        """Image analysis on the messages endpoint: not for GPT models (nor Gemini)."""
        return self.vendor == "claude"

    def describe(self) -> str:
        """One line for pickers and docs."""
        media = "images + video" if self.video_input_chat else "images"
        protocols = " and messages" if "messages" in self.endpoints else ""
        return f"{self.name}: {self.variant_meaning}; chat-completions{protocols}; input {media}"


def _build() -> dict[str, TextModel]:
    models: dict[str, TextModel] = {}
    for vendor, bases, variants in _OFFERS:
        for base in bases:
            for variant in variants:
                name = base + VARIANT_SUFFIX[variant]
                models[name] = TextModel(name=name, vendor=vendor, base=base, variant=variant)
    return models


TEXT_MODELS: dict[str, TextModel] = _build()
"""Every text model name the service offers, in the spec's table order."""


def text_model(name: str) -> TextModel | None:
    """The catalog entry for ``name``, or None when the spec does not list it.

    Args:
        name: A text model name.

    Returns:
        Its entry, or None.
    """
    return TEXT_MODELS.get(name)


def text_vendor_of(name: str) -> Vendor | None:
    """Vendor by name prefix, also for names newer than the catalog (``gpt-6``...).

    Args:
        name: A text model name.

    Returns:
        ``gpt``, ``claude`` or ``gemini``; None for another prefix.
    """
    vendors: tuple[Vendor, ...] = ("gpt", "claude", "gemini")
    for vendor in vendors:
        if name.startswith(vendor + "-"):
            return vendor
    return None
