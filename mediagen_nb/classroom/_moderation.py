"""Moderation a teacher controls: prompt rules checked before forwarding, and approval.

Rule syntax (``blocked=[...]``, or ``--block FILE`` with one rule a line, blank lines and
lines starting with ``#`` skipped): a plain rule is a word or phrase matched as whole words,
case-insensitively (``fight`` refuses "Fight!" but not "fighter"; spaces in a phrase match
any run of spaces); ``re:PATTERN`` is a regular expression searched anywhere in the text,
case-insensitively. Bounds: ``MAX_RULES`` rules of ``MAX_RULE_CHARS`` characters; only the
first ``MAX_CHECKED_CHARS`` characters of a prompt are read, and a pattern still searching
after ``MATCH_TIMEOUT_S`` refuses the prompt (a rule that cannot finish never lets one by).
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

NEUTRAL_REFUSAL: Final = "Your class's teacher has not allowed this prompt."
"""What a student reads when a rule refuses their prompt (it never names the rule)."""
PATTERN_PREFIX: Final = "re:"
MAX_RULES: Final = 500
MAX_RULE_CHARS: Final = 200
MAX_CHECKED_CHARS: Final = 20_000
MATCH_TIMEOUT_S: Final = 0.05
RECENT_REFUSALS: Final = 200
"""Refused prompts the teacher's views list (the ledger keeps every one as an event)."""
log = logging.getLogger("mediagen_nb.classroom")


class _Matcher(Protocol):
    def search(self, text: str) -> bool: ...


@dataclass(frozen=True)
class _Word:
    compiled: re.Pattern[str]

    def search(self, text: str) -> bool:
        return self.compiled.search(text) is not None


@dataclass(frozen=True)
class _Pattern:
    compiled: Any  # a ``regex`` pattern: its search takes a timeout

    def search(self, text: str) -> bool:
        try:
            return self.compiled.search(text, timeout=MATCH_TIMEOUT_S) is not None
        except TimeoutError:
            log.warning("the rule %r took too long; the prompt is refused", self.compiled.pattern)
            return True


def _compile(rule: str) -> _Matcher:
    if rule.startswith(PATTERN_PREFIX):
        try:
            import regex
        except ImportError as error:  # pragma: no cover - a dependency on CPython
            raise ValueError("blocked patterns (re:...) need the regex package") from error
        try:
            return _Pattern(regex.compile(rule[len(PATTERN_PREFIX) :], regex.IGNORECASE))
        except regex.error as error:
            message = f"blocked rule {rule!r} is not a regular expression: {error}"
            raise ValueError(message) from None
    words = r"\s+".join(re.escape(part) for part in rule.split())
    return _Word(re.compile(rf"(?<!\w){words}(?!\w)", re.IGNORECASE))


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
        _compile(rule)
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
    _matchers: list[tuple[str, _Matcher]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self.blocked = check_rules(self.blocked)
        self._matchers = [(rule, _compile(rule)) for rule in self.blocked]

    def match(self, texts: Iterable[str]) -> str | None:
        """The first rule any of ``texts`` breaks, or None."""
        read = "\n".join(texts)[:MAX_CHECKED_CHARS]
        if not read:
            return None
        for rule, matcher in self._matchers:
            if matcher.search(read):
                return rule
        return None

    def public(self, task: Any) -> bool:
        """Whether a task's result may be shown to everyone (wall, feed, export, media)."""
        return not task.hidden and (task.approved or not self.approve)

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


def chat_user_texts(body: Any) -> list[str]:
    """The text of every user message of a chat completion or a messages request."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return []
    texts: list[str] = []
    for message in body["messages"]:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            ]
    return texts
