"""Rules for tools, thinking and structured output on the messages protocol.

See ``mediagen_nb.types._chat_protocol`` for the list; this module holds the messages half.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mediagen_nb.catalog._chat_settings import MIN_THINKING_BUDGET
from mediagen_nb.types._chat_protocol import _name_rule, _schema_object
from mediagen_nb.types._problem import Problem

TOOL_CHOICE_TYPES = ("auto", "any", "none", "tool")


def messages_tool_names(tools: Any) -> list[str]:
    """Names declared in a messages ``tools`` array (valid entries only)."""
    return [
        t["name"]
        for t in (tools if isinstance(tools, list) else [])
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    ]


def _tools(tools: Any) -> Iterator[Problem]:
    if not isinstance(tools, list):
        yield Problem("tools", "must be an array of tools")
        return
    for index, tool in enumerate(tools):
        field = f"tools[{index}]"
        if not isinstance(tool, dict):
            yield Problem(field, "must be an object")
            continue
        yield from _name_rule(tool.get("name"), f"{field}.name")
        if tool.get("type", "custom") != "custom":
            continue  # a server tool (web search, code execution, ...): its own shape
        if "description" in tool and not isinstance(tool["description"], str):
            yield Problem(f"{field}.description", "must be a string")
        schema = tool.get("input_schema")
        if schema is None:
            yield Problem(f"{field}.input_schema", "is required (a JSON Schema of type object)")
        elif not isinstance(schema, dict) or schema.get("type") != "object":
            yield Problem(f"{field}.input_schema", "must be a JSON Schema with type 'object'")
    names = messages_tool_names(tools)
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield Problem("tools", f"tool names must be unique; {name!r} appears twice")


def _tool_choice(choice: Any, tools: Any) -> Iterator[Problem]:
    if choice is None:
        return
    kind = choice.get("type") if isinstance(choice, dict) else None
    if kind not in TOOL_CHOICE_TYPES:
        yield Problem("tool_choice.type", "must be 'auto', 'any', 'none' or 'tool'")
        return
    assert isinstance(choice, dict)
    if kind in ("any", "tool") and not tools:
        yield Problem("tool_choice", f"type {kind!r} needs tools")
    if kind == "tool":
        name = choice.get("name")
        if not isinstance(name, str):
            yield Problem("tool_choice.name", "must name a tool")
        elif name not in messages_tool_names(tools):
            yield Problem("tool_choice.name", f"{name!r} is not among tools")
    parallel = choice.get("disable_parallel_tool_use")
    if parallel is not None and not isinstance(parallel, bool):
        yield Problem("tool_choice.disable_parallel_tool_use", "must be true or false")


def thinking_enabled(thinking: Any) -> bool:
    """Whether a ``thinking`` value turns extended thinking on (``enabled`` or ``adaptive``)."""
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _thinking(request: Any, thinking: Any, choice: Any) -> Iterator[Problem]:
    if thinking is None:
        return
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    if kind not in ("enabled", "disabled", "adaptive"):
        yield Problem("thinking.type", "must be 'enabled', 'disabled' or 'adaptive'")
        return
    assert isinstance(thinking, dict)
    if kind == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool):
            yield Problem("thinking.budget_tokens", "is required: an integer number of tokens")
        elif budget < MIN_THINKING_BUDGET:
            yield Problem("thinking.budget_tokens", f"must be at least {MIN_THINKING_BUDGET}")
        elif budget >= request.max_tokens:
            yield Problem(
                "thinking.budget_tokens",
                f"must be less than max_tokens ({request.max_tokens})",
            )
    if kind == "disabled":
        return
    if request.temperature is not None and request.temperature != 1:
        yield Problem("temperature", "may only be 1 when thinking is enabled")
    choice_type = choice.get("type") if isinstance(choice, dict) else None
    if choice_type in ("any", "tool"):
        yield Problem("tool_choice", "thinking may not be enabled when tool_choice forces tool use")


def _output_format(extra: dict[str, Any]) -> Iterator[Problem]:
    config = extra.get("output_config")
    if config is not None:
        if not isinstance(config, dict):
            yield Problem("output_config", "must be an object")
            return
        yield from _format(config.get("format"), "output_config.format")
    yield from _format(extra.get("output_format"), "output_format")


def _format(value: Any, field: str) -> Iterator[Problem]:
    if value is None:
        return
    if not isinstance(value, dict) or value.get("type") != "json_schema":
        yield Problem(f"{field}.type", "must be 'json_schema'")
        return
    yield from _schema_object(value.get("schema"), f"{field}.schema")


def _blocks(message: Any) -> list[Any]:
    return message.content if isinstance(message.content, list) else []


def _tool_use_ids(message: Any) -> set[str]:
    """Ids of the ``tool_use`` blocks of an assistant message (what the next turn answers)."""
    return {
        b["id"]
        for b in _blocks(message)
        if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str)
    }


def _tool_use_block(block: dict[str, Any], field: str, role: str) -> Iterator[Problem]:
    if role != "assistant":
        yield Problem(field, "tool_use blocks belong in assistant messages")
    for key in ("id", "name"):
        if not isinstance(block.get(key), str):
            yield Problem(f"{field}.{key}", "must be a string")
    if not isinstance(block.get("input"), dict):
        yield Problem(f"{field}.input", "must be an object")


def _tool_result_block(
    block: dict[str, Any], field: str, role: str, wanted: set[str], answered: set[str]
) -> Iterator[Problem]:
    """Rules of a ``tool_result`` block; the id it answers goes into ``answered``."""
    ref = block.get("tool_use_id")
    if role != "user":
        yield Problem(field, "tool_result blocks belong in user messages")
    elif not isinstance(ref, str):
        yield Problem(f"{field}.tool_use_id", "must be a string")
    elif ref not in wanted:
        yield Problem(
            f"{field}.tool_use_id",
            f"{ref!r} does not answer a tool_use block of the previous message",
        )
    else:
        answered.add(ref)


def _turn(message: Any, index: int, wanted: set[str]) -> Iterator[Problem]:
    """One turn's blocks, then whether a user turn answered every pending tool use."""
    answered: set[str] = set()
    for b_index, block in enumerate(_blocks(message)):
        if not isinstance(block, dict):
            continue
        field = f"messages[{index}].content[{b_index}]"
        kind = block.get("type")
        if kind == "tool_use":
            yield from _tool_use_block(block, field, message.role)
        elif kind == "tool_result":
            yield from _tool_result_block(block, field, message.role, wanted, answered)
        elif kind in ("thinking", "redacted_thinking") and message.role != "assistant":
            yield Problem(field, f"{kind} blocks belong in assistant messages")
    missing = wanted - answered
    if missing and message.role == "user":
        yield Problem(
            f"messages[{index}]",
            "must answer every tool_use of the previous message with a tool_result; "
            f"missing {', '.join(sorted(missing))}",
        )


def _turns(messages: list[Any]) -> Iterator[Problem]:
    for index, message in enumerate(messages):
        previous = messages[index - 1] if index > 0 else None
        wanted = (
            _tool_use_ids(previous)
            if previous is not None and previous.role == "assistant"
            else set()
        )
        yield from _turn(message, index, wanted)


def messages_protocol_problems(request: Any) -> Iterator[Problem]:
    """Tool, thinking and structured-output rules of the messages protocol."""
    extra = request.model_extra or {}
    tools = extra.get("tools")
    if tools is not None:
        yield from _tools(tools)
    choice = extra.get("tool_choice")
    yield from _tool_choice(choice, tools)
    yield from _thinking(request, extra.get("thinking"), choice)
    yield from _output_format(extra)
    yield from _turns(request.messages)
