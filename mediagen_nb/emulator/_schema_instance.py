"""A small, deterministic JSON Schema instance generator (tool arguments, structured output).

The emulator has no model, so a tool call's ``arguments`` and a ``json_schema`` reply are made
up from the schema; what is supported and how work stays bounded is in
``docs/reference/design.md``.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Mapping
from re import _parser  # type: ignore[attr-defined]
from typing import Any

from mediagen_nb.emulator import _schema_limits as limits
from mediagen_nb.emulator._schema_limits import SchemaLimitError

__all__ = ["MISSING", "Lookup", "SchemaLimitError", "instance_for"]

MISSING: Any = object()
"""What a ``lookup`` returns when it has no value for a field."""
Lookup = Callable[[str, dict[str, Any]], Any]

MAX_DEPTH = 6
_BRANCHING = ("anyOf", "oneOf", "allOf")
_DESC_BOUNDS = re.compile(
    r"(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf|minLength|maxLength|minItems"
    r"|maxItems)"
    r"\s*:\s*(-?\d+(?:\.\d+)?)"
)
_DESC_PATTERN = re.compile(r"\bpattern: (.*?)(?=, \w+: |\}\s*$)")
_WORDS = ("alpha", "bravo", "delta", "echo", "harbor", "meadow", "river", "summit")
_FORMATS = {
    "date-time": "2026-01-15T09:30:00Z",
    "date": "2026-01-15",
    "time": "09:30:00",
    "email": "ada@example.com",
    "uri": "https://example.com/item",
    "url": "https://example.com/item",
    "uuid": "2f1c6b1e-8d1a-4c3e-9f6a-1b2c3d4e5f60",
    "ipv4": "192.0.2.10",
    "ipv6": "2001:db8::10",
    "hostname": "example.com",
    "duration": "P1D",
}


def instance_for(
    schema: Any,
    *,
    seed: int = 0,
    hints: Mapping[str, str] | None = None,
    strict: bool = False,
    context: str = "",
    lookup: Lookup | None = None,
    budget: limits.Budget | None = None,
) -> Any:
    """An instance valid against ``schema`` (what is supported: the design page); an ``enum`` value
    that ``context`` mentions is preferred, and ``lookup``'s values come first. Raises
    ``SchemaLimitError`` past the bounds, and past ``budget`` (a request's allowance shared
    by its instances) when given."""
    root = schema if isinstance(schema, dict) else {}
    maker = _Maker(root, random.Random(seed), dict(hints or {}), strict)
    maker.context = context.lower()
    maker.lookup = lookup
    maker.budget = budget
    return maker.make(root, "", 0)


class _Maker:
    def __init__(
        self, root: dict[str, Any], rng: random.Random, hints: dict[str, str], strict: bool
    ) -> None:
        self.root = root
        self.rng = rng
        self.hints = hints
        self.strict = strict
        self.context = ""
        self.lookup: Lookup | None = None
        self.budget: limits.Budget | None = None
        self.spent = 0

    def spend(self, size: int, name: str) -> None:
        """Count ``size`` characters of output; refuse the schema past the limit."""
        if self.budget is not None:
            self.budget.spend(size, name)
        self.spent += size
        if self.spent > limits.MAX_OUTPUT_CHARS:
            raise SchemaLimitError(
                name or "schema", f"asks for more than {limits.MAX_OUTPUT_CHARS} characters of JSON"
            )

    def copied(self, value: Any, name: str) -> Any:
        """A value taken from the schema (const, enum, default, example), counted."""
        self.spend(len(json.dumps(value, default=str)), name)
        return value

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref")
        seen = 0
        while isinstance(ref, str) and ref.startswith("#/") and seen < 32:
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = (
                    target.get(part.replace("~1", "/").replace("~0", "~"), {})
                    if isinstance(target, dict)
                    else {}
                )
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**(target if isinstance(target, dict) else {}), **rest}
            ref = (
                schema.get("$ref")
                if "$ref" in (target if isinstance(target, dict) else {})
                else None
            )
            seen += 1
        return schema

    def make(self, schema: Any, name: str, depth: int) -> Any:
        if depth > limits.MAX_DEPTH:
            raise SchemaLimitError(
                name or "schema",
                f"nests deeper than {limits.MAX_DEPTH} levels"
                " ($ref or allOf recursion without an end)",
            )
        self.spend(1, name)
        if schema is True or not isinstance(schema, dict):
            return self.string({}, name)
        schema = self.resolve(schema)
        found = self.given(schema, name)
        if found is not _NOTHING:
            return found
        if isinstance(schema.get("allOf"), list):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                merged = _merge(merged, self.resolve(part) if isinstance(part, dict) else {})
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            return self.make(_merge(merged, rest), name, depth + 1)
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                return self.make(self.branch(options, depth), name, depth + 1)
        return self.typed(schema, _kind_of(schema, depth), name, depth)

    def given(self, schema: dict[str, Any], name: str) -> Any:
        """A value the schema names (const, an enum value, default, example), else _NOTHING."""
        if "const" in schema:
            return self.copied(schema["const"], name)
        if self.lookup is not None and name and not any(k in schema for k in _BRANCHING):
            found = self.lookup(name, schema)
            if found is not MISSING:
                return self.copied(found, name)
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            said = [
                v for v in schema["enum"] if isinstance(v, str) and v and v.lower() in self.context
            ]
            return self.copied(said[0] if said else schema["enum"][0], name)
        if "default" in schema and not self.strict:
            return self.copied(schema["default"], name)
        if isinstance(schema.get("examples"), list) and schema["examples"]:
            return self.copied(schema["examples"][0], name)
        return _NOTHING

    def typed(self, schema: dict[str, Any], kind: Any, name: str, depth: int) -> Any:
        """A value of the JSON type ``kind``."""
        bounds = self.bounds(schema)
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, name, depth, bounds)
        if kind in ("integer", "number"):
            value = self.number(bounds, integer=kind == "integer")
            return int(value) if kind == "integer" else value
        if kind in ("boolean", "null"):
            return True if kind == "boolean" else None
        return self.string(schema, name, bounds)

    def branch(self, options: list[Any], depth: int) -> Any:
        resolved = [self.resolve(o) if isinstance(o, dict) else o for o in options]
        non_null = [o for o in resolved if not (isinstance(o, dict) and o.get("type") == "null")]
        if depth >= MAX_DEPTH or not non_null:
            nulls = [o for o in resolved if o not in non_null]
            return nulls[0] if nulls else resolved[0]
        return non_null[0]

    def bounds(self, schema: dict[str, Any]) -> dict[str, float]:
        described = str(schema.get("description") or "")[: limits.DESCRIPTION_SCAN]
        found = {k: float(v) for k, v in _DESC_BOUNDS.findall(described)}
        for key in (
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
        ):
            value = schema.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                found[key] = float(value)
        return found

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        result: dict[str, Any] = {}
        for key, sub in properties.items():
            if key in required or self.strict or depth < 2:
                if key not in required and depth >= MAX_DEPTH:
                    continue
                result[key] = self.make(sub, key, depth + 1)
        return result

    def array(
        self, schema: dict[str, Any], name: str, depth: int, bounds: dict[str, float]
    ) -> list[Any]:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            return [self.make(item, name, depth + 1) for item in prefix]
        low = min(int(bounds.get("minItems", 0)), limits.MAX_ITEMS)
        high = int(bounds.get("maxItems", max(low, 2)))
        count = 0 if depth >= MAX_DEPTH else min(high, max(low, 2))
        if depth >= MAX_DEPTH:
            count = low
        items = schema.get("items", {})
        made = [self.make(items, name, depth + 1) for _ in range(count)]
        if schema.get("uniqueItems") and len({repr(x) for x in made}) < len(made):
            made = made[:1] if low <= 1 else made
        return made

    def number(self, bounds: dict[str, float], *, integer: bool) -> float:
        nudge = 1.0 if integer else 0.5
        low = bounds.get("minimum")
        if low is None and "exclusiveMinimum" in bounds:
            low = bounds["exclusiveMinimum"] + nudge
        high = bounds.get("maximum")
        if high is None and "exclusiveMaximum" in bounds:
            high = bounds["exclusiveMaximum"] - nudge
        pick = float(1 + self.rng.randint(0, 8))
        if low is not None:
            low = float(math.ceil(low)) if integer else low
            pick = low + pick - 1
        if high is not None:
            high = float(math.floor(high)) if integer else high
            pick = min(pick, high)
        step = bounds.get("multipleOf")
        if step:
            pick = step * math.ceil((low if low is not None else step) / step)
        if integer:
            return float(int(pick))
        if high is None or pick + 0.25 <= high:
            pick += 0.25 if not step else 0.0
        return pick

    def string(
        self, schema: dict[str, Any], name: str, bounds: dict[str, float] | None = None
    ) -> str:
        bounds = bounds or {}
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt in _FORMATS:
            return _FORMATS[fmt]
        hint = self.hints.get(name.lower())
        value = (
            hint
            if hint
            else f"{name or 'value'}-{self.rng.choice(_WORDS)}"
            if name
            else self.rng.choice(_WORDS)
        )
        pattern = schema.get("pattern")
        if not isinstance(pattern, str):
            found = _DESC_PATTERN.search(
                str(schema.get("description") or "")[: limits.DESCRIPTION_SCAN]
            )
            pattern = found.group(1) if found else None
        if isinstance(pattern, str):
            value = _fit_pattern(pattern, value)
        low = min(int(bounds.get("minLength", 0)), limits.MAX_STRING_LENGTH)
        high = int(bounds.get("maxLength", max(low, len(value))))
        if len(value) < low:
            value = (value + "x" * low)[: max(low, 1)]
        value = value[:high] if high >= low else value
        self.spend(len(value), name)
        return value


_SAFE_MATCH_CHARS = 64
"""Longest string the user's regex is ever run on (and only without nested repetition)."""
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _nested_repeat(items: Any, inside: bool = False) -> bool:
    """Whether a parsed regex has a repeat inside a repeat (catastrophic backtracking)."""
    for op, arg in items:
        name = str(op)
        if name in _REPEATS:
            if inside or _nested_repeat(arg[2], inside=True):
                return True
        elif any(_nested_repeat(part, inside) for part in _parts(name, arg)):
            return True
    return False


