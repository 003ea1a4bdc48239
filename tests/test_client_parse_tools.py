"""Our client's ``parse()`` and ``run_tools()`` against the emulator, on both protocols.

A pydantic model asked for comes back typed (``message.parsed`` / ``parsed_output``, as
the official SDKs put it); Python functions become tools (schemas from type hints), run
until the model answers, with a typed final answer filled from their results; streamed
and not, async and blocking; a tool that raises is reported back to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from mediagen_nb.client import AsyncClient, Client, ToolLoopError, function_tool
from tests._support import KEY
from tests.test_emulator_text import _app, _serve

ASK = [{"role": "user", "content": "What is the weather in Paris, and what should I wear?"}]
GPT = "gpt-5.4"
CLAUDE = "claude-sonnet-4-6"


class Outfit(BaseModel):
    city: str
    temperature_c: float
    advice: str


def get_weather(city: str) -> dict[str, Any]:
    """Current temperature (Celsius) and sky for a city.

    More text that is not part of the description.
    """
    return {"city": city, "temperature_c": 18, "sky": "sunny"}


async def what_to_wear(temperature_c: float) -> str:
    """Suggest clothes for a temperature in Celsius."""
    return "a light jacket" if temperature_c < 20 else "a t-shirt"


@pytest.fixture(scope="module")
def text_base() -> Iterator[str]:
    with _serve(_app()) as url:
        yield url


def _async(text_base: str) -> AsyncClient:
    return AsyncClient(KEY, text_base.replace("/gateway", "/api"), text_base, recorder=None)


def test_function_tool_schema_comes_from_hints_and_docstring() -> None:
    tool = function_tool(get_weather)
    assert tool.chat_param() == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current temperature (Celsius) and sky for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "title": "City"}},
                "required": ["city"],
            },
        },
    }
    assert function_tool(what_to_wear).messages_param()["input_schema"]["properties"] == {
        "temperature_c": {"type": "number", "title": "Temperature C"}
    }


async def test_parse_returns_typed_answers_on_both_protocols(text_base: str) -> None:
    async with _async(text_base) as client:
        chat = await client.chat.completions.parse(model=GPT, messages=ASK, response_format=Outfit)
        parsed = chat.choices[0].message.parsed
        assert isinstance(parsed, Outfit)
        assert parsed.city == "Paris"
        assert "parsed" not in chat.choices[0].message.model_dump()
        message = await client.messages.parse(
            model=CLAUDE, max_tokens=1024, messages=ASK, output_format=Outfit
        )
        assert isinstance(message.parsed_output, Outfit)
        assert message.parsed_output.city == "Paris"


def _check_run(calls: list[Any], final: Any) -> None:
    assert [(c.name, c.arguments, c.result) for c in calls] == [
        (
            "get_weather",
            {"city": "Paris"},
            '{"city": "Paris", "temperature_c": 18, "sky": "sunny"}',
        ),
        ("what_to_wear", {"temperature_c": 18}, "a light jacket"),
    ]
    assert final == Outfit(city="Paris", temperature_c=18, advice=final.advice)
    assert "a light jacket" in final.advice


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("protocol", ["chat", "messages"])
async def test_run_tools_until_a_typed_answer(
    text_base: str, protocol: Literal["chat", "messages"], stream: bool
) -> None:
    pieces: list[str] = []
    tools: list[Callable[..., Any]] = [get_weather, what_to_wear]
    async with _async(text_base) as client:
        if protocol == "chat":
            chat = await client.chat.completions.run_tools(
                model=GPT,
                messages=ASK,
                tools=tools,
                response_format=Outfit,
                stream=stream,
                on_text=pieces.append,
            )
            _check_run(chat.calls, chat.final.choices[0].message.parsed)
            text, steps, turns = chat.final.text, chat.steps, chat.messages
        else:
            msg = await client.messages.run_tools(
                model=CLAUDE,
                max_tokens=1024,
                messages=ASK,
                tools=tools,
                output_format=Outfit,
                stream=stream,
                on_text=pieces.append,
            )
            _check_run(msg.calls, msg.final.parsed_output)
            text, steps, turns = msg.final.text, msg.steps, msg.messages
    assert steps == 3
    assert len(turns) == 5  # question, then a call and its result per tool
    assert "".join(pieces) == (text if stream else "")  # the tool steps said nothing


async def test_run_tools_reports_a_failing_tool_and_stops_at_max_steps(text_base: str) -> None:
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        raise LookupError(f"no station in {city}")

    async with _async(text_base) as client:
        run = await client.messages.run_tools(
            model=CLAUDE, max_tokens=512, messages=ASK, tools=[get_weather]
        )
        assert [(c.name, c.result, c.is_error) for c in run.calls] == [
            ("get_weather", "LookupError: no station in Paris", True)
        ]
        result = run.messages[-1]["content"][0]
        assert result["is_error"] is True
        with pytest.raises(ToolLoopError, match="after 1 requests"):
            await client.chat.completions.run_tools(
                model=GPT, messages=ASK, tools=[get_weather], max_steps=1
            )


def test_the_blocking_client_parses_and_runs_tools(text_base: str) -> None:
    with Client(KEY, text_base.replace("/gateway", "/api"), text_base, recorder=None) as client:
        chat = client.chat.completions.parse(model=GPT, messages=ASK, response_format=Outfit)
        assert isinstance(chat.choices[0].message.parsed, Outfit)
        message = client.messages.parse(
            model=CLAUDE, max_tokens=1024, messages=ASK, output_format=Outfit
        )
        assert isinstance(message.parsed_output, Outfit)
        run = client.messages.run_tools(
            model=CLAUDE,
            max_tokens=1024,
            messages=ASK,
            tools=[get_weather, what_to_wear],
            output_format=Outfit,
        )
        _check_run(run.calls, run.final.parsed_output)
        chat_run = client.chat.completions.run_tools(
            model=GPT, messages=ASK, tools=[get_weather, what_to_wear], stream=True
        )
        assert [c.name for c in chat_run.calls] == ["get_weather", "what_to_wear"]
        assert "a light jacket" in chat_run.final.text
