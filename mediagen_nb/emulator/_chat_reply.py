"""One reply (or choice) of the text gateway, before either protocol puts it on the wire.

Combines ``_textgen`` (the answer text and token counts) with ``_chat_plan`` (tool calls,
tool-result answers, thinking, structured output) and counts the reply's tokens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.emulator._chat_facts import facts_of, prompted_schema, task_steps, without_json
from mediagen_nb.emulator._chat_plan import (
    AgentTask,
    Plan,
    PlannedCall,
    call_tokens,
    forces_tool,
    plan_calls,
    plan_tools,
    results_answer,
    tool_results,
)
from mediagen_nb.emulator._chat_structured import output_schema, prompted_text, structured_text
from mediagen_nb.emulator._chat_thinking import (
    REDACTED_THINKING_TRIGGER,
    sign_thinking,
    thinking_budget,
    thinking_text,
)
from mediagen_nb.emulator._conventions import POLICY_TRIGGER
from mediagen_nb.emulator._schema_limits import Budget
from mediagen_nb.emulator._textgen import (
    READ_CHARS,
    Conversation,
    Reading,
    compose,
    count_tokens,
    limit,
    read,
    request_seed,
)
from mediagen_nb.types import ChatProtocol

Finish = Literal["end", "length", "stop", "tool", "refusal"]
REFUSAL_TEXT = (
    "I can't help with that request: it breaks the content policy (emulator trigger [policy])"
)
"""The reply to a question holding ``[policy]`` (``_conventions.POLICY_TRIGGER``): the
service's refusal, so a teacher can rehearse one (chat: finish ``content_filter``;
messages: ``stop_reason: "refusal"``)."""


@dataclass(frozen=True)
class PlannedReply:
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


def _task_results(task: AgentTask, trailing: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Every result the task has had, in call order (a two-step run answers from both
    steps, not only the last); the trailing results when no step holds one."""
    answered = [(s.name, s.result) for s in task.steps if s.result is not None]
    return answered or trailing


@dataclass(frozen=True)
class Prompt:
    """A request read once: everything a reply depends on but its seed. The ``n`` choices
    of a chat request share it, so a choice costs the same for any prompt length."""

    body: dict[str, Any]
    protocol: ChatProtocol
    model: str
    question: str
    reading: Reading
    """The answer's seed-independent wording (``_textgen``)."""
    task: AgentTask
    """The question, steps and facts; each choice adds its answer's prose."""
    plan: Plan
    """The tools the step calls (arguments are made per choice)."""
    calls_possible: bool
    results: list[tuple[str, str]] | None
    results_said: str | None
    """The answer that reports the tool results (the same for every choice)."""
    structured: tuple[str, dict[str, Any], bool] | None
    prompted: tuple[dict[str, Any], bool] | None
    quiet: bool
    """A reply that calls tools says nothing else."""
    prompt_tokens: int
    budget: Budget
    """The request's allowance of generated JSON, shared by its choices."""


def read_prompt(
    body: dict[str, Any], protocol: ChatProtocol, conversation: Conversation, *, model: str
) -> Prompt:
    """Read ``body`` once (see :class:`Prompt`).

    Args:
        body: The request body (validated).
        protocol: ``"chat_completions"`` or ``"messages"``.
        conversation: The body's conversation (``_textgen``).
        model: The model asked for.

    Returns:
        What every choice of the reply is made from.
    """
    tools = body.get("tools")
    results = tool_results(body, protocol)
    question = _question(conversation)[:READ_CHARS]
    steps = task_steps(body, protocol)
    plain = without_json(question)
    task = AgentTask(plain, steps, facts_of(steps, plain, ""))
    last_is_user_text = bool(conversation.turns) and conversation.turns[-1][0] == "user"
    calls_possible = results is not None or last_is_user_text
    structured = output_schema(body, protocol)
    prompted = None
    if structured is None or structured[0] != "json_schema":
        texts = [conversation.system[:READ_CHARS], question]
        prompted = prompted_schema(texts, json_mode=structured is not None)
    return Prompt(
        body=body,
        protocol=protocol,
        model=model,
        question=question,
        reading=read(model, conversation),
        task=task,
        plan=plan_tools(body, protocol, task) if calls_possible else Plan([], None, "none", ""),
        calls_possible=calls_possible,
        results=results,
        results_said=results_answer(_task_results(task, results)) if results else None,
        structured=structured,
        prompted=prompted,
        quiet=protocol == "chat_completions"
        or forces_tool(body, protocol)
        or structured is not None,
        prompt_tokens=conversation.prompt_tokens
        + (count_tokens(json.dumps(tools)) if tools else 0),
        budget=Budget(),
    )


