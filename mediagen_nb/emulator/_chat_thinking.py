"""Extended thinking (messages, ``thinking`` enabled/adaptive): a short reasoning text about
the question within ``budget_tokens``, signed (a block sent back with a wrong signature gets
a 400, as the protocol does); a question holding Anthropic's test trigger gets it as opaque
``redacted_thinking`` data (the signed text, base64).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

_SIGN_KEY = b"mediagen-emulator-thinking-v1:"


REDACTED_THINKING_TRIGGER = (
    "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_"
    "46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"
)
"""The string Anthropic documents for testing redacted thinking."""


def redacted_data(thinking: str) -> str:
    """The opaque ``data`` of a redacted thinking block (its text and signature, encoded)."""
    blob = json.dumps([thinking, sign_thinking(thinking)]).encode()
    return base64.b64encode(blob).decode()


def sign_thinking(thinking: str) -> str:
    """The signature of a thinking text (base64 of a keyed SHA-256)."""
    return base64.b64encode(hashlib.sha256(_SIGN_KEY + thinking.encode()).digest()).decode()


def thinking_text(question: str, budget: int) -> str:
    """A short, deterministic reasoning text about ``question``, at most ``budget`` tokens."""
    topic = " ".join(question.split())[:160] or "an empty message"
    text = (
        f"The user asks: “{topic}”. First I identify what is being asked and which terms "
        "matter most. Then I check whether a tool is needed or whether I can answer "
        "directly. I will keep the answer short, concrete and friendly, and end with a "
        "pointer for a follow-up."
    )
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    return text if len(ends) <= budget else text[: ends[max(budget, 1) - 1]]


def thinking_budget(body: dict[str, Any]) -> int | None:
    """Budget of extended thinking (``adaptive``: a quarter of max_tokens), or None when off."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict):
        return None
    if thinking.get("type") == "enabled":
        return int(thinking.get("budget_tokens") or 0)
    if thinking.get("type") == "adaptive":
        return max(16, int(body.get("max_tokens") or 0) // 4)
    return None


def bad_signature(body: dict[str, Any]) -> str | None:
    """The field of a thinking block sent back with a wrong signature, else None."""
    for m_index, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for b_index, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "thinking":
                text = block.get("thinking")
                if not isinstance(text, str) or block.get("signature") != sign_thinking(text):
                    return f"messages.{m_index}.content.{b_index}"
    return None
