"""Rules for the tool-use, thinking and structured-output fields of chat-completions.

Each ``Problem`` names the field and the rule; the rules in words are on the design
page, "Request rules where the spec is silent".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mediagen_nb.types._problem import Problem

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_CHOICES = 128


def _name_rule(value: Any, field: str) -> Iterator[Problem]:
    if not isinstance(value, str) or not TOOL_NAME.match(value):
        yield Problem(field, "must be 1 to 64 letters, digits, underscores or dashes")


SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
"""Keywords whose value maps names to schemas."""
SUBSCHEMAS = ("items", "anyOf", "allOf", "oneOf", "not", "additionalProperties")
"""Keywords whose value is a schema or a list of schemas."""


def _strict_object(schema: dict[str, Any], field: str) -> Iterator[Problem]:
    if schema.get("additionalProperties") is not False:
        yield Problem(
            f"{field}.additionalProperties", "must be false in strict mode (on every object)"
        )
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    missing = [name for name in properties if name not in required]
    if missing:
        yield Problem(
            f"{field}.required",
            f"must list every property in strict mode; missing {', '.join(missing)}",
        )


def _subschemas(schema: dict[str, Any], field: str) -> Iterator[tuple[Any, str]]:
    """Each nested schema (or list of schemas) with the field that names it."""
    for key, value in schema.items():
        if key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield sub, f"{field}.{key}.{name}"
        elif key in SUBSCHEMAS:
            yield value, f"{field}.{key}"


def strict_schema_problems(schema: Any, field: str) -> Iterator[Problem]:
    """OpenAI strict mode: every object schema requires all its properties, allows no others."""
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            yield from strict_schema_problems(item, f"{field}[{index}]")
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" or "properties" in schema:
        yield from _strict_object(schema, field)
    for sub, sub_field in _subschemas(schema, field):
        yield from strict_schema_problems(sub, sub_field)


def _schema_object(value: Any, field: str) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield Problem(field, "must be a JSON Schema object")


def _mentions_json(messages: list[Any]) -> bool:
    for message in messages:
        content = message.content
        texts = [content] if isinstance(content, str) else []
        if isinstance(content, list):
            texts = [p.get("text", "") for p in content if isinstance(p, dict)]
        if any(isinstance(t, str) and "json" in t.lower() for t in texts):
            return True
    return False


# -- chat-completions ------------------------------------------------------------------------


def chat_tool_names(tools: Any) -> list[str]:
    """Function names declared in a chat-completions ``tools`` array (valid entries only)."""
    names = []
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


def _function_tool(function: Any, field: str) -> Iterator[Problem]:
    """A ``function`` tool's name, description, parameters and ``strict`` flag."""
    if not isinstance(function, dict):
        yield Problem(field, "must be an object with a name")
        return
    yield from _name_rule(function.get("name"), f"{field}.name")
    if "description" in function and not isinstance(function["description"], str):
        yield Problem(f"{field}.description", "must be a string")
    if "parameters" in function:
        yield from _schema_object(function["parameters"], f"{field}.parameters")
    strict = function.get("strict")
    if strict is not None and not isinstance(strict, bool):
        yield Problem(f"{field}.strict", "must be true or false")
    if strict is True:
        yield from strict_schema_problems(function.get("parameters") or {}, f"{field}.parameters")


def _chat_tool(tool: Any, field: str) -> Iterator[Problem]:
    if not isinstance(tool, dict):
        yield Problem(field, "must be an object")
    elif tool.get("type") == "custom":  # a free-form custom tool (name + optional format)
        custom = tool.get("custom")
        name = custom.get("name") if isinstance(custom, dict) else None
        yield from _name_rule(name, f"{field}.custom.name")
    elif tool.get("type") != "function":
        yield Problem(f"{field}.type", "must be 'function' or 'custom'")
    else:
        yield from _function_tool(tool.get("function"), f"{field}.function")


def _chat_tools(tools: Any) -> Iterator[Problem]:
    if not isinstance(tools, list):
        yield Problem("tools", "must be an array of tools")
        return
    for index, tool in enumerate(tools):
        yield from _chat_tool(tool, f"tools[{index}]")
    names = chat_tool_names(tools)
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield Problem("tools", f"function names must be unique; {name!r} appears twice")


def _chat_tool_choice(choice: Any, tools: Any) -> Iterator[Problem]:
    if choice is None:
        return
    if isinstance(choice, str):
        if choice not in ("none", "auto", "required"):
            yield Problem("tool_choice", "must be 'none', 'auto', 'required' or a named function")
        elif choice != "none" and not tools:
            yield Problem("tool_choice", "is only allowed when tools are given")
        return
    function = choice.get("function") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or choice.get("type") != "function":
        yield Problem("tool_choice", "must be 'none', 'auto', 'required' or a named function")
    elif not isinstance(function, dict) or not isinstance(function.get("name"), str):
        yield Problem("tool_choice.function.name", "must name a function")
    elif function["name"] not in chat_tool_names(tools):
        yield Problem("tool_choice.function.name", f"{function['name']!r} is not among tools")