def _answer(prompt: Prompt, task: AgentTask, answer: str, seed: int) -> str:
    """The answer step's text: schema instance, JSON asked in words, or prose."""
    structured, budget = prompt.structured, prompt.budget
    if structured is not None and structured[0] == "json_schema":
        _, schema, strict = structured
        return structured_text(
            "json_schema", schema, strict=strict, answer=answer, task=task, seed=seed, budget=budget
        )
    if prompt.prompted is not None:
        schema, fenced = prompt.prompted
        return prompted_text(schema, fenced=fenced, task=task, seed=seed, budget=budget)
    said = answer if prompt.results_said is None else prompt.results_said
    if structured is not None:
        return structured_text("json_object", {}, strict=False, answer=said, task=task, seed=seed)
    return said


def build_reply(
    prompt: Prompt,
    *,
    max_tokens: int | None,
    stop: list[str],
    id_seed: str,
    choice: int = 0,
) -> PlannedReply:
    """The reply to ``prompt``; ``choice`` > 0 words choice ``n`` differently (chat ``n``)."""
    if POLICY_TRIGGER in prompt.question.lower():
        return _refusal(prompt, max_tokens)
    body = prompt.body
    knobs = body if choice == 0 else {**body, "seed": [body.get("seed"), choice]}
    seed = _seed_of(prompt, knobs)
    answer = _compose(prompt, knobs)
    task = prompt.task.answered(answer)
    calls: list[PlannedCall] = []
    if prompt.calls_possible and prompt.plan.tools:
        calls = plan_calls(
            body,
            prompt.protocol,
            task,
            seed=seed,
            id_seed=f"{id_seed}:{choice}",
            plan=prompt.plan,
            budget=prompt.budget,
        )
    budget = thinking_budget(body) if prompt.protocol == "messages" else None
    thinking = thinking_text(prompt.question, budget) if budget else None
    think_tokens = count_tokens(thinking) if thinking else 0
    if calls:
        names = ", ".join(c.name for c in calls)
        text = "" if prompt.quiet else f"I'll use {names} to answer that."
    else:
        text = _answer(prompt, task, answer, seed)
    room = None if max_tokens is None else max(0, max_tokens - think_tokens)
    limited = limit(text, prompt.prompt_tokens, max_tokens=room, stop=stop)
    finish: Finish = "tool" if calls else limited.finish
    return PlannedReply(
        text=limited.text,
        finish=finish,
        stop_sequence=limited.stop_sequence if not calls else None,
        calls=tuple(calls),
        thinking=thinking,
        signature=sign_thinking(thinking) if thinking is not None else None,
        redacted=thinking is not None and REDACTED_THINKING_TRIGGER in prompt.question,
        prompt_tokens=prompt.prompt_tokens,
        completion_tokens=limited.completion_tokens + think_tokens + call_tokens(calls),
    )


def _refusal(prompt: Prompt, max_tokens: int | None) -> PlannedReply:
    """The service refusing the question (its content policy)."""
    limited = limit(REFUSAL_TEXT, prompt.prompt_tokens, max_tokens=max_tokens, stop=[])
    return PlannedReply(
        text=limited.text,
        finish="refusal",
        stop_sequence=None,
        calls=(),
        thinking=None,
        signature=None,
        redacted=False,
        prompt_tokens=prompt.prompt_tokens,
        completion_tokens=limited.completion_tokens,
    )


def _seed_of(prompt: Prompt, knobs: dict[str, Any]) -> int:
    return request_seed(prompt.model, _NO_CONVERSATION, knobs, prompt.reading)


def _compose(prompt: Prompt, knobs: dict[str, Any]) -> str:
    return compose(prompt.model, _NO_CONVERSATION, knobs, prompt.reading)


_NO_CONVERSATION = Conversation("", ())
"""Stands for the conversation once it is read (``Prompt.reading`` holds what counts)."""
