"""Typed answers (``parse``) and tool loops (``run_tools``) on top of chat and messages."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar, get_type_hints

from pydantic import BaseModel, ValidationError, create_model

from mediagen_nb.types import (
    ChatCompletion,
    ChatProtocol,
    Message,
    ToolCall,
    ToolUseBlock,
    tool_results_turn,
)

from ._exceptions import ToolLoopError

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R", ChatCompletion, Message)


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call the loop ran: the function's name, its arguments and its result.

    Attributes:
        name: The tool's (the function's) name.
        arguments: The arguments the model sent, as decoded JSON.
        result: What went back to the model: a ``str`` result as is, anything else as
            JSON, or the error text.
        is_error: True when the arguments were invalid or the function raised.
    """

    name: str
    arguments: dict[str, Any]
    result: str
    is_error: bool = False


@dataclass
class ToolRun(Generic[R]):
    """What ``run_tools`` returns: the final reply, every call made, the whole conversation.

    Attributes:
        final: The last reply, the one that called no tool (with ``parsed`` /
            ``parsed_output`` set when a typed answer was asked for).
        calls: Every tool call run, in order.
        messages: The conversation sent last: your messages, then each reply that called
            tools and its results (append ``final``'s turn to continue it).
        steps: Requests sent (the last one answered without a tool call).
    """

    final: R
    calls: list[ToolCallRecord] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    """Requests sent (the last one answered without a tool call)."""


@dataclass(frozen=True)
class FunctionTool:
    """A Python function offered as a tool; ``function_tool`` builds one.

    Attributes:
        function: The function (sync or async) the loop calls.
        name: The tool's name, the function's.
        description: The first paragraph of the function's docstring.
        arguments: A pydantic model of the function's parameters; its JSON Schema is
            what the model sees, and it validates the model's arguments before a call.
    """

    function: Callable[..., Any]
    name: str
    description: str
    arguments: type[BaseModel]

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON Schema of the arguments (an object)."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return schema

    def chat_param(self) -> dict[str, Any]:
        """The chat-completions ``tools`` entry."""
        spec = {"name": self.name, "description": self.description, "parameters": self.schema}
        return {"type": "function", "function": spec}

    def messages_param(self) -> dict[str, Any]:
        """The messages ``tools`` entry."""
        return {"name": self.name, "description": self.description, "input_schema": self.schema}

    async def run(self, arguments: dict[str, Any]) -> tuple[str, bool]:
        """Validate the arguments and call the function once.

        Args:
            arguments: The arguments the model sent.

        Returns:
            The result text (a ``str`` as is, anything else as JSON) and False; or the
            error text (invalid arguments, or the exception the function raised) and True.
        """
        try:
            checked = self.arguments.model_validate(arguments)
            kwargs = {name: getattr(checked, name) for name in type(checked).model_fields}
            value = self.function(**kwargs)
            if inspect.isawaitable(value):
                value = await value
        except ValidationError as exc:
            return f"invalid arguments for {self.name}: {exc}", True
        except Exception as exc:  # the model sees what went wrong, as SDK tool runners do
            return f"{type(exc).__name__}: {exc}", True
        return _as_text(value), False


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False, default=str)


def function_tool(function: Callable[..., Any]) -> FunctionTool:
    """``function`` as a tool a chat call can offer and run.

    ``tools=[get_weather]`` does this for you; call it to inspect the schema or reuse it.

    Args:
        function: A function (sync or async) with type hints on every argument; its name
            is the tool's name, the first paragraph of its docstring the description.

    Returns:
        The tool: its JSON schema comes from the hints, and its ``run`` validates the
        model's arguments before calling the function.

    Raises:
        TypeError: The function takes ``*args`` or ``**kwargs``, which no schema describes.
    """
    hints = get_type_hints(function)
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"tool {function.__name__}: *args / **kwargs cannot be described")
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[name] = (hints.get(name, Any), default)
    model = create_model(f"{function.__name__}_arguments", **fields)
    doc = inspect.getdoc(function) or ""
    description = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    return FunctionTool(function, function.__name__, description, model)


