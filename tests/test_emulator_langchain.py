"""LangChain, as a class learns it, run end to end against the emulator.

``langchain-openai``'s ``ChatOpenAI`` (chat completions) and ``langchain-anthropic``'s
``ChatAnthropic`` (messages) pointed at a real loopback emulator, as a learner writes them:
a plain ``invoke`` and its ``stream`` (the chunks join to the same answer, usage included);
``bind_tools`` with two Python tools in a hand-written loop that runs each call and sends
the result back until the model answers, plain and streamed (tool-call chunks merged);
``langchain.agents.create_agent`` with the same tools, ending in text or in a typed
``response_format`` (provider-native JSON schema or an output tool); and
``with_structured_output`` by JSON schema, function calling and JSON mode. The packages are
test dependencies; a missing one skips its tests with the reason.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Iterator
from functools import reduce
from typing import Any

import pytest

from mediagen_nb.emulator._chat_plan import MAX_STEPS
from tests._agent_helpers import (
    CLAUDE,
    GPT,
    PARIS,
    PROTOCOLS,
    QUESTION,
    CityWeather,
    Outfit,
    Protocol,
    check_outfit,
    get_weather,
    what_to_wear,
)
from tests._support import KEY
from tests.test_emulator_text import _app, _serve

EXTRA = "a test dependency (the test extra in pyproject.toml)"
CALLS = [("get_weather", {"city": "Paris"}), ("what_to_wear", {"temperature_c": 18})]
REPORTED = "The weather service says: Paris, 18 °C, sky sunny. What is the weather in Paris?"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with _serve(_app()) as url:
        yield url


@pytest.fixture
def model(base: str, protocol: Protocol) -> Any:
    """``ChatOpenAI`` or ``ChatAnthropic`` on the emulator, as the LangChain docs make one.

    No retries, so the first answer must be right; a request the emulator never answers
    fails its test in a minute, not at pytest's limit.
    """
    settings: dict[str, Any] = {"api_key": KEY, "max_retries": 0, "timeout": 60}
    if protocol == "chat":
        openai = pytest.importorskip("langchain_openai", reason=f"langchain-openai is {EXTRA}")
        url = base + "/v1"
        return openai.ChatOpenAI(model=GPT, base_url=url, stream_usage=True, **settings)
    anthropic = pytest.importorskip("langchain_anthropic", reason=f"langchain-anthropic is {EXTRA}")
    return anthropic.ChatAnthropic(model=CLAUDE, base_url=base, **settings)


def _tools() -> list[Any]:
    """The two Python tools as LangChain tools."""
    from langchain_core.tools import tool

    return [tool(get_weather), tool(what_to_wear)]


def _usage(message: Any) -> tuple[int, int]:
    usage = message.usage_metadata
    assert usage is not None
    return usage["input_tokens"], usage["output_tokens"]


# -- invoke and stream -----------------------------------------------------------------------


@PROTOCOLS
def test_langchain_invoke_then_stream_joins_to_the_same_answer(model: Any) -> None:
    question = "What is a haiku?"
    answer = model.invoke(question)
    assert type(answer).__name__ == "AIMessage"
    assert "haiku" in answer.text
    assert answer.tool_calls == []
    chunks = list(model.stream(question))
    assert len([c for c in chunks if c.text]) >= 2
    assert "".join(c.text for c in chunks) == answer.text
    merged = reduce(operator.add, chunks)
    assert _usage(merged) == _usage(answer)


@PROTOCOLS
async def test_langchain_astream_joins_to_the_same_answer(model: Any, protocol: Protocol) -> None:
    question = "What is a limerick?"
    try:
        answer = await model.ainvoke(question)
        assert "limerick" in answer.text
        texts = [chunk.text async for chunk in model.astream(question)]
    finally:
        # Both packages keep one async HTTP client per base URL for the whole process; this
        # module's emulator URL is its own, so close it while this test's loop still runs.
        client = model.root_async_client if protocol == "chat" else model._async_client
        await client.close()
    assert len([t for t in texts if t]) >= 2
    assert "".join(texts) == answer.text


# -- bind_tools: a loop that runs the calls ------------------------------------------------


def _step(bound: Any, messages: list[Any], streamed: bool) -> Any:
    """The model's next message: one ``invoke``, or every ``stream`` chunk merged."""
    if not streamed:
        return bound.invoke(messages)
    chunks = list(bound.stream(messages))
    fragments = [t["args"] for c in chunks for t in c.tool_call_chunks if t["args"]]
    assert len(fragments) != 1  # a call's arguments arrive in pieces, merged by LangChain
    return reduce(operator.add, chunks)


