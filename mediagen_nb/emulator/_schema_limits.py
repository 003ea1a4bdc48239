"""Bounds on the JSON Schemas a chat request hands the emulator (tools, structured output).

Each schema is walked before use and refused with HTTP 400 naming the field and the limit;
what a walk cannot see is bounded while generating (``MAX_DEPTH``, ``MAX_OUTPUT_CHARS``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from mediagen_nb.types import Problem

MAX_SCHEMA_NODES: Final = 5_000
"""Schema objects (at any depth) in one tool's or one output format's schema."""
MAX_SCHEMA_DEPTH: Final = 32
"""Nesting of schema objects inside each other."""
MAX_STRING_LENGTH: Final = 10_000
"""Largest ``minLength`` the emulator fills."""
MAX_ITEMS: Final = 1_000
"""Largest ``minItems`` the emulator fills."""
MAX_PATTERN_CHARS: Final = 1_000
"""Longest ``pattern``."""
MAX_DEPTH: Final = 24
"""Levels of generated values (``$ref`` and ``allOf`` included)."""
MAX_OUTPUT_CHARS: Final = 200_000
"""Size of one generated instance: characters of its strings and copied values, one per
other value."""
DESCRIPTION_SCAN: Final = 2_000
"""Characters of a ``description`` searched for bounds."""
MAX_REQUEST_OUTPUT_CHARS: Final = 4 * MAX_OUTPUT_CHARS
"""Generated JSON of one request in all: every choice of ``n``, every tool call."""


class SchemaLimitError(ValueError):
    """A schema asks for more than the emulator makes; ``field`` and ``rule`` say what."""

    def __init__(self, field: str, rule: str) -> None:
        super().__init__(f"{field}: {rule}")
        self.field = field
        self.rule = rule


class Budget:
    """Characters of generated JSON one request may still make (all its instances)."""

    def __init__(self, limit: int = MAX_REQUEST_OUTPUT_CHARS) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, size: int, name: str) -> None:
        """Count ``size`` characters; refuse past the limit (``SchemaLimitError``).

        Args:
            size: Characters just generated.
            name: The field being generated, as the error names it.

        Raises:
            SchemaLimitError: The request's instances together pass ``limit``.
        """
        self.spent += size
        if self.spent > self.limit:
            raise SchemaLimitError(
                name or "schema",
                f"asks for more than {self.limit} characters of JSON in one request "
                "(all choices and tool calls together): ask for fewer choices",
            )


_DESC_BOUND = re.compile(r"\b(minLength|minItems)\s*:\s*(\d{1,30})")


def schema_fields(body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(field path, schema)`` of every schema in a chat or messages body."""
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and isinstance(fmt.get("json_schema"), dict):
        yield "response_format.json_schema.schema", fmt["json_schema"].get("schema")
    config = body.get("output_config")
    if isinstance(config, dict) and isinstance(config.get("format"), dict):
        yield "output_config.format.schema", config["format"].get("schema")
    if isinstance(body.get("output_format"), dict):
        yield "output_format.schema", body["output_format"].get("schema")
    tools = body.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):
            yield f"tools[{index}].function.parameters", tool["function"].get("parameters")
        if "input_schema" in tool:
            yield f"tools[{index}].input_schema", tool.get("input_schema")


def _bound_problem(path: str, node: dict[str, Any]) -> Problem | None:
    limits = {"minLength": MAX_STRING_LENGTH, "minItems": MAX_ITEMS}
    found: list[tuple[str, str, float]] = []
    for key in limits:
        value = node.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            found.append((f"{path}.{key}", key, float(value)))
    description = node.get("description")
    if isinstance(description, str):
        for key, digits in _DESC_BOUND.findall(description[:DESCRIPTION_SCAN]):
            found.append((f"{path}.description", key, float(digits)))
    for field, key, value in found:
        if value > limits[key]:
            return Problem(field, f"{key} must be at most {limits[key]} in the emulator")
    pattern = node.get("pattern")
    if isinstance(pattern, str) and len(pattern) > MAX_PATTERN_CHARS:
        return Problem(f"{path}.pattern", f"must be at most {MAX_PATTERN_CHARS} characters")
    return None


def _children(path: str, node: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for key, value in node.items():
        if isinstance(value, dict):
            yield f"{path}.{key}", value
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    yield f"{path}.{key}[{index}]", item


def schema_problem(field: str, schema: Any) -> Problem | None:
    """The first limit ``schema`` (found at ``field``) breaks, or None."""
    stack: list[tuple[str, Any, int]] = [(field, schema, 0)]
    nodes = 0
    while stack:
        path, node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            return Problem(field, f"must have at most {MAX_SCHEMA_NODES} schema objects")
        if depth > MAX_SCHEMA_DEPTH:
            return Problem(path, f"must nest at most {MAX_SCHEMA_DEPTH} levels deep")
        problem = _bound_problem(path, node)
        if problem is not None:
            return problem
        stack.extend((p, child, depth + 1) for p, child in _children(path, node))
    return None


def body_schema_problems(body: dict[str, Any]) -> list[Problem]:
    """Every schema of ``body`` over a limit (at most one problem per schema)."""
    found = (schema_problem(field, schema) for field, schema in schema_fields(body))
    return [problem for problem in found if problem is not None]
