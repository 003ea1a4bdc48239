"""What the emulator answers to a chat request: which tools it calls, with what, and the text
after tool results. Deterministic, no model; both protocols (``_chat_wire`` and
``_messages_wire`` put a reply on the wire). The planner's rules are on the design page
("How the emulator plans tool calls").
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from mediagen_nb.emulator._chat_facts import Facts, Step, proper_nouns, text_of
from mediagen_nb.emulator._schema_instance import SchemaLimitError, instance_for
from mediagen_nb.emulator._schema_limits import Budget
from mediagen_nb.emulator._textgen import count_tokens
from mediagen_nb.types import ChatProtocol

_GENERIC_TEXT = (
    "about also available call calls current data returns return value values given from "
    "into tool tools using with this that what which when where function input output "
    "information info specified provided tell give show find make local some more many "
    "like just need needs want wants help other their there these those your"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())
_PLACE = ("city", "location", "place", "country", "destination", "town", "region", "where")
_QUERY = ("query", "q", "search", "text", "question", "prompt", "topic", "message", "input")
_FINAL_NAMES = ("final_result", "final_answer", "final_output", "final_response")
_FINAL_PHRASES = ("final response", "final answer", "ends this conversation")
MAX_STEPS = 8
"""Distinct tool calls a task may make before the planner finishes it."""
MAX_REPORTED = 20
"""Tool results an answer reports one by one (the rest are counted)."""
CONTEXT_CHARS = 10_000
"""Characters of the question an ``enum`` value it mentions is looked for in."""


@dataclass(frozen=True)
class Tool:
    """A declared tool, the same for both protocols."""

    name: str
    description: str
    schema: dict[str, Any]
    strict: bool


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the reply makes."""

    id: str
    name: str
    arguments: Any

    @property
    def json(self) -> str:
        """The arguments as compact JSON text."""
        return json.dumps(self.arguments, ensure_ascii=False)


def tools_of(body: dict[str, Any], protocol: ChatProtocol) -> list[Tool]:
    """The request's declared tools (server tools on messages are left out)."""
    found: list[Tool] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if protocol == "chat_completions" else tool
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            continue
        if protocol == "messages" and tool.get("type", "custom") != "custom":
            continue
        schema = (
            spec.get("parameters") if protocol == "chat_completions" else spec.get("input_schema")
        )
        found.append(
            Tool(
                spec["name"],
                str(spec.get("description") or ""),
                schema if isinstance(schema, dict) else {"type": "object", "properties": {}},
                spec.get("strict") is True,
            )
        )
    return found


def _choice(body: dict[str, Any], protocol: ChatProtocol) -> tuple[str, str | None, bool]:
    """(mode "none"/"auto"/"force", forced name or None, parallel allowed)."""
    choice = body.get("tool_choice")
    if protocol == "chat_completions":
        parallel = body.get("parallel_tool_calls") is not False
        if choice in (None, "auto"):
            return "auto", None, parallel
        if choice == "none":
            return "none", None, parallel
        if choice == "required":
            return "force", None, parallel
        name = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
        return "force", name, parallel
    kind = choice.get("type") if isinstance(choice, dict) else "auto"
    parallel = not (isinstance(choice, dict) and choice.get("disable_parallel_tool_use") is True)
    if kind == "none":
        return "none", None, parallel
    if kind == "any":
        return "force", None, parallel
    if kind == "tool":
        return "force", str(choice.get("name")) if isinstance(choice, dict) else None, parallel
    return "auto", None, parallel


def forces_tool(body: dict[str, Any], protocol: ChatProtocol) -> bool:
    """Whether ``tool_choice`` makes the reply call a tool (chat required/named, messages
    any/tool)."""
    return bool(tools_of(body, protocol)) and _choice(body, protocol)[0] == "force"


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{4,}", text)}


def _score(tool: Tool, task: AgentTask) -> int:
    low = task.read.low
    if tool.name.lower() in low or tool.name.replace("_", " ").lower() in low:
        return 100
    asked = task.read.asked
    described = {w for w in _words(tool.description) if len(w) >= 5}
    offered = (_words(tool.name.replace("_", " ")) | described) - _GENERIC
    hits = 0
    for word in offered:
        stem = word[:5]
        if any(a == word or (len(word) >= 5 and a.startswith(stem)) for a in asked):
            hits += 1
    return hits