def _run_tools(model: Any, streamed: bool) -> tuple[list[tuple[str, Any]], Any]:
    """Run the model's tool calls until it answers: (calls made in order, the answer)."""
    from langchain_core.messages import HumanMessage

    tools = {t.name: t for t in _tools()}
    bound = model.bind_tools(list(tools.values()))
    messages: list[Any] = [HumanMessage(QUESTION)]
    calls: list[tuple[str, Any]] = []
    for _ in range(MAX_STEPS):
        reply = _step(bound, messages, streamed)
        messages.append(reply)
        if not reply.tool_calls:
            return calls, reply
        for call in reply.tool_calls:
            calls.append((call["name"], call["args"]))
            messages.append(tools[call["name"]].invoke(call))
    pytest.fail(f"no answer after {MAX_STEPS} steps: {calls}")


@PROTOCOLS
@pytest.mark.parametrize("streamed", [False, True], ids=["invoke", "stream"])
def test_langchain_bind_tools_loop_runs_both_tools_then_answers(model: Any, streamed: bool) -> None:
    calls, answer = _run_tools(model, streamed)
    assert calls == CALLS
    text = answer.text
    weather = text.index("get_weather")
    assert '"temperature_c": 18' in text[weather:]
    assert text.index("what_to_wear") > weather
    assert "a light jacket" in text


# -- create_agent ----------------------------------------------------------------------------


def _agent_calls(messages: list[Any]) -> list[tuple[str, Any]]:
    """(tool name, arguments) of every tool call in an agent's messages, in order."""
    return [(c["name"], c["args"]) for m in messages for c in getattr(m, "tool_calls", None) or []]


@PROTOCOLS
@pytest.mark.parametrize("output", ["text", "provider", "tool"])
def test_langchain_create_agent_runs_both_tools(model: Any, output: str) -> None:
    agents = pytest.importorskip("langchain.agents", reason=f"langchain is {EXTRA}")
    strategies = pytest.importorskip("langchain.agents.structured_output")
    formats = {
        "text": None,
        "provider": strategies.ProviderStrategy(Outfit),
        "tool": strategies.ToolStrategy(Outfit),
    }
    agent = agents.create_agent(model, tools=_tools(), response_format=formats[output])
    result = agent.invoke({"messages": [{"role": "user", "content": QUESTION}]})
    calls = _agent_calls(result["messages"])
    assert calls[:2] == CALLS
    last = result["messages"][-1]
    if output == "text":
        assert calls == CALLS
        assert "structured_response" not in result
        assert "a light jacket" in last.text
        return
    check_outfit(result["structured_response"])
    outputs = [name for name, _ in calls[2:]]
    assert outputs == (["Outfit"] if output == "tool" else [])
    if output == "provider":
        assert Outfit.model_validate_json(last.text) == result["structured_response"]


# -- with_structured_output ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("protocol", "method"),
    # JSON mode is chat completions' response_format json_object; ChatAnthropic has none
    [
        ("chat", "json_schema"),
        ("chat", "function_calling"),
        ("chat", "json_mode"),
        ("messages", "json_schema"),
        ("messages", "function_calling"),
    ],
)
def test_langchain_with_structured_output_returns_the_typed_object(model: Any, method: str) -> None:
    messages: list[tuple[str, str]] = [("user", REPORTED)]
    if method == "json_mode":  # JSON mode needs the schema asked for in words
        schema = json.dumps(CityWeather.model_json_schema())
        messages.insert(0, ("system", f"Answer in JSON matching this schema: {schema}"))
    typed = model.with_structured_output(CityWeather, method=method, include_raw=True)
    result = typed.invoke(messages)
    assert result["parsing_error"] is None
    value = result["parsed"]
    assert isinstance(value, CityWeather)
    assert value.model_dump() == PARIS
    raw = result["raw"]
    if method == "function_calling":
        assert [c["name"] for c in raw.tool_calls] == ["CityWeather"]
        assert raw.tool_calls[0]["args"] == PARIS
    else:
        assert raw.tool_calls == []
