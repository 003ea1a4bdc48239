"""Deterministic, readable chat answers for the emulator, with consistent token counts.

The emulator has no language model: templates restate what the last user message asked.
Seeding, token counting and truncation rules are in ``docs/reference/design.md``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "READ_CHARS",
    "Completion",
    "Conversation",
    "Reading",
    "chat_conversation",
    "compose",
    "count_tokens",
    "generate",
    "limit",
    "messages_conversation",
    "read",
    "request_seed",
    "split_deltas",
    "tokenize",
]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")

MESSAGE_OVERHEAD = 3
"""Prompt tokens added per message for its role framing."""
MEDIA_TOKENS = 85
"""Prompt tokens charged per attached image or video part."""
MAX_WORD_CHARS = 40
"""Longer "words" (a pasted blob) are never picked as a keyword to repeat."""
QUOTE_CHARS = 200
"""At most this much of the question (or system prompt) is quoted back."""
READ_CHARS = 100_000
"""The answer reacts to the first this many characters of the question and of the system
prompt (tokens are still counted in full): reading is bounded work whatever the prompt."""

Finish = Literal["end", "length", "stop"]

_MEDIA_PARTS = {
    "image_url": "image",
    "image": "image",
    "input_image": "image",
    "video_url": "video",
    "video": "video",
    "input_video": "video",
    "document": "document",
    "file": "document",
}
_STOPWORD_TEXT = (
    "about above after again also because been before being below between both could does "
    "doing down during each explain from further have having here into just like make more "
    "most much must only other ought over please same should show some such tell than that "
    "their them then there these they this those through under until very want were what "
    "when where which while whom with would write your yours give describe using used "
    "compose short poem haiku verse limerick rhyme song"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokenize(text: str) -> list[str]:
    """Words, single CJK characters and single punctuation marks, in order."""
    return _TOKEN.findall(text)


def count_tokens(text: str) -> int:
    """Number of tokens of ``text`` (see ``tokenize``)."""
    return len(_TOKEN.findall(text))  # a C loop: 4 times faster than counting matches


@dataclass(frozen=True)
class Conversation:
    """The text of a chat request, reduced to what the answer reacts to."""

    system: str
    turns: tuple[tuple[str, str], ...]
    """(role, text) per message, in order."""
    media: tuple[str, ...] = ()
    """Kinds of attached media parts ("image", "video", "document"), in order."""

    @property
    def prompt_tokens(self) -> int:
        """Input tokens: every text part's, 3 per message and 85 per attached image or video."""
        text = count_tokens(self.system) + sum(count_tokens(t) for _, t in self.turns)
        framing = MESSAGE_OVERHEAD * (len(self.turns) + (1 if self.system else 0))
        return text + framing + MEDIA_TOKENS * len(self.media)

    @property
    def question(self) -> str:
        """Text of the last user message (empty if none)."""
        for role, text in reversed(self.turns):
            if role == "user":
                return text
        return ""


def _content_text(content: Any, media: list[str]) -> str:
    """Plain text of a string or a multimodal parts array; media parts are tallied."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("text", "input_text") and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(kind, str) and kind in _MEDIA_PARTS:
            media.append(_MEDIA_PARTS[kind])
    return "\n".join(texts)


def chat_conversation(body: dict[str, Any]) -> Conversation:
    """Conversation of a chat-completions body (system/developer messages form the system)."""
    media: list[str] = []
    system: list[str] = []
    turns: list[tuple[str, str]] = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", "user"))
        text = _content_text(message.get("content"), media)
        if role in ("system", "developer"):
            system.append(text)
        else:
            turns.append((role, text))
    return Conversation("\n".join(system), tuple(turns), tuple(media))


def messages_conversation(body: dict[str, Any]) -> Conversation:
    """Conversation of an Anthropic-style messages body (``system`` string or text blocks)."""
    media: list[str] = []
    system = _content_text(body.get("system") or "", media)
    turns = tuple(
        (str(m.get("role", "user")), _content_text(m.get("content"), media))
        for m in body.get("messages") or []
        if isinstance(m, dict)
    )
    return Conversation(system, turns, tuple(media))


@dataclass(frozen=True)
class Completion:
    """A generated answer with its finish reason and token counts."""

    text: str
    finish: Finish
    stop_sequence: str | None
    """The stop sequence that ended the text (finish ``stop``), else None."""
    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.prompt_tokens + self.completion_tokens


def _seed_prefix(model: str, conversation: Conversation) -> str:
    """The JSON the seed hashes, up to the sampling knobs (the same for every choice)."""
    blob = json.dumps(
        [model, conversation.system, conversation.turns, conversation.media],
        sort_keys=True,
        default=str,
    )
    return blob[:-1] + ", "


def _seed_from(prefix: Any, body: dict[str, Any]) -> int:
    """The seed of ``body``'s knobs after ``prefix`` (a sha256 of the prefix, to copy)."""
    knobs = {k: body.get(k) for k in ("temperature", "top_p", "seed")}
    digest = prefix.copy()
    digest.update((json.dumps(knobs, sort_keys=True, default=str) + "]").encode("utf-8", "replace"))
    return int.from_bytes(digest.digest()[:8], "big")


