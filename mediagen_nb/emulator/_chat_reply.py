"""One reply (or choice) of the text gateway, before either protocol puts it on the wire.

Combines ``_textgen`` (the answer text and token counts) with ``_chat_plan`` (tool calls,
tool-result answers, thinking, structured output). Token counts: ``prompt_tokens`` is the
conversation's (``_textgen``) plus the tokens of the declared tools' JSON;
``completion_tokens`` counts the text, the thinking and the tool calls (name and argument
JSON). ``max_tokens`` covers thinking and text together (the messages protocol's rule), so
the text gets what the thinking left.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.emulator._chat_facts import facts_of, prompted_schema, task_steps, without_json
from mediagen_nb.emulator._chat_plan import (
    REDACTED_THINKING_TRIGGER,
    PlannedCall,
    Protocol,
    Task,
    call_tokens,
    forces_tool,
    output_schema,
    plan_calls,
    prompted_text,
    results_answer,
    sign_thinking,
    structured_text,
    thinking_budget,
    thinking_text,
    tool_results,
)
from mediagen_nb.emulator._textgen import Conversation, compose, count_tokens, limit, request_seed

Finish = Literal["end", "length", "stop", "tool"]


@dataclass(frozen=True)
class Reply:
    """What one reply says; the wire modules format it."""

    text: str
    finish: Finish
    stop_sequence: str | None
    calls: tuple[PlannedCall, ...]
    thinking: str | None
    """Extended-thinking text (messages with thinking on), else None."""
    signature: str | None
    redacted: bool
    """True: the thinking goes out as a ``redacted_thinking`` block."""
    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.prompt_tokens + self.completion_tokens


def _question(conversation: Conversation) -> str:
    """The last user turn that has text of its own (tool-result turns have none)."""
    for role, text in reversed(conversation.turns):
        if role == "user" and text.strip():
            return text
    return ""


def _task_results(task: Task, trailing: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every result the task has had, in call order (a two-step run answers from both
    steps, not only the last); the trailing results when no step holds one."""
    answered = [(s.name, s.result) for s in task.steps if s.result is not None]
    return answered or trailing


def _answer(
    body: dict[str, Any],
    protocol: Protocol,
    *,
    conversation: Conversation,
    task: Task,
    answer: str,
    results: list[tuple[str, str]] | None,
    seed: int,
) -> str:
    """The answer step's text: schema instance, JSON asked in words, or prose."""
    structured = output_schema(body, protocol)
    if structured is not None and structured[0] == "json_schema":
        _, schema, strict = structured
        return structured_text(
            "json_schema", schema, strict=strict, answer=answer, task=task, seed=seed
        )
    texts = [conversation.system, _question(conversation)]
    prompted = prompted_schema(texts, json_mode=structured is not None)
    if prompted is not None:
        return prompted_text(prompted[0], fenced=prompted[1], task=task, seed=seed)
    said = results_answer(_task_results(task, results)) if results is not None else answer
    if structured is not None:
        return structured_text("json_object", {}, strict=False, answer=said, task=task, seed=seed)
    return said


def build_reply(
    body: dict[str, Any],
    protocol: Protocol,
    conversation: Conversation,
    *,
    model: str,
    max_tokens: int | None,
    stop: list[str],
    id_seed: str,
    choice: int = 0,
) -> Reply:
    """The reply to ``body``; ``choice`` > 0 words choice ``n`` differently (chat ``n``)."""
    knobs = body if choice == 0 else {**body, "seed": [body.get("seed"), choice]}
    seed = request_seed(model, conversation, knobs)
    tools = body.get("tools")
    prompt = conversation.prompt_tokens + (count_tokens(json.dumps(tools)) if tools else 0)
    results = tool_results(body, protocol)
    last_is_user_text = bool(conversation.turns) and conversation.turns[-1][0] == "user"
    question = _question(conversation)
    answer = compose(model, conversation, knobs)
    plain = without_json(question)
    steps = task_steps(body, protocol)
    task = Task(plain, steps, facts_of(steps, plain, answer))
    calls: list[PlannedCall] = []
    if results is not None or last_is_user_text:
        calls = plan_calls(body, protocol, task, seed=seed, id_seed=f"{id_seed}:{choice}")
    budget = thinking_budget(body) if protocol == "messages" else None
    thinking = thinking_text(question, budget) if budget else None
    think_tokens = count_tokens(thinking) if thinking else 0
    if calls:
        names = ", ".join(c.name for c in calls)
        quiet = (
            protocol == "chat"
            or forces_tool(body, protocol)
            or output_schema(body, protocol) is not None  # all text must be the schema's
        )
        text = "" if quiet else f"I'll use {names} to answer that."
    else:
        text = _answer(
            body,
            protocol,
            conversation=conversation,
            task=task,
            answer=answer,
            results=results,
            seed=seed,
        )
    room = None if max_tokens is None else max(0, max_tokens - think_tokens)
    limited = limit(text, prompt, max_tokens=room, stop=stop)
    finish: Finish = "tool" if calls else limited.finish
    return Reply(
        text=limited.text,
        finish=finish,
        stop_sequence=limited.stop_sequence if not calls else None,
        calls=tuple(calls),
        thinking=thinking,
        signature=sign_thinking(thinking) if thinking is not None else None,
        redacted=thinking is not None and REDACTED_THINKING_TRIGGER in question,
        prompt_tokens=prompt,
        completion_tokens=limited.completion_tokens + think_tokens + call_tokens(calls),
    )
