"""What the conversation so far establishes: the calls made, their results, and the facts in
them that an answer can be filled with; and JSON asked for in words.

Used by ``_chat_plan`` (which tool still needs calling) and by structured answers (which
value goes into which field); the rules are in ``docs/reference/design.md``.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mediagen_nb.emulator._schema_instance import MISSING, pattern_matches
from mediagen_nb.types import ChatProtocol

_PLACE = ("city", "location", "place", "country", "destination", "town", "region", "where")
_SYNONYMS = (
    frozenset({"temperature", "temp", "degrees"}),
    frozenset({"sky", "conditions", "condition", "weather", "forecast"}),
    frozenset({"city", "location", "place", "town"}),
)
_PROSE_TEXT = (
    "summary answer advice explanation reasoning reason recommendation response reply "
    "description details message comment text content result notes note suggestion"
)
_PROSE = frozenset(_PROSE_TEXT.split())
# A number starts only where a digit run starts, and its digits are never given back
# (possessive), and a key starts where a word starts: otherwise a run of 20,000 digits took
# 11 s of backtracking, and a long run of letters a second per 1 MB.
_NUMBER = r"-?(?<!\d)\d{1,30}+(?:\.\d{1,30}+)?"
_NUMBER_UNIT = re.compile(rf"({_NUMBER})\s*+(?:°\s*[CF]?|degrees\b|[CF]\b)")
_KEY = r"(?<![A-Za-z])([A-Za-z][A-Za-z _]{1,30}?)"
_KEY_NUMBER = re.compile(rf"{_KEY}[ \t]{{0,8}}[:=]\s*+({_NUMBER})")
_ASKS = re.compile(r"\b(respond|return|answer|reply|output|format|schema|adhere|compatible|match)")
_SCHEMA_KEYS = ("properties", "$defs", "definitions", "anyOf", "oneOf", "allOf")
MAX_JSON_TRIES = 256
"""Braces of one text tried as the start of a JSON object."""
MAX_FACTS = 256
"""Facts a task keeps (newest first): a field is filled by comparing it with each."""
PROSE_CHARS = 2_000
"""Longest tool-results-in-words text a free-text field gets."""
MAX_NAME_CHARS = 40
"""Longer capitalised "words" are no names."""


@dataclass(frozen=True)
class Step:
    """One tool call made since the question, and its result text once sent."""

    name: str
    arguments: Any
    result: str | None

    @property
    def key(self) -> str:
        """Name and canonical arguments: two calls with the same key are the same call."""
        return self.name + ":" + json.dumps(self.arguments, sort_keys=True)


def text_of(content: Any) -> str:
    """A tool result's content as text: a string, its parts' texts joined, else its JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text")) for p in content if isinstance(p, dict) and "text" in p)
    return "" if content is None else json.dumps(content)


