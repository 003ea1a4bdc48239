"""Structured output: ``json_schema`` (chat ``response_format``, messages ``output_config``
/ ``output_format``) gets a schema instance, strict mode honoured, filled from the
conversation's facts (``_chat_facts``); JSON asked for in words the same, fenced when a code
block is asked for; ``json_object`` alone ``{"answer": <text>}``.
"""

from __future__ import annotations

import json
from typing import Any

from mediagen_nb.emulator._chat_plan import AgentTask
from mediagen_nb.emulator._schema_instance import SchemaLimitError, instance_for
from mediagen_nb.emulator._schema_limits import Budget
from mediagen_nb.types import ChatProtocol


def output_schema(
    body: dict[str, Any], protocol: ChatProtocol
) -> tuple[str, dict[str, Any], bool] | None:
    """(kind "json_object"/"json_schema", schema, strict) of a structured-output request."""
    if protocol == "chat_completions":
        fmt = body.get("response_format")
        if not isinstance(fmt, dict):
            return None
        if fmt.get("type") == "json_object":
            return "json_object", {}, False
        spec = fmt.get("json_schema")
        if fmt.get("type") == "json_schema" and isinstance(spec, dict):
            schema = spec.get("schema")
            return (
                "json_schema",
                schema if isinstance(schema, dict) else {},
                spec.get("strict") is True,
            )
        return None
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else body.get("output_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema")
        return "json_schema", schema if isinstance(schema, dict) else {}, True
    return None


def prompted_text(
    schema: dict[str, Any],
    *,
    fenced: bool,
    task: AgentTask,
    seed: int,
    budget: Budget | None = None,
) -> str:
    """The reply to JSON asked for in words: an instance of ``schema``, fenced if asked."""
    text = structured_text(
        "json_schema", schema, strict=True, answer="", task=task, seed=seed, budget=budget
    )
    return f"```json\n{text}\n```" if fenced else text


def structured_text(
    kind: str,
    schema: dict[str, Any],
    *,
    strict: bool,
    answer: str,
    task: AgentTask,
    seed: int,
    budget: Budget | None = None,
) -> str:
    """The JSON text of a structured-output reply, filled from the task's facts."""
    if kind == "json_object":
        value: Any = {"answer": answer}
    else:
        try:
            value = instance_for(
                schema,
                seed=seed,
                hints=task.read.hints,
                strict=strict,
                context=task.read.context,
                lookup=task.facts.lookup,
                budget=budget,
            )
        except SchemaLimitError as exc:
            raise SchemaLimitError(f"output schema, {exc.field}", exc.rule) from exc
    return json.dumps(value, ensure_ascii=False)
