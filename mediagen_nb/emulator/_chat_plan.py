"""What the emulator answers to a chat request: text, tool calls, thinking, structured output.

Protocol-neutral; ``_chat_wire`` and ``_messages_wire`` put a :class:`Reply` on the wire.
Decisions (deterministic, no model):

- **Tool calls.** ``tool_choice`` forcing a tool (chat ``required`` / a named function;
  messages ``any`` / ``tool``) always calls (the named one, else the best match, else the
  first). Under ``auto`` (the default when tools are given) the emulator calls when the last
  message is the user's text and it names a tool (``get_weather`` or "get weather") or
  asks for what its description offers (a distinctive word of the name, 4+ letters, or of
  the description, 5+ letters, appears in the message); every matching tool is called (best
  match first) unless parallel calls are off (chat ``parallel_tool_calls: false``, messages
  ``disable_parallel_tool_use``). ``none`` never calls. Arguments are an instance of the
  tool's JSON Schema (``_schema_instance``), with hints from the message: a capitalised
  word for place-like properties, the message itself for query-like ones, and an ``enum``
  value the message mentions.
- **Tool results.** When the conversation ends with tool results (chat ``tool`` turns,
  messages ``tool_result`` blocks), the answer text reports each result by tool name.
- **Thinking** (messages, ``thinking`` enabled/adaptive): a short reasoning text about the
  question, at most ``budget_tokens`` tokens, signed with :func:`sign_thinking`; a thinking
  block sent back with a wrong signature is refused (400), as the protocol does.
- **Redacted thinking.** A question holding Anthropic's test trigger
  (``REDACTED_THINKING_TRIGGER``) gets its thinking as a ``redacted_thinking`` block: opaque
  ``data`` (the signed thinking, base64), sent whole in ``content_block_start``.
- **Structured output.** ``json_object``: ``{"answer": <text>}``; ``json_schema`` (chat
  ``response_format``, messages ``output_config.format`` / ``output_format``): an instance of
  the schema, strict mode honoured (every property present).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.emulator._schema_instance import SchemaLimitError, instance_for
from mediagen_nb.emulator._textgen import count_tokens

Protocol = Literal["chat", "messages"]
_SIGN_KEY = b"mediagen-emulator-thinking-v1:"
_GENERIC_TEXT = (
    "about also available call calls current data returns return value values given from "
    "into tool tools using with this that what which when where function input output "
    "information info specified provided tell give show find make local some more many "
    "like just need needs want wants help other their there these those your"
)
_GENERIC = frozenset(_GENERIC_TEXT.split())
_PLACE = ("city", "location", "place", "country", "destination", "town", "region", "where")
_QUERY = ("query", "q", "search", "text", "question", "prompt", "topic", "message", "input")


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


def tools_of(body: dict[str, Any], protocol: Protocol) -> list[Tool]:
    """The request's declared tools (server tools on messages are left out)."""
    found: list[Tool] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if protocol == "chat" else tool
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            continue
        if protocol == "messages" and tool.get("type", "custom") != "custom":
            continue
        schema = spec.get("parameters") if protocol == "chat" else spec.get("input_schema")
        found.append(
            Tool(
                spec["name"],
                str(spec.get("description") or ""),
                schema if isinstance(schema, dict) else {"type": "object", "properties": {}},
                spec.get("strict") is True,
            )
        )
    return found


def _choice(body: dict[str, Any], protocol: Protocol) -> tuple[str, str | None, bool]:
    """(mode "none"/"auto"/"force", forced name or None, parallel allowed)."""
    choice = body.get("tool_choice")
    if protocol == "chat":
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


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{4,}", text)}


def _score(tool: Tool, question: str) -> int:
    low = question.lower()
    if tool.name.lower() in low or tool.name.replace("_", " ").lower() in low:
        return 100
    asked = _words(question)
    described = {w for w in _words(tool.description) if len(w) >= 5}
    offered = (_words(tool.name.replace("_", " ")) | described) - _GENERIC
    hits = 0
    for word in offered:
        stem = word[:5]
        if any(a == word or (len(word) >= 5 and a.startswith(stem)) for a in asked):
            hits += 1
    return hits


def _proper_nouns(text: str) -> list[str]:
    """Capitalised words that do not start a sentence (place and person names, mostly)."""
    found: list[str] = []
    sentence_start = True
    for match in re.finditer(r"[^\W\d_][\w'-]*|[.!?]", text):
        word = match.group()
        if word in ".!?":
            sentence_start = True
            continue
        if not sentence_start and word[:1].isupper() and len(word) >= 3:
            found.append(word)
        sentence_start = False
    return found


def _hints(question: str) -> dict[str, str]:
    hints: dict[str, str] = {}
    names = _proper_nouns(question)
    if names:
        for key in _PLACE:
            hints[key] = names[0]
        hints["name"] = names[0]
    short = question.strip().rstrip("?.!")[:120]
    if short:
        for key in _QUERY:
            hints[key] = short
    return hints