def _loads(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        pass
    if text.lstrip().startswith("{") and len(text) <= 20_000:
        try:  # a Python dict's repr (what some frameworks send as a tool's result)
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return text
    return text


def _is_question(message: dict[str, Any], protocol: ChatProtocol) -> bool:
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if protocol == "messages" and any(b.get("type") == "tool_result" for b in blocks):
        return False
    return any(b.get("type") in ("text", "input_text") for b in blocks)


def task_steps(body: dict[str, Any], protocol: ChatProtocol) -> list[Step]:
    """The tool calls made since the last question, in order, with their results."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    start = max((i for i, m in enumerate(messages) if _is_question(m, protocol)), default=-1)
    calls: dict[str, tuple[str, Any]] = {}
    results: dict[str, str] = {}
    for message in messages[start + 1 :]:
        if protocol == "chat_completions":
            for call in message.get("tool_calls") or []:
                spec = call.get("function") if isinstance(call, dict) else None
                if isinstance(spec, dict):
                    arguments = _loads(spec.get("arguments"))
                    calls[str(call.get("id"))] = (str(spec.get("name")), arguments)
            if message.get("role") == "tool":
                results[str(message.get("tool_call_id"))] = text_of(message.get("content"))
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                calls[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
            elif block.get("type") == "tool_result":
                results[str(block.get("tool_use_id"))] = text_of(block.get("content"))
    return [Step(name, arguments, results.get(cid)) for cid, (name, arguments) in calls.items()]


def proper_nouns(text: str) -> list[str]:
    """Capitalised words that do not start a sentence (place and person names, mostly)."""
    found: list[str] = []
    sentence_start = True
    for match in re.finditer(r"[^\W\d_][\w'-]*|[.!?:\n]", text):
        word = match.group()
        if word in ".!?:\n":
            sentence_start = True
            continue
        proper = 3 <= len(word) <= MAX_NAME_CHARS and word[:1].isupper() and word != "JSON"
        if proper and not sentence_start:
            found.append(word)
        sentence_start = False
    return found


def _flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if isinstance(sub, dict):
                yield from _flatten(sub, str(key))
            elif not isinstance(sub, list):
                yield str(key).lower(), sub
        if prefix:
            yield prefix.lower(), value


def _text_facts(text: str) -> Iterator[tuple[str, Any]]:
    for key, number in _KEY_NUMBER.findall(text):
        yield key.strip().lower().replace(" ", "_"), _number(number)
    for number in _NUMBER_UNIT.findall(text):
        yield "temperature", _number(number)


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def _tokens(key: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", key)
    return {t for t in re.split(r"[^a-zA-Z]+", spaced.lower()) if len(t) >= 3}


def _match(name: str, key: str) -> int:
    """How well a fact's key fits a property's name (0: not at all)."""
    low = name.lower()
    if low == key:
        return 4
    mine, theirs = _tokens(low), _tokens(key)
    if mine & theirs:
        return 3
    if any(
        a.startswith(b) or b.startswith(a) for a in mine for b in theirs if min(len(a), len(b)) >= 4
    ):
        return 2
    if any(mine & group and theirs & group for group in _SYNONYMS):
        return 1
    return 0


def _fits(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` shaped to ``schema`` (enum spelling, integer rounding), or MISSING."""
    enum = schema.get("enum")
    if isinstance(enum, list):
        return _fit_enum(value, enum)
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if isinstance(value, bool):
        return value if "boolean" in kinds else MISSING
    if isinstance(value, int | float):
        return _fit_number(value, kinds, schema)
    if isinstance(value, str) and "string" in kinds and "format" not in schema:
        return _fit_string(value, schema)
    return MISSING


def _fit_enum(value: Any, enum: list[Any]) -> Any:
    for option in enum:
        same_text = isinstance(option, str) and isinstance(value, str)
        if option == value or (same_text and option.lower() == value.lower()):
            return option
    return MISSING


def _fit_number(value: float, kinds: list[Any], schema: dict[str, Any]) -> Any:
    if "integer" in kinds and math.isfinite(value):
        value = round(value)
    elif "number" not in kinds:
        return MISSING
    return value if _in_bounds(value, schema) else MISSING


def _fit_string(value: str, schema: dict[str, Any]) -> Any:
    """The string when its length and ``pattern`` allow it (the pattern tried only safely)."""
    low, high = schema.get("minLength", 0), schema.get("maxLength", len(value))
    if not (isinstance(low, int) and isinstance(high, int) and low <= len(value) <= high):
        return MISSING
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and not pattern_matches(pattern, value):
        return MISSING
    return value


def _in_bounds(value: float, schema: dict[str, Any]) -> bool:
    bounds = {
        k: float(v)
        for k, v in schema.items()
        if k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
        and isinstance(v, int | float)
        and not isinstance(v, bool)
    }
    return (
        value >= bounds.get("minimum", -math.inf)
        and value <= bounds.get("maximum", math.inf)
        and value > bounds.get("exclusiveMinimum", -math.inf)
        and value < bounds.get("exclusiveMaximum", math.inf)
    )


@dataclass
class Facts:
    """Values the conversation establishes, to fill a schema's fields (rules on the design page)."""

    pairs: list[tuple[str, Any]] = field(default_factory=list)
    prose: str = ""
    matches: dict[str, list[tuple[int, Any]]] = field(default_factory=dict, repr=False)
    """Per property name, the (score, value) of the facts whose key fits it at all, in
    order: worked out once per name (an array of 1,000 items asks 1,000 times), and shared
    by the choices of a request."""

    def _matching(self, name: str) -> list[tuple[int, Any]]:
        found = self.matches.get(name)
        if found is None:
            scored = ((_match(name, key), value) for key, value in self.pairs)
            found = self.matches[name] = [(s, v) for s, v in scored if s]
        return found

    def lookup(self, name: str, schema: dict[str, Any]) -> Any:
        """The best-fitting fact for property ``name`` of ``schema``, else MISSING."""
        if not name:
            return MISSING
        best, best_score = MISSING, 0
        for score, value in self._matching(name):
            if score > best_score:
                shaped = _fits(value, schema)
                if shaped is not MISSING:
                    best, best_score = shaped, score
        if best is MISSING and name.lower() in _PROSE and self.prose:
            return _fits(self.prose, schema)
        return best

    def answered(self, answer: str) -> Facts:
        """These facts, with ``answer``'s first sentence as the prose when no tool result
        gave one (one choice of ``n`` of a request: the rest is shared)."""
        return self if self.prose else Facts(self.pairs, _first_sentence(answer), self.matches)

    def has_number_for(self, name: str, schema: dict[str, Any]) -> bool:
        """Whether a numeric property can be filled from what is known (not made up)."""
        return any(
            _match(name, key) and _fits(value, schema) is not MISSING
            for key, value in self.pairs
            if isinstance(value, int | float)
        )


def _render(name: str, text: str) -> str:
    value = _loads(text)
    if isinstance(value, dict):
        said = ", ".join(
            f"{str(k).replace('_', ' ')} {v}"
            for k, v in value.items()
            if not isinstance(v, dict | list)
        )
        return f"{name}: {said}" if said else name
    shown = " ".join(text.split())
    return shown if len(shown) <= 160 else shown[:157] + "…"


def facts_of(steps: list[Step], question: str, answer: str) -> Facts:
    """The facts of the task so far (newest first) and its prose (results in words)."""
    pairs: list[tuple[str, Any]] = []
    for step in reversed(steps):
        if step.result is not None:
            value = _loads(step.result)
            pairs.extend(_flatten(value) if isinstance(value, dict) else _text_facts(step.result))
    for step in reversed(steps):
        if isinstance(step.arguments, dict):
            pairs.extend(_flatten(step.arguments))
    pairs.extend(_text_facts(question))
    names = proper_nouns(question)
    if names:
        pairs.extend((key, names[0]) for key in (*_PLACE, "name"))
    done = [
        _render(s.name, s.result)
        for s in steps
        if s.result is not None and not s.name.startswith("transfer_to")
    ]
    prose = "; ".join(d for d in done if d) + "." if done else _first_sentence(answer)
    return Facts(pairs[:MAX_FACTS], prose[:PROSE_CHARS])


def _first_sentence(text: str) -> str:
    first = re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]
    return first[:200]


