"""The agent frameworks people learn with, run end to end against the emulator.

Released pydantic-ai, the OpenAI Agents SDK and instructor talk to a real loopback
emulator on both protocols, as a class would: a two-tool run (the weather, then what to
wear for the temperature it returned) ending in a typed answer filled from the tool
results; a handoff (or delegation) whose second agent calls its own tool; JSON asked for in
the prompt; structured output streamed. The frameworks are test dependencies; a missing
one skips its tests with the reason.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

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

pytestmark = pytest.mark.filterwarnings(
    # litellm imports a provider module lazily, mid-call, whose TypedDict pydantic warns on
    "ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"
)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with _serve(_app()) as url:
        yield url


# -- pydantic-ai -----------------------------------------------------------------------------


@pytest.fixture
async def pai_model(base: str, protocol: Protocol) -> AsyncIterator[Any]:
    """A pydantic-ai model of ``protocol`` on the emulator (its client closed afterwards)."""
    if protocol == "chat":
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        async with AsyncOpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as oa:
            yield OpenAIChatModel(GPT, provider=OpenAIProvider(openai_client=oa))
        return
    from anthropic import AsyncAnthropic
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    async with AsyncAnthropic(base_url=base, api_key=KEY, max_retries=0) as an:
        yield AnthropicModel(CLAUDE, provider=AnthropicProvider(anthropic_client=an))


def _tool_calls(messages: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    """(tool name, arguments) of every tool call of a pydantic-ai run, in order."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    return [
        (part.tool_name, part.args_as_dict())
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart)
    ]


@PROTOCOLS
@pytest.mark.parametrize("mode", ["tool", "native"])
async def test_pydantic_ai_two_tools_then_a_typed_output(pai_model: Any, mode: str) -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    output: Any = Outfit if mode == "tool" else pydantic_ai.NativeOutput(Outfit)
    agent = pydantic_ai.Agent(pai_model, output_type=output, tools=[get_weather, what_to_wear])
    result = await agent.run(QUESTION)
    check_outfit(result.output)
    calls = _tool_calls(result.all_messages())
    assert calls[:2] == [
        ("get_weather", {"city": "Paris"}),
        ("what_to_wear", {"temperature_c": 18}),
    ]
    assert [name for name, _ in calls[2:]] == (["final_result"] if mode == "tool" else [])


@PROTOCOLS
async def test_pydantic_ai_delegates_to_an_agent_that_uses_its_own_tool(pai_model: Any) -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    model = pai_model
    weather_agent = pydantic_ai.Agent(model, output_type=CityWeather, tools=[get_weather])
    asked: list[str] = []

    async def ask_weather_agent(question: str) -> str:
        """Ask the weather agent about the weather in a city."""
        asked.append(question)
        answer = await weather_agent.run(question)
        output: CityWeather = answer.output
        return output.model_dump_json()

    front = pydantic_ai.Agent(model, output_type=CityWeather, tools=[ask_weather_agent])
    result = await front.run("What is the weather in Paris?")
    assert result.output == CityWeather(city="Paris", temperature_c=18, sky="sunny")
    assert [name for name, _ in _tool_calls(result.all_messages())] == [
        "ask_weather_agent",
        "final_result",
    ]
    assert len(asked) == 1
    assert "Paris" in asked[0]


@PROTOCOLS
async def test_pydantic_ai_prompted_json_output(pai_model: Any) -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    agent = pydantic_ai.Agent(
        pai_model,
        output_type=pydantic_ai.PromptedOutput(Outfit),
        tools=[get_weather, what_to_wear],
    )
    check_outfit((await agent.run(QUESTION)).output)


@PROTOCOLS
async def test_pydantic_ai_streams_structured_output(pai_model: Any) -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    agent = pydantic_ai.Agent(
        pai_model, output_type=pydantic_ai.NativeOutput(CityWeather), tools=[get_weather]
    )
    async with agent.run_stream("What is the weather in Paris?") as stream:
        partial = [p async for p in stream.stream_output(debounce_by=None)]
        final = await stream.get_output()
    assert final == CityWeather(city="Paris", temperature_c=18, sky="sunny")
    assert len(partial) >= 2
    assert partial[-1] == final


# -- OpenAI Agents SDK -----------------------------------------------------------------------


@pytest.fixture
async def agents_model(base: str, protocol: Protocol) -> AsyncIterator[Any]:
    """An Agents SDK model: chat completions over AsyncOpenAI, or LiteLLM for messages."""
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)
    if protocol == "chat":
        from openai import AsyncOpenAI

        async with AsyncOpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as oa:
            yield agents.OpenAIChatCompletionsModel(GPT, openai_client=oa)
        return
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost map fetch
    with warnings.catch_warnings():  # litellm's import warns about pydantic TypedDicts
        warnings.simplefilter("ignore")
        pytest.importorskip("litellm", reason="litellm is a test dependency (pyproject)")
        from agents.extensions.models.litellm_model import LitellmModel

    yield LitellmModel(f"anthropic/{CLAUDE}", base_url=base, api_key=KEY)