def plan_calls(
    body: dict[str, Any],
    protocol: Protocol,
    question: str,
    after_results: bool,
    *,
    seed: int,
    id_seed: str,
) -> list[PlannedCall]:
    """The tool calls the reply makes (empty: answer with text)."""
    tools = tools_of(body, protocol)
    mode, forced, parallel = _choice(body, protocol)
    if not tools or mode == "none":
        return []
    chosen: list[Tool]
    if mode == "force":
        named = [t for t in tools if t.name == forced]
        ranked = sorted(tools, key=lambda t: -_score(t, question))
        chosen = named or ranked[:1]
    else:
        if after_results:
            return []
        scored = sorted(
            ((_score(t, question), i, t) for i, t in enumerate(tools)), key=lambda x: (-x[0], x[1])
        )
        chosen = [t for s, _, t in scored if s > 0]
        if not parallel:
            chosen = chosen[:1]
    hints = _hints(question)
    prefix = "call_" if protocol == "chat" else "toolu_"
    calls = []
    for index, tool in enumerate(chosen):
        try:
            arguments = instance_for(
                tool.schema, seed=seed + index, hints=hints, strict=tool.strict, context=question
            )
        except SchemaLimitError as exc:
            raise SchemaLimitError(f"tool {tool.name!r} schema, {exc.field}", exc.rule) from exc
        digest = hashlib.sha256(f"{id_seed}:{index}:{tool.name}".encode()).hexdigest()
        calls.append(PlannedCall(prefix + digest[:24], tool.name, arguments))
    return calls


def results_answer(results: list[tuple[str, str]]) -> str:
    """The answer text after tool results: each result reported by its tool's name."""
    parts = ["Here is what the tools returned."]
    for name, content in results:
        shown = " ".join(content.split())
        shown = shown if len(shown) <= 160 else shown[:157] + "…"
        parts.append(f"{name}: “{shown}”.")
    parts.append("Based on this, that is the answer to your question.")
    return " ".join(parts)


REDACTED_THINKING_TRIGGER = (
    "ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_"
    "46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB"
)
"""The string Anthropic documents for testing redacted thinking."""


def redacted_data(thinking: str) -> str:
    """The opaque ``data`` of a redacted thinking block (its text and signature, encoded)."""
    blob = json.dumps([thinking, sign_thinking(thinking)]).encode()
    return base64.b64encode(blob).decode()


def sign_thinking(thinking: str) -> str:
    """The signature of a thinking text (base64 of a keyed SHA-256)."""
    return base64.b64encode(hashlib.sha256(_SIGN_KEY + thinking.encode()).digest()).decode()


def thinking_text(question: str, budget: int) -> str:
    """A short, deterministic reasoning text about ``question``, at most ``budget`` tokens."""
    topic = " ".join(question.split())[:160] or "an empty message"
    text = (
        f"The user asks: “{topic}”. First I identify what is being asked and which terms "
        "matter most. Then I check whether a tool is needed or whether I can answer "
        "directly. I will keep the answer short, concrete and friendly, and end with a "
        "pointer for a follow-up."
    )
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    return text if len(ends) <= budget else text[: ends[max(budget, 1) - 1]]


def thinking_budget(body: dict[str, Any]) -> int | None:
    """Budget of extended thinking (``adaptive``: a quarter of max_tokens), or None when off."""
    thinking = body.get("thinking")
    if not isinstance(thinking, dict):
        return None
    if thinking.get("type") == "enabled":
        return int(thinking.get("budget_tokens") or 0)
    if thinking.get("type") == "adaptive":
        return max(16, int(body.get("max_tokens") or 0) // 4)
    return None


def bad_signature(body: dict[str, Any]) -> str | None:
    """The field of a thinking block sent back with a wrong signature, else None."""
    for m_index, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        for b_index, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "thinking":
                text = block.get("thinking")
                if not isinstance(text, str) or block.get("signature") != sign_thinking(text):
                    return f"messages.{m_index}.content.{b_index}"
    return None


def output_schema(
    body: dict[str, Any], protocol: Protocol
) -> tuple[str, dict[str, Any], bool] | None:
    """(kind "json_object"/"json_schema", schema, strict) of a structured-output request."""
    if protocol == "chat":
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


def structured_text(
    kind: str, schema: dict[str, Any], *, strict: bool, answer: str, question: str, seed: int
) -> str:
    """The JSON text of a structured-output reply."""
    if kind == "json_object":
        value: Any = {"answer": answer}
    else:
        try:
            value = instance_for(
                schema, seed=seed, hints=_hints(question), strict=strict, context=question
            )
        except SchemaLimitError as exc:
            raise SchemaLimitError(f"output schema, {exc.field}", exc.rule) from exc
    return json.dumps(value, ensure_ascii=False)


def call_tokens(calls: list[PlannedCall]) -> int:
    """Output tokens of tool calls (name plus argument JSON)."""
    return sum(count_tokens(c.name) + count_tokens(c.json) for c in calls)


def tool_results(body: dict[str, Any], protocol: Protocol) -> list[tuple[str, str]] | None:
    """(tool name, result text) of the tool results that end the conversation, else None."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    names: dict[str, str] = {}
    for message in messages:
        if protocol == "chat":
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names[str(call.get("id"))] = str(call["function"].get("name"))
        elif isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    names[str(block.get("id"))] = str(block.get("name"))
    if protocol == "chat":
        trailing: list[tuple[str, str]] = []
        for message in reversed(messages):
            if message.get("role") != "tool":
                break
            call_id = str(message.get("tool_call_id"))
            trailing.insert(0, (names.get(call_id, call_id), _text_of(message.get("content"))))
        return trailing or None
    last = messages[-1] if messages else {}
    blocks = last.get("content") if last.get("role") == "user" else None
    results = [
        (names.get(str(b.get("tool_use_id")), "tool"), _text_of(b.get("content")))
        for b in (blocks if isinstance(blocks, list) else [])
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    return results or None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text")) for p in content if isinstance(p, dict) and "text" in p)
    return "" if content is None else json.dumps(content)