def _hashed(prefix: str) -> Any:
    return hashlib.sha256(prefix.encode("utf-8", "replace"))


def _keywords(text: str) -> list[str]:
    """Up to three distinctive words of the question (the longest), in order of appearance;
    words longer than ``MAX_WORD_CHARS`` are no words a reply repeats."""
    seen: dict[str, None] = {}
    for word in re.findall(r"[^\W\d_][\w'-]*", text):
        low = word.lower()
        if len(low) < 4 or len(low) > MAX_WORD_CHARS or low in _STOPWORDS or low in seen:
            continue
        if len(low) > 4 and re.search(f"[{_CJK}]", low):
            continue  # a run of CJK characters is a phrase, not a word
        seen[low] = None
    longest = set(sorted(seen, key=len, reverse=True)[:3])
    return [w for w in seen if w in longest]


def _quote(text: str, limit: int = 14) -> str:
    """The first sentence of ``text`` (at most ``limit`` words and ``QUOTE_CHARS``
    characters) in quotes, ending a sentence."""
    first = re.split(r"(?<=[.!?。？！])\s+|\n", text.strip(), maxsplit=1)[0]
    words = first.split(maxsplit=limit)
    joined = " ".join(words[:limit])
    short = joined[:QUOTE_CHARS]
    if len(words) > limit or len(short) < len(joined):
        short += " …"
    return f"“{short}”" + ("" if short[-1:] in ".!?。？！…" else ".")


_OPENERS = (
    "You asked: {topic} Here is a short answer.",
    "Good question. You wrote: {topic}",
    "Let me take this step by step. Your message was: {topic}",
    "Thanks for the question. In your words: {topic}",
)
_BODY = (
    "Two words in your question stand out: {k0} and {k1}.",
    "A good first step is to say in one sentence what {k0} means here, then give one "
    "concrete example.",
    "Looking at {k0} together with {k1} usually makes the picture clearer.",
    "A common mistake is to treat {k1} as a detail; it often changes how {k0} plays out.",
    "If you want to go further, write down what you already know about {k0} and what is "
    "still open.",
    "In a classroom, this is easiest to show with a small, hands-on example around {k0}.",
    "Related ideas worth a look: {k1} and {k2}.",
)
_STEPS = (
    "A simple plan: 1. define {k0} in one sentence; 2. find an example that involves {k1}; "
    "3. check the result against {k2}.",
    "Three steps to try: first name the goal, then sketch {k0}, then test it with {k1}.",
)
_POEMS = (
    "Here is a short attempt:\n{K0} in morning light,\n{w1} drifting, slow and calm —\n"
    "{w2} stays with me.",
    "A few lines for you:\nThe {w0} wakes, the {w1} sings,\nand {w2} is what the evening brings.",
)
_CLOSERS = (
    "In short: start with {k0}, then bring in {k1}.",
    "I hope this gives you a good starting point.",
    "Feel free to ask a follow-up about {k1} or {k0}.",
)
_GREETINGS = frozenset({"hi", "hello", "hey", "hallo", "bonjour", "hola", "你好"})
_FALLBACK = ("your topic", "the context", "the details")


@dataclass(frozen=True)
class Reading:
    """What an answer says whatever its seed, read once per request (``n`` choices share it:
    only the template choices differ, so a choice costs the same for any prompt length)."""

    fill: dict[str, str]
    kind: Literal["empty", "greeting", "poem", "prose"]
    plan: bool
    """The question asks for steps (a plan sentence is added)."""
    tail: tuple[str, ...]
    """Sentences after the closer: instructions followed, media, turn count, the model."""
    seed_prefix: Any
    """sha256 of the seed's JSON up to the knobs (``_seed_prefix``), copied per choice."""


