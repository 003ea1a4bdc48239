"""Claims and reservations: a budget check and what it holds, one step of the ledger.

A request claims what it may use before it is forwarded (a task: one image or video and one
of the tasks at a time; a chat: its prompt plus its ``max_tokens``); ``ClassLedger.reserve``
checks and keeps it in one transaction, and the request ends by settling or releasing it.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from mediagen_nb.classroom._rules import (
    Rules,
    Usage,
    chat_refusal,
    model_refusal,
    paused_refusal,
    task_refusal,
)

BudgetKind = Literal["image", "video", "chat"]
CHARS_PER_TOKEN: Final = 4
"""The token estimate where the service reports none: about four characters per token."""
MODEL_CHARS: Final = 100
"""A model name longer than this is cut where it is kept (a refusal, the ledger)."""


def excerpt(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (an ellipsis marks the cut)."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def model_name(model: object) -> str:
    """The model a request names, as kept (``str`` of it, cut to ``MODEL_CHARS``)."""
    return excerpt(str(model), MODEL_CHARS)


def estimate_tokens(chars: int) -> int:
    """Tokens in ``chars`` characters (bytes) of text, rounded up."""
    return -(-chars // CHARS_PER_TOKEN)


def prompt_tokens(raw: bytes) -> int:
    """Tokens of a request body taken whole as prompt: every byte over ``CHARS_PER_TOKEN``
    (JSON syntax included, so usually above the service's count), plus one for every two
    bytes outside ASCII (Chinese or Japanese take a token or more per character)."""
    outside_ascii = len(raw) - len(raw.decode("ascii", errors="ignore"))
    return estimate_tokens(len(raw)) + -(-outside_ascii // 2)


def chat_claim_amount(body: Any, raw: bytes, default: int) -> int:
    """Tokens a chat request holds while it runs: its body as prompt (:func:`prompt_tokens`)
    plus the most it may write (``max_tokens`` / ``max_completion_tokens``, else
    ``default``)."""
    most = default
    if isinstance(body, dict):
        for name in ("max_completion_tokens", "max_tokens"):
            value = body.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                most = value
                break
    return prompt_tokens(raw) + most


@dataclass(frozen=True)
class Claim:
    """What one request asks to hold."""

    student: str
    kind: BudgetKind
    amount: int
    """1 for a task; tokens for a chat."""
    model: object = None
    """The model the request names (checked against the allow-list; kept cut)."""
    what: str = ""
    """The family id or the chat path (for the ledger)."""
    groups: tuple[str, ...] = ()
    """The student's JupyterHub groups (their limits may come from one)."""


@dataclass(frozen=True)
class Reservation:
    """A claim the ledger accepted and holds until it is settled or released."""

    claim: Claim
    id: str = field(default_factory=lambda: "r-" + secrets.token_hex(8))
    created: float = field(default_factory=time.time)

    @property
    def student(self) -> str:
        """Whose reservation it is."""
        return self.claim.student


def refusal(rules: Rules, claim: Claim, mine: Usage, everyone: Usage | None) -> str | None:
    """Why ``claim`` is refused under ``rules`` (usage counts what is held), or None.

    ``everyone`` may be None when :func:`needs_class_usage` is false.
    """
    found = paused_refusal(rules) or model_refusal(rules, claim.model)
    if found is not None:
        return found
    whole = everyone if everyone is not None else Usage()
    if claim.kind == "chat":
        return chat_refusal(rules, claim.student, mine, whole, groups=claim.groups)
    return task_refusal(rules, claim.student, claim.kind, mine, whole, groups=claim.groups)


def needs_class_usage(rules: Rules, kind: BudgetKind) -> bool:
    """Whether checking a claim of ``kind`` needs the whole class's usage."""
    cap = rules.class_limits
    if kind == "chat":
        return cap.chat_tokens is not None
    return cap.concurrent is not None or (cap.images if kind == "image" else cap.videos) is not None