def _hints(question: str) -> dict[str, str]:
    hints: dict[str, str] = {}
    names = proper_nouns(question)
    if names:
        for key in _PLACE:
            hints[key] = names[0]
        hints["name"] = names[0]
    short = question.strip().rstrip("?.!")[:120]
    if short:
        for key in _QUERY:
            hints[key] = short
    return hints


def _is_final(tool: Tool) -> bool:
    low = f"{tool.name} {tool.description}".lower()
    return tool.name.lower().startswith(_FINAL_NAMES) or any(p in low for p in _FINAL_PHRASES)


def _is_handoff(tool: Tool) -> bool:
    return tool.name.startswith("transfer_to_")


def _ready(tool: Tool, facts: Facts) -> bool:
    """False when a required numeric argument has no value in the conversation yet."""
    properties = tool.schema.get("properties")
    required = tool.schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return True
    for key in required:
        sub = properties.get(key)
        if not isinstance(sub, dict) or sub.get("type") not in ("number", "integer"):
            continue
        if not facts.has_number_for(str(key), sub):
            return False
    return True


@dataclass(frozen=True)
class Reading:
    """What the planner reads from a task's question and steps, once per request."""

    low: str
    """The question in lower case."""
    asked: set[str]
    """The question's words of 4+ letters, lower case."""
    hints: dict[str, str]
    """Preferred values of place-, name- and query-like properties."""
    context: str
    """The part of the question an ``enum`` value is looked for in."""
    made: set[str]
    """Keys of the calls made since the question."""


@dataclass(frozen=True)
class AgentTask:
    """What the planner knows: the question, the steps so far and the facts they give.

    ``reading`` is made from the question and steps when not given; the choices of one
    request share it (:meth:`answered`).
    """

    question: str
    steps: list[Step]
    facts: Facts
    reading: Reading | None = None

    def __post_init__(self) -> None:
        if self.reading is None:
            question = self.question
            read = Reading(
                question.lower(),
                _words(question),
                _hints(question),
                question[:CONTEXT_CHARS],
                {s.key for s in self.steps},
            )
            object.__setattr__(self, "reading", read)

    @property
    def read(self) -> Reading:
        """What was read from the question and steps."""
        assert self.reading is not None  # set in __post_init__
        return self.reading

    def answered(self, answer: str) -> AgentTask:
        """This task for one choice whose answer text is ``answer`` (the facts' prose)."""
        return replace(self, facts=self.facts.answered(answer))


def _ranked(tools: list[Tool], task: AgentTask) -> list[tuple[int, Tool]]:
    """``(score, tool)`` best first; ties keep the declared order."""
    scored = sorted(
        ((_score(t, task), i, t) for i, t in enumerate(tools)), key=lambda x: (-x[0], x[1])
    )
    return [(score, tool) for score, _, tool in scored]


def _needed_tools(work: list[Tool], done: set[str], task: AgentTask) -> list[Tool]:
    """Rule 3: the work tools the question asks for and not yet called, those ready first."""
    needed = [t for score, t in _ranked([t for t in work if t.name not in done], task) if score]
    ready = [t for t in needed if _ready(t, task.facts)]
    return ready or needed[:1]


def _handoff(tools: list[Tool], task: AgentTask) -> list[Tool]:
    """Rule 4: the handoff whose target the question names, once per task."""
    if any(s.name.startswith("transfer_to_") for s in task.steps):
        return []
    ranked = _ranked([t for t in tools if _is_handoff(t)], task)
    return [ranked[0][1]] if ranked and ranked[0][0] > 0 else []


def _last_resort(tools: list[Tool], mode: str, done: set[str], task: AgentTask) -> list[Tool]:
    """Rule 5: a final-answer tool, else under a forced choice the best match not yet called."""
    finals = [t for t in tools if _is_final(t)]
    work = [t for t in tools if not _is_final(t) and not _is_handoff(t)]
    if finals and (task.steps or mode == "force" or not work):
        return finals[:1]
    if mode == "force":
        fresh = [t for t in tools if t.name not in done]
        return sorted(fresh or tools, key=lambda t: -_score(t, task))[:1]
    return []


def _next_tools(tools: list[Tool], mode: str, forced: str | None, task: AgentTask) -> list[Tool]:
    """The tools the next step calls (the rules on the design page), best first."""
    if forced is not None:
        return [t for t in tools if t.name == forced][:1]
    done = {s.name for s in task.steps}
    if len(task.read.made) < MAX_STEPS:
        work = [t for t in tools if not _is_final(t) and not _is_handoff(t)]
        chosen = _needed_tools(work, done, task) or _handoff(tools, task)
        if chosen:
            return chosen
    return _last_resort(tools, mode, done, task)