def _agents_calls(result: Any) -> list[tuple[str, Any]]:
    """(tool name, arguments) of every tool call of an Agents SDK run, in order."""
    from agents.items import ToolCallItem
    from openai.types.responses import ResponseFunctionToolCall

    calls: list[tuple[str, Any]] = []
    for item in result.new_items:
        if isinstance(item, ToolCallItem):
            raw = item.raw_item
            assert isinstance(raw, ResponseFunctionToolCall)
            calls.append((raw.name, json.loads(raw.arguments)))
    return calls


def _agents_settings() -> Any:
    from agents import ModelSettings

    return ModelSettings(include_usage=True)


@PROTOCOLS
async def test_agents_sdk_two_tools_then_a_typed_output(agents_model: Any) -> None:
    from agents import Agent, Runner, function_tool

    agent = Agent(
        name="Weather",
        instructions="Answer weather questions with the tools.",
        model=agents_model,
        model_settings=_agents_settings(),
        tools=[function_tool(get_weather), function_tool(what_to_wear)],
        output_type=Outfit,
    )
    result = await Runner.run(agent, QUESTION)
    check_outfit(result.final_output)
    assert _agents_calls(result) == [
        ("get_weather", {"city": "Paris"}),
        ("what_to_wear", {"temperature_c": 18}),
    ]


@PROTOCOLS
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
async def test_agents_sdk_handoff_to_an_agent_with_its_own_tool(
    agents_model: Any, streamed: bool
) -> None:
    from agents import Agent, Runner, function_tool

    weather = Agent(
        name="Weather agent",
        handoff_description="Answers questions about the weather in a city.",
        instructions="Look the weather up with your tool.",
        model=agents_model,
        model_settings=_agents_settings(),
        tools=[function_tool(get_weather)],
        output_type=CityWeather,
    )
    triage = Agent(
        name="Triage",
        instructions="Hand the question to the right agent.",
        model=agents_model,
        model_settings=_agents_settings(),
        handoffs=[weather],
    )
    question = "What is the weather in Paris?"
    if streamed:
        run = Runner.run_streamed(triage, question)
        kinds = [event.type async for event in run.stream_events()]
        assert "raw_response_event" in kinds
        result: Any = run
    else:
        result = await Runner.run(triage, question)
    assert result.last_agent is weather
    assert result.final_output == CityWeather(city="Paris", temperature_c=18, sky="sunny")
    assert _agents_calls(result) == [("get_weather", {"city": "Paris"})]
    handed = [i for i in result.new_items if i.type == "handoff_call_item"]
    assert [h.raw_item.name for h in handed] == ["transfer_to_weather_agent"]


# -- instructor ------------------------------------------------------------------------------


@pytest.fixture
async def instructor_client(base: str, protocol: Protocol, mode: str) -> AsyncIterator[Any]:
    """An instructor client of ``protocol`` in ``mode`` ("tools", "json", "md_json")."""
    instructor = pytest.importorskip(
        "instructor", reason="scripts/test installs instructor (see the test extra)"
    )
    if protocol == "chat":
        from openai import AsyncOpenAI

    modes = {"tools": "TOOLS", "json": "JSON", "md_json": "MD_JSON"}
    if protocol == "chat":
        from openai import AsyncOpenAI

        async with AsyncOpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as oa:
            yield instructor.from_openai(oa, mode=getattr(instructor.Mode, modes[mode]))
        return
    from anthropic import AsyncAnthropic

    async with AsyncAnthropic(base_url=base, api_key=KEY, max_retries=0) as an:
        yield instructor.from_anthropic(an, mode=getattr(instructor.Mode, modes[mode]))


def _instructor_args(protocol: Protocol) -> dict[str, Any]:
    model = GPT if protocol == "chat" else CLAUDE
    context = "The weather service says: Paris, 18 °C, sky sunny."
    return {
        "model": model,
        "max_tokens": 1024,
        "max_retries": 0,  # the first answer must be right
        "messages": [{"role": "user", "content": f"{context} What is the weather in Paris?"}],
    }


@pytest.mark.parametrize(
    ("protocol", "mode"),
    # instructor has no markdown-JSON mode for Anthropic
    [
        ("chat", "tools"),
        ("chat", "json"),
        ("chat", "md_json"),
        ("messages", "tools"),
        ("messages", "json"),
    ],
)
async def test_instructor_typed_answer(instructor_client: Any, protocol: Protocol) -> None:
    value = await instructor_client.create(response_model=CityWeather, **_instructor_args(protocol))
    assert isinstance(value, CityWeather)
    assert value.model_dump() == PARIS


@PROTOCOLS
@pytest.mark.parametrize("mode", ["tools", "json"])
async def test_instructor_streams_partial_objects(
    instructor_client: Any, protocol: Protocol
) -> None:
    stream = instructor_client.create_partial(
        response_model=CityWeather, **_instructor_args(protocol)
    )
    partials = [p async for p in stream]
    assert len(partials) >= 2
    assert partials[0] != partials[-1]
    assert partials[-1].model_dump() == PARIS