def read(model: str, conversation: Conversation) -> Reading:
    """The seed-independent part of the answer to ``conversation`` (see :class:`Reading`)."""
    question = conversation.question[:READ_CHARS].strip()
    words = _keywords(question)
    bare = [*words, *_FALLBACK[len(words) :]]
    fill = {f"k{i}": f"“{w}”" if i < len(words) else w for i, w in enumerate(bare)}
    fill |= {f"w{i}": w for i, w in enumerate(bare)}
    fill |= {"K0": bare[0][:1].upper() + bare[0][1:], "topic": _quote(question)}
    kind: Literal["empty", "greeting", "poem", "prose"] = "prose"
    if not question:
        kind = "empty"
    elif question.lower().strip("!. ") in _GREETINGS:
        kind = "greeting"
    elif re.search(r"\b(poem|haiku|verse|song|limerick|rhyme)s?\b", question, re.I):
        kind = "poem"
    plan = bool(re.search(r"\b(how|steps?|list|plan|guide)\b", question, re.IGNORECASE))
    tail: list[str] = []
    if conversation.system.strip():
        system = conversation.system[:READ_CHARS]
        tail.append(f"(I followed your instructions: {_quote(system, 10)})")
    if conversation.media:
        count = len(conversation.media)
        kinds = " and ".join(sorted(set(conversation.media)))
        tail.append(
            f"You attached {count} {kinds} part{'s' if count > 1 else ''}; the emulator does "
            "not look inside media, so this answer uses your text only."
        )
    user_turns = sum(1 for role, _ in conversation.turns if role == "user")
    if user_turns > 1:
        tail.append(f"This is turn {user_turns} of our conversation.")
    tail.append(f"— {model} (local emulator: a deterministic reply, not a real model)")
    prefix = _hashed(_seed_prefix(model, conversation))
    return Reading(fill, kind, plan, tuple(tail), prefix)


def _compose(reading: Reading, rng: random.Random) -> str:
    fill = reading.fill
    parts: list[str] = []
    if reading.kind == "empty":
        parts.append("Your last message had no text, so there is nothing specific to answer.")
    elif reading.kind == "greeting":
        parts.append("Hello! Ask me anything and I will answer briefly.")
    else:
        if reading.kind == "poem":
            parts.append(f"You asked for a poem: {fill['topic']}")
            parts.append(rng.choice(_POEMS).format(**fill) + "\n")
        else:
            parts.append(rng.choice(_OPENERS).format(**fill))
            parts.extend(s.format(**fill) for s in rng.sample(_BODY, 2))
            if reading.plan:
                parts.append(rng.choice(_STEPS).format(**fill))
        parts.append(rng.choice(_CLOSERS).format(**fill))
    parts.extend(reading.tail)
    return " ".join(parts).replace("\n ", "\n")


def generate(
    model: str,
    conversation: Conversation,
    body: dict[str, Any],
    *,
    max_tokens: int | None = None,
    stop: Sequence[str] = (),
) -> Completion:
    """The answer to ``conversation``, cut by ``stop`` sequences and ``max_tokens``."""
    text = compose(model, conversation, body)
    return limit(text, conversation.prompt_tokens, max_tokens=max_tokens, stop=stop)


def compose(
    model: str, conversation: Conversation, body: dict[str, Any], reading: Reading | None = None
) -> str:
    """The whole answer text, before stop sequences and limits (deterministic); pass the
    request's ``reading`` when composing several choices of one request."""
    reading = reading or read(model, conversation)
    return _compose(reading, random.Random(_seed_from(reading.seed_prefix, body)))


def request_seed(
    model: str, conversation: Conversation, body: dict[str, Any], reading: Reading | None = None
) -> int:
    """The deterministic seed of a request (what the wording is chosen by)."""
    reading = reading or read(model, conversation)
    return _seed_from(reading.seed_prefix, body)


def limit(
    text: str, prompt_tokens: int, *, max_tokens: int | None = None, stop: Sequence[str] = ()
) -> Completion:
    """``text`` cut at the first stop sequence, then to ``max_tokens`` tokens."""
    finish: Finish = "end"
    matched: str | None = None
    cuts = [(text.find(s), s) for s in stop if s and s in text]
    if cuts:
        index, matched = min(cuts)
        text, finish = text[:index], "stop"
    if max_tokens is not None:
        ends = [m.end() for m in _TOKEN.finditer(text)]
        if len(ends) > max(0, max_tokens):
            text = text[: ends[max_tokens - 1]] if max_tokens > 0 else ""
            finish, matched = "length", None
    return Completion(
        text=text,
        finish=finish,
        stop_sequence=matched,
        prompt_tokens=prompt_tokens,
        completion_tokens=count_tokens(text),
    )


def split_deltas(text: str, seed: int = 0, *, low: int = 2, high: int = 4) -> list[str]:
    """Cut ``text`` into stream deltas of ``low``..``high`` tokens; they join back to ``text``.

    Each delta starts at a token (carrying the whitespace before the next one), so a client
    that counts tokens per delta gets the same total as ``count_tokens(text)``.
    """
    starts = [m.start() for m in _TOKEN.finditer(text)]
    if not starts:
        return [text] if text else []
    rng = random.Random(seed)
    cuts = [0]
    index = rng.randint(low, high)
    while index < len(starts):
        cuts.append(starts[index])
        index += rng.randint(low, high)
    cuts.append(len(text))
    return [text[a:b] for a, b in itertools.pairwise(cuts)]
