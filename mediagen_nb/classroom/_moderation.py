"""Moderation a teacher controls: prompt rules checked before forwarding, and approval.

A rule is a word or phrase matched as whole words in any case, or ``re:PATTERN``; the rule
syntax and its bounds are on the docs' gateway page (Moderation).
"""

from __future__ import annotations

import logging
import re
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

NEUTRAL_REFUSAL: Final = "Your class's teacher has not allowed this prompt."
"""What a student reads when a rule refuses their prompt (it never names the rule)."""
PATTERN_PREFIX: Final = "re:"
"""Marks a rule as a regular expression searched anywhere, in any case."""
MAX_RULES: Final = 500
MAX_RULE_CHARS: Final = 200
"""Rules (``blocked=[...]`` or ``--block FILE``, one a line, ``#`` lines skipped) are at most
``MAX_RULES`` of ``MAX_RULE_CHARS`` characters."""
MATCH_BUDGET_S: Final = 0.1
"""Time all ``re:`` patterns together may take on one request (bodies are at most 1 MiB)."""
RECENT_REFUSALS: Final = 200
"""Refused prompts the teacher's views list (the ledger keeps every one as an event)."""
_WORD = re.compile(r"\w+")
log = logging.getLogger("mediagen_nb.classroom")


def _words(text: str) -> str:
    """``text`` as its words, folded, each between single spaces (" a red apple ")."""
    return " " + " ".join(_WORD.findall(text.casefold())) + " "


def _compile_pattern(rule: str) -> Any:
    """A ``regex`` pattern (its search takes a timeout, which ``re`` lacks)."""
    try:
        import regex
    except ImportError as error:  # pragma: no cover - a dependency on CPython
        raise ValueError("blocked patterns (re:...) need the regex package") from error
    try:
        return regex.compile(rule[len(PATTERN_PREFIX) :], regex.IGNORECASE)
    except regex.error as error:
        message = f"blocked rule {rule!r} is not a regular expression: {error}"
        raise ValueError(message) from None


@dataclass(frozen=True)
class _Rules:
    """Compiled rules: words and phrases as folded word strings (one pass over the text),
    a rule with other characters as a regular expression, and the ``re:`` patterns."""

    phrases: tuple[tuple[str, str], ...]
    literals: tuple[tuple[str, re.Pattern[str]], ...]
    patterns: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, rules: Iterable[str]) -> _Rules:
        phrases, literals, patterns = [], [], []
        for rule in rules:
            if rule.startswith(PATTERN_PREFIX):
                patterns.append((rule, _compile_pattern(rule)))
            elif _words(rule).strip() == " ".join(rule.casefold().split()):
                phrases.append((rule, _words(rule)))
            else:  # punctuation in the rule ("f*ck", "c++"): whole words around it
                words = r"\s+".join(re.escape(part) for part in rule.split())
                literals.append((rule, re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE)))
        return cls(tuple(phrases), tuple(literals), tuple(patterns))

    def match(self, text: str) -> str | None:
        folded = _words(text)
        single = set(folded.split())
        for rule, words in self.phrases:
            if words.count(" ") == 2:  # one word: a set lookup
                if words.strip() in single:
                    return rule
            elif words in folded:
                return rule
        for rule, literal in self.literals:
            if literal.search(text):
                return rule
        deadline = time.monotonic() + MATCH_BUDGET_S
        for rule, pattern in self.patterns:
            try:
                if pattern.search(text, timeout=max(0.001, deadline - time.monotonic())):
                    return rule
            except TimeoutError:
                log.warning("the rule %r took too long; the prompt is refused", rule)
                return rule
        return None


def check_rules(rules: Iterable[str]) -> tuple[str, ...]:
    """The rules cleaned (stripped, empty and duplicate ones dropped) and checked.

    Args:
        rules: words, phrases or ``re:`` patterns.

    Returns:
        The rules as kept.

    Raises:
        ValueError: too many rules, one too long, or a pattern that does not compile.
    """
    kept = tuple(dict.fromkeys(r.strip() for r in rules if r.strip()))
    if len(kept) > MAX_RULES:
        raise ValueError(f"blocked: at most {MAX_RULES} rules, not {len(kept)}")
    for rule in kept:
        if len(rule) > MAX_RULE_CHARS:
            raise ValueError(f"blocked rule {rule[:40]!r}... is longer than {MAX_RULE_CHARS}")
        if rule == PATTERN_PREFIX:
            raise ValueError("blocked rule 're:' has no pattern after it")
    _Rules.of(kept)  # every pattern compiles
    return kept


def read_rules(text: str) -> list[str]:
    """Rules from a ``--block`` file's text (one a line, ``#`` comments skipped)."""
    return [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]


@dataclass
class Moderation:
    """A class's prompt rules and approval switch, and the refusals the teacher sees."""

    blocked: tuple[str, ...] = ()
    approve: bool = False
    """True: the wall shows only items the teacher approved."""
    refusals: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT_REFUSALS))
    _rules: _Rules = field(default_factory=lambda: _Rules((), (), ()), repr=False)

    def __post_init__(self) -> None:
        self.blocked = check_rules(self.blocked)
        self._rules = _Rules.of(self.blocked)

    def match(self, texts: Iterable[str]) -> str | None:
        """The first rule any of ``texts`` breaks, or None."""
        read = "\n".join(texts)
        return self._rules.match(read) if read and self.blocked else None

    def public(self, task: Any) -> bool:
        """Whether a task's result may be shown to everyone (wall, feed, export, media)."""
        return not task.hidden and (task.approved or not self.approve)

    def updated(self, blocked: Iterable[str] | None, approve: bool | None) -> Moderation:
        """A copy with new rules or approval (None keeps this one's); refusals not copied."""
        return Moderation(
            self.blocked if blocked is None else tuple(blocked),
            self.approve if approve is None else bool(approve),
        )

    def to_json(self) -> dict[str, Any]:
        """The setting kept in the ledger."""
        return {"blocked": list(self.blocked), "approve": self.approve}

    @classmethod
    def from_json(cls, data: Any) -> Moderation:
        """Inverse of :meth:`to_json` (an empty moderation for anything else)."""
        if not isinstance(data, dict):
            return cls()
        return cls(tuple(data.get("blocked") or ()), bool(data.get("approve", False)))


def create_texts(body: Any) -> list[str]:
    """The prompt texts of an image or video create (every text part for seedance)."""
    if not isinstance(body, dict):
        return []
    texts = [body["prompt"]] if isinstance(body.get("prompt"), str) else []
    for part in body.get("content") or ():
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return texts


def _has_text(part: Any) -> bool:
    return isinstance(part, dict) and isinstance(part.get("text"), str)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [p["text"] for p in content if _has_text(p)]
    return []


def chat_texts(body: Any) -> list[str]:
    """Every text a chat request carries, any role, and Anthropic's ``system``: the student
    writes all of it (an earlier "assistant" turn too), so all of it is checked."""
    if not isinstance(body, dict):
        return []
    texts = _texts(body.get("system"))
    for message in body.get("messages") or ():
        if isinstance(message, dict):
            texts += _texts(message.get("content"))
    return texts


def last_user_text(body: Any) -> str:
    """The text of the last user message ('' when none): what the teacher reads."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        if isinstance(message, dict) and message.get("role") == "user":
            texts = _texts(message.get("content"))
            if texts:
                return "\n".join(texts)
    return ""