def strict_schema(schema: Any) -> Any:
    """``schema`` in OpenAI's strict form: every object closed, every property required."""
    if isinstance(schema, list):
        return [strict_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: strict_schema(v) for k, v in schema.items()}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: strict_schema(v) for k, v in schema["properties"].items()}
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    if isinstance(schema.get("$defs"), dict):
        out["$defs"] = {k: strict_schema(v) for k, v in schema["$defs"].items()}
    return out


def json_schema_format(model: type[BaseModel]) -> dict[str, Any]:
    """The chat ``response_format`` asking for an instance of ``model`` (strict)."""
    schema = strict_schema(model.model_json_schema())
    spec = {"name": model.__name__, "schema": schema, "strict": True}
    return {"type": "json_schema", "json_schema": spec}


def output_config(model: type[BaseModel]) -> dict[str, Any]:
    """The messages ``output_config`` asking for an instance of ``model``."""
    return {"format": {"type": "json_schema", "schema": model.model_json_schema()}}


def parsed_chat(reply: ChatCompletion, model: type[M]) -> ChatCompletion:
    """``reply`` with ``choices[i].message.parsed`` set (None where a tool was called)."""
    for choice in reply.choices:
        content = choice.message.content
        if content is not None and not choice.message.tool_calls:
            choice.message.parsed = model.model_validate_json(content)
    return reply


def parsed_message(reply: Message, model: type[M]) -> Message:
    """``reply`` with ``parsed_output`` set (None when the reply stopped at a tool call)."""
    if reply.stop_reason != "tool_use":
        reply.parsed_output = model.model_validate_json(reply.text)
    return reply


Send = Callable[[list[dict[str, Any]]], Awaitable[R]]


async def tool_loop(
    protocol: ChatProtocol,
    send: Send[R],
    messages: list[dict[str, Any]],
    tools: Sequence[FunctionTool],
    max_steps: int,
) -> ToolRun[R]:
    """Send, run the tool calls, send again, until a reply calls no tool or ``max_steps``."""
    by_name = {t.name: t for t in tools}
    conversation = list(messages)
    calls: list[ToolCallRecord] = []
    for step in range(1, max_steps + 1):
        reply = await send(conversation)
        run = ToolRun(reply, calls, conversation, step)
        asked = _asked(reply)
        if not asked:
            return run
        turn = reply.to_param() if isinstance(reply, Message) else reply.message.to_param()
        conversation.append(turn)
        answers: list[dict[str, Any]] = []
        for name, arguments, reply_to in asked:
            tool = by_name.get(name)
            text, failed = await tool.run(arguments) if tool else (f"no tool named {name!r}", True)
            calls.append(ToolCallRecord(name, arguments, text, failed))
            answers.append(reply_to(text, failed))
        if protocol == "chat_completions":
            conversation.extend(answers)
        else:
            conversation.append(tool_results_turn(*answers))
    raise ToolLoopError(f"the model still called tools after {max_steps} requests")


Answer = Callable[[str, bool], dict[str, Any]]


def _asked(reply: ChatCompletion | Message) -> list[tuple[str, dict[str, Any], Answer]]:
    """(name, arguments, how to answer) of each tool call of ``reply``."""
    found: list[tuple[str, dict[str, Any], Answer]] = []
    if isinstance(reply, Message):
        for use in reply.tool_uses:
            arguments = use.input if isinstance(use.input, dict) else {}
            found.append((use.name, arguments, partial(_use_result, use)))
        return found
    for call in reply.tool_calls:
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except ValueError:
            arguments = {}
        found.append((call.name, arguments, partial(_call_result, call)))
    return found


def _use_result(use: ToolUseBlock, text: str, failed: bool) -> dict[str, Any]:
    return use.result(text, is_error=failed)


def _call_result(call: ToolCall, text: str, _failed: bool) -> dict[str, Any]:
    return call.result(text)