def _parts(name: str, arg: Any) -> list[Any]:
    """The sub-expressions of a group, alternation or lookaround."""
    if name == "SUBPATTERN":
        return [arg[-1]]
    if name == "BRANCH":
        return list(arg[1])
    if name in ("ASSERT", "ASSERT_NOT"):
        return [arg[1]]
    return []


_NOTHING = object()
"""``_Maker.given`` found no value in the schema."""


def _kind_of(schema: dict[str, Any], depth: int) -> Any:
    """The JSON type to make: the first non-null of a list (null past ``MAX_DEPTH``), else
    from the keywords present."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if kinds and depth < MAX_DEPTH else "null"
    if kind is None:
        return "object" if "properties" in schema else "array" if "items" in schema else "string"
    return kind


def pattern_matches(pattern: str, value: str) -> bool | None:
    """Whether ``value`` matches the user's ``pattern``; None when it is not safe to try.

    Safe means a short string (``_SAFE_MATCH_CHARS``) and a regex with no nested repetition,
    so a hostile pattern such as ``^(a+)+$`` never backtracks for long on the emulator's loop.
    """
    if len(value) > _SAFE_MATCH_CHARS:
        return None
    try:
        if _nested_repeat(_parser.parse(pattern)):
            return None
        return re.search(pattern, value) is not None
    except (re.error, ValueError, TypeError, IndexError, OverflowError, RecursionError):
        return None


def _fit_pattern(pattern: str, value: str) -> str:
    """``value`` if it (short) matches ``pattern``, else a string built from the regex.

    The user's regex runs only on strings of at most ``_SAFE_MATCH_CHARS`` and only when it
    has no nested repetition; otherwise the built string is trusted as it is.
    """
    try:
        parsed = _parser.parse(pattern)
        built = "".join(_from_regex(parsed))[: limits.MAX_STRING_LENGTH]
    except (re.error, ValueError, TypeError, IndexError, OverflowError, RecursionError):
        return value
    if _nested_repeat(parsed):
        return built
    if len(value) <= _SAFE_MATCH_CHARS and re.search(pattern, value):
        return value
    if len(built) <= _SAFE_MATCH_CHARS and not re.search(pattern, built):
        return value
    return built


_CATEGORY_CHARS = {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}


def _from_regex(items: Any) -> list[str]:
    out: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_from_class(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = arg
            out.extend(_from_regex(sub) * min(max(low, 0), limits.MAX_STRING_LENGTH))
        elif name == "SUBPATTERN":
            out.extend(_from_regex(arg[-1]))
        elif name == "BRANCH":
            out.extend(_from_regex(arg[1][0]))
        elif name == "CATEGORY":
            out.append(_CATEGORY_CHARS.get(str(arg), "a"))
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        else:
            raise ValueError(f"unsupported regex construct {name}")
    return out


def _from_class(parts: Any) -> str:
    negated = any(str(op) == "NEGATE" for op, _ in parts)
    if negated:
        return "a" if all(str(op) != "LITERAL" or arg != ord("a") for op, arg in parts) else "b"
    for op, arg in parts:
        name = str(op)
        if name == "LITERAL":
            return chr(arg)
        if name == "RANGE":
            return chr(arg[0])
        if name == "CATEGORY":
            return _CATEGORY_CHARS.get(str(arg), "a")
    return "a"


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if key == "properties" and isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key] = {**out[key], **value}
        elif key == "required" and isinstance(out.get(key), list) and isinstance(value, list):
            out[key] = list(dict.fromkeys([*out[key], *value]))
        else:
            out[key] = value
    return out
