"""Checks that a body is plain JSON: finite numbers and JSON types only (every endpoint)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Final

from mediagen_nb.types._problem import Problem

NOT_FINITE: Final = "must be a finite number (NaN and Infinity are not valid JSON)"
NOT_JSON: Final = "must be a JSON value (string, number, true/false, null, array or object)"
MAX_DEPTH: Final = 1000
"""Deeper than a JSON parser reads (the walk itself does not recurse)."""


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def json_value_problems(body: Any) -> Iterator[Problem]:
    """A problem for every non-finite number or non-JSON value in ``body``, by JSON path."""
    stack: list[tuple[str, Any, int]] = [("", body, 0)]
    seen: set[int] = set()  # each container once: a body that holds itself ends the walk
    while stack:
        path, value, depth = stack.pop()
        field = path or "(body)"
        if isinstance(value, bool) or value is None or isinstance(value, str | int):
            continue
        if isinstance(value, float):
            if not math.isfinite(value):
                yield Problem(field, NOT_FINITE)
            continue
        if depth >= MAX_DEPTH or id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            children = [(_child(path, str(k)), v) for k, v in value.items()]
        elif isinstance(value, list | tuple):
            children = [(_child(path, i), v) for i, v in enumerate(value)]
        else:
            yield Problem(field, NOT_JSON)
            continue
        stack.extend((p, v, depth + 1) for p, v in reversed(children))