@dataclass(frozen=True)
class Plan:
    """The tools the next step calls (the same for every choice of a request)."""

    tools: list[Tool]
    forced: str | None
    mode: str
    prefix: str


def plan_tools(body: dict[str, Any], protocol: ChatProtocol, task: AgentTask) -> Plan:
    """Which tools the reply calls (the rules on the design page); arguments come per choice."""
    tools = tools_of(body, protocol)
    mode, forced, parallel = _choice(body, protocol)
    prefix = "call_" if protocol == "chat_completions" else "toolu_"
    if not tools or mode == "none":
        return Plan([], forced, mode, prefix)
    chosen = _next_tools(tools, mode, forced, task)
    if not parallel or any(_is_final(t) or _is_handoff(t) for t in chosen):
        chosen = chosen[:1]
    return Plan(chosen, forced, mode, prefix)


def plan_calls(
    body: dict[str, Any],
    protocol: ChatProtocol,
    task: AgentTask,
    *,
    seed: int,
    id_seed: str,
    plan: Plan | None = None,
    budget: Budget | None = None,
) -> list[PlannedCall]:
    """The tool calls the reply makes (empty: answer with text or structured output).

    ``plan`` (from :func:`plan_tools`, once per request) and ``budget`` (the request's
    output allowance) are shared by the choices of one request.
    """
    plan = plan or plan_tools(body, protocol, task)
    calls = []
    for index, tool in enumerate(plan.tools):
        try:
            arguments = instance_for(
                tool.schema,
                seed=seed + index,
                hints=task.read.hints,
                strict=tool.strict,
                context=task.read.context,
                lookup=task.facts.lookup,
                budget=budget,
            )
        except SchemaLimitError as exc:
            raise SchemaLimitError(f"tool {tool.name!r} schema, {exc.field}", exc.rule) from exc
        repeated = Step(tool.name, arguments, None).key in task.read.made
        if repeated and plan.forced is None and plan.mode != "force":
            continue  # the same call with the same arguments: never repeated
        digest = hashlib.sha256(f"{id_seed}:{index}:{tool.name}".encode()).hexdigest()
        calls.append(PlannedCall(plan.prefix + digest[:24], tool.name, arguments))
    return calls


def results_answer(results: list[tuple[str, str]]) -> str:
    """The answer text after tool results: each result reported by its tool's name (the
    first ``MAX_REPORTED``, then how many more)."""
    parts = ["Here is what the tools returned."]
    for name, content in results[:MAX_REPORTED]:
        shown = " ".join(content[:2000].split())
        shown = shown if len(shown) <= 160 else shown[:157] + "…"
        parts.append(f"{name[:80]}: “{shown}”.")
    if len(results) > MAX_REPORTED:
        parts.append(f"And {len(results) - MAX_REPORTED} more results.")
    parts.append("Based on this, that is the answer to your question.")
    return " ".join(parts)


def call_tokens(calls: list[PlannedCall]) -> int:
    """Output tokens of tool calls (name plus argument JSON)."""
    return sum(count_tokens(c.name) + count_tokens(c.json) for c in calls)


def _call_names(messages: list[dict[str, Any]], protocol: ChatProtocol) -> dict[str, str]:
    """Tool-call id -> tool name, for every call the assistant made in ``messages``."""
    names: dict[str, str] = {}
    for message in messages:
        if protocol == "chat_completions":
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names[str(call.get("id"))] = str(call["function"].get("name"))
        elif isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    names[str(block.get("id"))] = str(block.get("name"))
    return names


def tool_results(body: dict[str, Any], protocol: ChatProtocol) -> list[tuple[str, str]] | None:
    """(tool name, result text) of the tool results that end the conversation, else None."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    names = _call_names(messages, protocol)
    if protocol == "chat_completions":
        trailing: list[tuple[str, str]] = []
        for message in reversed(messages):
            if message.get("role") != "tool":
                break
            call_id = str(message.get("tool_call_id"))
            trailing.insert(0, (names.get(call_id, call_id), text_of(message.get("content"))))
        return trailing or None
    last = messages[-1] if messages else {}
    blocks = last.get("content") if last.get("role") == "user" else None
    results = [
        (names.get(str(b.get("tool_use_id")), "tool"), text_of(b.get("content")))
        for b in (blocks if isinstance(blocks, list) else [])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    return results or None