def json_objects(text: str) -> list[tuple[int, int, dict[str, Any]]]:
    """(start, end, object) of each top-level JSON object written in ``text``: at most
    ``MAX_JSON_TRIES`` braces are tried (a failed try costs up to the text's length, so a
    text of 400,000 braces took 29 s), and nesting too deep to decode is no object."""
    found: list[tuple[int, int, dict[str, Any]]] = []
    decoder = json.JSONDecoder()
    index = text.find("{")
    for _try in range(MAX_JSON_TRIES):
        if index == -1:
            break
        try:
            value, end = decoder.raw_decode(text, index)
        except (ValueError, RecursionError):
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            found.append((index, end, value))
        index = text.find("{", end)
    return found


def without_json(text: str) -> str:
    """``text`` with the JSON objects written in it left out (for reading the question)."""
    pieces: list[str] = []
    kept = 0
    for start, end, _ in json_objects(text):
        pieces.append(text[kept:start])
        kept = end
    return "".join(pieces) + text[kept:]


def _example_schema(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {
            "type": "object",
            "properties": {str(k): _example_schema(v) for k, v in value.items()},
            "required": [str(k) for k in value],
        }
    if isinstance(value, list):
        return {"type": "array", "items": _example_schema(value[0]) if value else {}}
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string"}
    kind = kinds.get(type(value), "null")
    return {"type": kind, "examples": [value]}


def _is_schema(value: dict[str, Any]) -> bool:
    return any(k in value for k in _SCHEMA_KEYS) or value.get("type") == "object"


def prompted_schema(texts: list[str], *, json_mode: bool) -> tuple[dict[str, Any], bool] | None:
    """(schema, fenced) of JSON asked for in words in ``texts``, else None."""
    for text in texts:
        asked = re.search(r"\bjson\b", text, re.IGNORECASE) and _ASKS.search(text.lower())
        if not (json_mode or asked):
            continue
        objects = json_objects(text)
        if not objects:
            continue
        value = max(objects, key=lambda o: o[1] - o[0])[2]
        schema = value if _is_schema(value) else _example_schema(value)
        fenced = bool(re.search(r"```json|code ?block", text, re.IGNORECASE))
        return schema, fenced
    return None
