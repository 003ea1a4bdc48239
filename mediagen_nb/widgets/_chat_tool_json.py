"""The tools typed in the chat form: JSON in either protocol's shape, checked and re-shaped.

Accepted: ``{"type": "function", "function": {...}}``, ``{"name", "description",
"input_schema"}`` or the bare ``{"name", "parameters"}``; sent in the chosen protocol's shape.
"""

from __future__ import annotations

import json
from typing import Any

from mediagen_nb.catalog._text import ChatProtocol
from mediagen_nb.types import Problem
from mediagen_nb.types._chat_protocol import TOOL_NAME


def _tool(item: Any, where: str) -> tuple[dict[str, Any] | None, Problem | None]:
    """One typed tool as a neutral ``{name, description, schema}`` dict, or its problem."""
    if not isinstance(item, dict):
        return None, Problem("tools", f"{where} must be a JSON object")
    spec = item.get("function") if item.get("type") == "function" else item
    spec = spec if isinstance(spec, dict) else {}
    name = spec.get("name")
    schema = spec.get("parameters", spec.get("input_schema", {"type": "object"}))
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        return None, Problem("tools", f"{where} needs a name of letters, digits, _ or - (1-64)")
    if not isinstance(schema, dict):
        return None, Problem("tools", f"{name}: parameters must be a JSON Schema object")
    description = str(spec.get("description") or "")
    return {"name": name, "description": description, "schema": schema}, None


def parse_tools(text: str) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The tools typed in the form, as neutral ``{name, description, schema}`` dicts.

    Args:
        text: The JSON typed in the form (an array of tools, or one tool).

    Returns:
        The tools that are well formed, and a problem for each one that is not.
    """
    if not text.strip():
        return [], []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [
            Problem("tools", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
        ]
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return [], [Problem("tools", "must be a JSON array of tools")]
    tools: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for index, item in enumerate(data):
        tool, problem = _tool(item, f"tool {index + 1}")
        if tool is not None:
            tools.append(tool)
        if problem is not None:
            problems.append(problem)
    names = [t["name"] for t in tools]
    problems += [
        Problem("tools", f"{n}: the name is used twice")
        for n in sorted(set(names))
        if names.count(n) > 1
    ]
    return tools, problems


def wire_tools(tools: list[dict[str, Any]], protocol: ChatProtocol) -> list[dict[str, Any]]:
    """Neutral tools in the shape ``protocol`` takes.

    Args:
        tools: Tools as ``parse_tools`` returns them.
        protocol: The chat protocol the request goes to.

    Returns:
        The request's ``tools`` array.
    """
    key = "parameters" if protocol == "chat_completions" else "input_schema"
    shaped = [
        {
            "name": t["name"],
            **({"description": t["description"]} if t["description"] else {}),
            key: t["schema"],
        }
        for t in tools
    ]
    if protocol == "chat_completions":
        return [{"type": "function", "function": t} for t in shaped]
    return shaped