def _response_format(value: Any, messages: list[Any]) -> Iterator[Problem]:
    if value is None:
        return
    kind = value.get("type") if isinstance(value, dict) else None
    if kind not in ("text", "json_object", "json_schema"):
        yield Problem("response_format.type", "must be 'text', 'json_object' or 'json_schema'")
        return
    assert isinstance(value, dict)
    if kind == "json_object" and not _mentions_json(messages):
        yield Problem(
            "messages", "must contain the word 'json' to use response_format of type json_object"
        )
    if kind != "json_schema":
        return
    spec = value.get("json_schema")
    if not isinstance(spec, dict):
        yield Problem("response_format.json_schema", "must be an object with a name and a schema")
        return
    yield from _name_rule(spec.get("name"), "response_format.json_schema.name")
    if "schema" in spec:
        yield from _schema_object(spec["schema"], "response_format.json_schema.schema")
    strict = spec.get("strict")
    if strict is not None and not isinstance(strict, bool):
        yield Problem("response_format.json_schema.strict", "must be true or false")
    if strict is True:
        yield from strict_schema_problems(
            spec.get("schema") or {}, "response_format.json_schema.schema"
        )


def chat_content_may_be_null(message: Any) -> bool:
    """An assistant turn that carries ``tool_calls`` may have ``content: null``."""
    extra = message.model_extra or {}
    return message.role == "assistant" and message.content is None and bool(extra.get("tool_calls"))


def _tool_message(field: str, extra: dict[str, Any], open_calls: dict[str, int]) -> Problem | None:
    """A ``tool`` turn answers one open call (which it closes), or is a problem."""
    call_id = extra.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        return Problem(f"{field}.tool_call_id", "is required on a tool message")
    if call_id not in open_calls:
        return Problem(
            f"{field}.tool_call_id",
            f"{call_id!r} does not answer a tool call of an earlier assistant message",
        )
    del open_calls[call_id]
    return None


def _tool_call(call: Any, field: str) -> Iterator[Problem]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        yield Problem(f"{field}.id", "must be a string")
    elif not isinstance(function, dict) or not isinstance(function.get("name"), str):
        yield Problem(f"{field}.function.name", "must be a string")
    elif not isinstance(function.get("arguments"), str):
        yield Problem(f"{field}.function.arguments", "must be a JSON string")


def _tool_calls(
    message: Any, field: str, calls: Any, open_calls: dict[str, int]
) -> Iterator[Problem]:
    """An assistant turn's ``tool_calls``; each call with an id is open until answered."""
    if message.role != "assistant":
        yield Problem(f"{field}.tool_calls", "only assistant messages carry tool_calls")
        return
    if not isinstance(calls, list):
        yield Problem(f"{field}.tool_calls", "must be an array")
        return
    for c_index, call in enumerate(calls):
        yield from _tool_call(call, f"{field}.tool_calls[{c_index}]")
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            open_calls[call["id"]] = c_index


def _chat_turns(messages: list[Any]) -> Iterator[Problem]:
    open_calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        extra = message.model_extra or {}
        field = f"messages[{index}]"
        if message.role == "tool":
            problem = _tool_message(field, extra, open_calls)
            if problem is not None:
                yield problem
            continue
        if open_calls:
            ids = ", ".join(sorted(open_calls))
            yield Problem(
                field, f"the tool calls {ids} must each be answered by a tool message first"
            )
            open_calls.clear()
        calls = extra.get("tool_calls")
        if calls is not None:
            yield from _tool_calls(message, field, calls, open_calls)
    if open_calls:
        ids = ", ".join(sorted(open_calls))
        yield Problem("messages", f"the tool calls {ids} are never answered by a tool message")


def chat_protocol_problems(request: Any) -> Iterator[Problem]:
    """Tool, structured-output, ``n`` and ``stream_options`` rules of chat-completions."""
    extra = request.model_extra or {}
    tools = extra.get("tools")
    if tools is not None:
        yield from _chat_tools(tools)
    yield from _chat_tool_choice(extra.get("tool_choice"), tools)
    parallel = extra.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        yield Problem("parallel_tool_calls", "must be true or false")
    yield from _response_format(extra.get("response_format"), request.messages)
    n = extra.get("n")
    if n is not None and (
        not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_CHOICES
    ):
        yield Problem("n", f"must be an integer from 1 to {MAX_CHOICES}")
    options = extra.get("stream_options")
    if options is not None:
        if not isinstance(options, dict):
            yield Problem("stream_options", "must be an object")
        elif request.stream is not True:
            yield Problem("stream_options", "is only allowed when stream is true")
        elif "include_usage" in options and not isinstance(options["include_usage"], bool):
            yield Problem("stream_options.include_usage", "must be true or false")
    yield from _chat_turns(request.messages)
