"""Tool use, thinking, structured output and protocol details with the official SDKs.

The openai and anthropic packages talk to the emulator on a real loopback server (streams
need sockets), exactly as a user's code would: a two-step tool loop (request, tool call,
tool result, final answer) streamed and not, ``.parse()`` with a pydantic model, thinking
streamed before the text, ``n`` choices, usage, error envelopes, request ids and overload.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import anthropic
import jsonschema
import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall
from pydantic import BaseModel, Field

from mediagen_nb.emulator._faults import FaultConfig
from tests._support import KEY
from tests.test_emulator_text import _app, _serve

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
OA_TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": WEATHER,
            "strict": True,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Tell the local clock time in a timezone",
            "parameters": {
                "type": "object",
                "properties": {"zone": {"type": "string"}},
                "required": ["zone"],
            },
        },
    },
]
AN_TOOLS: Any = [
    {
        "name": t["function"]["name"],
        "description": t["function"]["description"],
        "input_schema": t["function"]["parameters"],
    }
    for t in OA_TOOLS
]
ASK: Any = [{"role": "user", "content": "What is the weather in Paris, in fahrenheit?"}]
RESULT = "64 F and sunny"


class Forecast(BaseModel):
    city: str
    high: float = Field(ge=-90, le=60)
    days: int = Field(gt=0, le=14)
    sky: Literal["clear", "cloudy", "rain"]
    notes: list[str]


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with _serve(_app()) as url:
        yield url


@pytest.fixture
def oa(base: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as client:
        yield client


@pytest.fixture
def an(base: str) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0) as client:
        yield client


def _check_weather_call(name: str, arguments: Any) -> None:
    assert name == "get_weather"
    jsonschema.validate(arguments, WEATHER)
    assert arguments == {"city": "Paris", "unit": "fahrenheit"}


# -- chat-completions ------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_openai_two_step_tool_loop(oa: openai.OpenAI, streamed: bool) -> None:
    messages: Any = list(ASK)
    first: ChatCompletion
    if streamed:
        with oa.chat.completions.stream(model="gpt-5.4", messages=messages, tools=OA_TOOLS) as s:
            first = s.get_final_completion()
    else:
        first = oa.chat.completions.create(model="gpt-5.4", messages=messages, tools=OA_TOOLS)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls or []
    assert len(calls) == 1
    call = calls[0]
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    _check_weather_call(call.function.name, json.loads(call.function.arguments))
    messages.append(choice.message)  # what SDK users append: content None + tool_calls
    messages.append({"role": "tool", "tool_call_id": call.id, "content": RESULT})
    second: ChatCompletion
    if streamed:
        with oa.chat.completions.stream(model="gpt-5.4", messages=messages, tools=OA_TOOLS) as s:
            pieces = [e.delta for e in s if e.type == "content.delta"]
            second = s.get_final_completion()
        assert "".join(pieces) == second.choices[0].message.content
    else:
        second = oa.chat.completions.create(model="gpt-5.4", messages=messages, tools=OA_TOOLS)
    assert second.choices[0].finish_reason == "stop"
    assert second.choices[0].message.tool_calls is None
    assert f"get_weather: “{RESULT}”" in (second.choices[0].message.content or "")


def _function_calls(completion: ChatCompletion) -> list[ChatCompletionMessageFunctionToolCall]:
    calls = completion.choices[0].message.tool_calls or []
    assert all(isinstance(c, ChatCompletionMessageFunctionToolCall) for c in calls)
    return [c for c in calls if isinstance(c, ChatCompletionMessageFunctionToolCall)]


def test_openai_tool_choice_forces_and_none_forbids(oa: openai.OpenAI) -> None:
    plain: Any = [{"role": "user", "content": "Tell me a short story."}]
    auto = oa.chat.completions.create(model="gpt-5.4", messages=plain, tools=OA_TOOLS)
    assert auto.choices[0].finish_reason == "stop"
    required = oa.chat.completions.create(
        model="gpt-5.4", messages=plain, tools=OA_TOOLS, tool_choice="required"
    )
    assert required.choices[0].finish_reason == "tool_calls"
    named = oa.chat.completions.create(
        model="gpt-5.4",
        messages=ASK,
        tools=OA_TOOLS,
        tool_choice={"type": "function", "function": {"name": "get_time"}},
    )
    calls = _function_calls(named)
    assert [c.function.name for c in calls] == ["get_time"]
    assert set(json.loads(calls[0].function.arguments)) == {"zone"}
    none = oa.chat.completions.create(
        model="gpt-5.4", messages=ASK, tools=OA_TOOLS, tool_choice="none"
    )
    assert none.choices[0].message.tool_calls is None
    both: Any = [{"role": "user", "content": "What is the weather and the time in Paris?"}]
    parallel = oa.chat.completions.create(model="gpt-5.4", messages=both, tools=OA_TOOLS)
    names = [c.function.name for c in _function_calls(parallel)]
    assert sorted(names) == ["get_time", "get_weather"]
    single = oa.chat.completions.create(
        model="gpt-5.4", messages=both, tools=OA_TOOLS, parallel_tool_calls=False
    )
    assert len(single.choices[0].message.tool_calls or []) == 1


def test_openai_parse_with_a_pydantic_model(oa: openai.OpenAI) -> None:
    completion = oa.chat.completions.parse(model="gpt-5.4", messages=ASK, response_format=Forecast)
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Forecast)
    assert parsed.city == "Paris"
    with oa.chat.completions.stream(model="gpt-5.4", messages=ASK, response_format=Forecast) as s:
        streamed = s.get_final_completion().choices[0].message.parsed
    assert streamed == parsed
    as_object = oa.chat.completions.create(
        model="gpt-5.4",
        messages=[{"role": "user", "content": "Answer in JSON please."}],
        response_format={"type": "json_object"},
    )
    value = json.loads(as_object.choices[0].message.content or "")
    assert isinstance(value, dict)
    assert list(value) == ["answer"]


def test_openai_n_choices_streamed_and_usage(oa: openai.OpenAI) -> None:
    whole = oa.chat.completions.create(model="gpt-5.4", messages=ASK, n=3)
    assert [c.index for c in whole.choices] == [0, 1, 2]
    texts = [c.message.content for c in whole.choices]
    assert len(set(texts)) == 3
    with oa.chat.completions.stream(
        model="gpt-5.4", messages=ASK, n=3, stream_options={"include_usage": True}
    ) as s:
        final = s.get_final_completion()
    assert [c.message.content for c in final.choices] == texts
    assert final.usage is not None
    assert whole.usage is not None
    assert final.usage.model_dump() == whole.usage.model_dump()


def test_openai_developer_role_errors_and_request_id(oa: openai.OpenAI) -> None:
    messages: Any = [
        {"role": "developer", "content": "Answer in one sentence."},
        {"role": "user", "content": "hello"},
    ]
    reply = oa.chat.completions.with_raw_response.create(model="gpt-5.4", messages=messages)
    assert reply.headers["x-request-id"].startswith("req_")
    assert reply.parse().choices[0].message.content
    with pytest.raises(openai.BadRequestError) as caught:
        oa.chat.completions.create(model="gpt-5.4", messages=ASK, tool_choice="required")
    error = caught.value
    assert error.status_code == 400
    assert error.param == "tool_choice"
    assert error.type == "invalid_request_error"
    assert error.request_id is not None
    assert error.request_id.startswith("req_")


# -- messages --------------------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("thinking", [False, True], ids=["no-thinking", "thinking"])
def test_anthropic_two_step_tool_loop(
    an: anthropic.Anthropic, streamed: bool, thinking: bool
) -> None:
    extra: Any = {"thinking": {"type": "enabled", "budget_tokens": 1024}} if thinking else {}
    messages: Any = list(ASK)

    def send() -> anthropic.types.Message:
        args: Any = {"model": "claude-sonnet-4-6", "max_tokens": 2048, "tools": AN_TOOLS}
        if streamed:
            with an.messages.stream(messages=messages, **args, **extra) as s:
                return s.get_final_message()
        created: anthropic.types.Message = an.messages.create(messages=messages, **args, **extra)
        return created

    first = send()
    assert first.stop_reason == "tool_use"
    kinds = [b.type for b in first.content]
    assert kinds == (["thinking"] if thinking else []) + ["text", "tool_use"]
    use = first.content[-1]
    assert use.type == "tool_use"
    _check_weather_call(use.name, use.input)
    messages.append({"role": "assistant", "content": first.content})
    messages.append(
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": RESULT}],
        }
    )
    second = send()
    assert second.stop_reason == "end_turn"
    text = second.content[-1]
    assert text.type == "text"
    assert f"get_weather: “{RESULT}”" in text.text


def test_anthropic_thinking_streams_thinking_then_text(an: anthropic.Anthropic) -> None:
    question: Any = [{"role": "user", "content": "Why is the sky blue?"}]
    with an.messages.stream(
        model="claude-sonnet-4-6",
        max_tokens=2048,
        messages=question,
        thinking={"type": "enabled", "budget_tokens": 1500},
    ) as s:
        order = [e.type for e in s if e.type in ("thinking", "signature", "text")]
        final = s.get_final_message()
    first_text = order.index("text")
    assert set(order[:first_text]) == {"thinking", "signature"}
    assert order[first_text - 1] == "signature"
    assert order.count("signature") == 1
    assert set(order[first_text:]) == {"text"}
    assert [b.type for b in final.content] == ["thinking", "text"]
    block = final.content[0]
    assert block.type == "thinking"
    assert "Why is the sky blue?" in block.thinking
    assert block.signature
    plain = an.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=2048,
        messages=question,
        thinking={"type": "enabled", "budget_tokens": 1500},
    )
    assert plain.model_dump()["content"] == final.model_dump()["content"]
    assert plain.usage.output_tokens == final.usage.output_tokens
    assert final.usage.input_tokens == plain.usage.input_tokens
    forged: Any = [
        *question,
        {
            "role": "assistant",
            "content": [
                {**block.model_dump(), "signature": "forged"},
                {"type": "text", "text": "x"},
            ],
        },
        {"role": "user", "content": "go on"},
    ]
    with pytest.raises(anthropic.BadRequestError, match="signature"):
        an.messages.create(model="claude-sonnet-4-6", max_tokens=2048, messages=forged)


def test_anthropic_parse_and_forced_tools(an: anthropic.Anthropic) -> None:
    parsed = an.messages.parse(
        model="claude-sonnet-4-6", max_tokens=1024, messages=ASK, output_format=Forecast
    )
    value = parsed.parsed_output
    assert isinstance(value, Forecast)
    assert value.city == "Paris"
    story: Any = [{"role": "user", "content": "Tell me a short story."}]
    args: Any = {"model": "claude-sonnet-4-6", "max_tokens": 512, "tools": AN_TOOLS}
    assert an.messages.create(messages=story, **args).stop_reason == "end_turn"
    forced = an.messages.create(messages=story, tool_choice={"type": "any"}, **args)
    assert forced.stop_reason == "tool_use"
    named = an.messages.create(
        messages=ASK, tool_choice={"type": "tool", "name": "get_time"}, **args
    )
    assert [b.name for b in named.content if b.type == "tool_use"] == ["get_time"]


def test_anthropic_bad_values_errors_usage_and_request_id(
    an: anthropic.Anthropic, base: str
) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        an.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            messages=ASK,
            thinking={"type": "enabled", "budget_tokens": 1024},
        )
    body: Any = caught.value.body
    assert body["type"] == "error"
    assert body["error"]["type"] == "invalid_request_error"
    assert "thinking.budget_tokens: must be less than max_tokens (1024)" in body["error"]["message"]
    assert (caught.value.request_id or "").startswith("req_")
    events = list(
        an.messages.create(model="claude-sonnet-4-6", max_tokens=300, messages=ASK, stream=True)
    )
    start = next(e for e in events if e.type == "message_start")
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.usage.input_tokens == start.message.usage.input_tokens
    assert delta.usage.input_tokens is not None
    assert delta.usage.input_tokens > 0


def test_overload_is_each_protocols_signal() -> None:
    faults = FaultConfig(error_rate=1.0, apply_to=("text",), seed=3)
    app = _app(faults=faults)
    with (
        _serve(app) as url,
        anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0) as an,
        openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0) as oa,
    ):
        seen_an: set[int] = set()
        seen_oa: set[int] = set()
        for _ in range(8):
            with pytest.raises(anthropic.APIStatusError) as a_err:
                an.messages.create(model="claude-sonnet-4-6", max_tokens=50, messages=ASK)
            seen_an.add(a_err.value.status_code)
            if a_err.value.status_code == 529:
                assert isinstance(a_err.value, anthropic.OverloadedError)
                assert a_err.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
            with pytest.raises(openai.APIStatusError) as o_err:
                oa.chat.completions.create(model="gpt-5.4", messages=ASK)
            seen_oa.add(o_err.value.status_code)
    assert seen_an == {500, 529}
    assert seen_oa == {500, 503}


def test_anthropic_redacted_thinking_round_trip(an: anthropic.Anthropic) -> None:
    from mediagen_nb.emulator._chat_thinking import REDACTED_THINKING_TRIGGER

    question: Any = [
        {"role": "user", "content": f"{REDACTED_THINKING_TRIGGER} Why is ice slippery?"}
    ]
    args: Any = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 2048,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
    }
    with an.messages.stream(messages=question, **args) as s:
        final = s.get_final_message()
    plain = an.messages.create(messages=question, **args)
    assert [b.type for b in final.content] == ["redacted_thinking", "text"]
    assert final.model_dump()["content"] == plain.model_dump()["content"]
    follow: Any = [
        *question,
        {"role": "assistant", "content": final.content},
        {"role": "user", "content": "And snow?"},
    ]
    assert an.messages.create(messages=follow, **args).stop_reason == "end_turn"


# -- the refusal trigger ---------------------------------------------------------------------

REFUSE: Any = [{"role": "user", "content": "Draw something [policy] for me"}]


@pytest.mark.parametrize("streamed", [False, True])
def test_policy_trigger_is_a_refusal_openai(oa: openai.OpenAI, streamed: bool) -> None:
    from mediagen_nb.emulator._chat_reply import REFUSAL_TEXT

    if streamed:
        chunks = list(oa.chat.completions.create(model="gpt-5.4", messages=REFUSE, stream=True))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        finish = [c.choices[0].finish_reason for c in chunks if c.choices][-1]
    else:
        reply = oa.chat.completions.create(model="gpt-5.4", messages=REFUSE)
        text, finish = reply.choices[0].message.content or "", reply.choices[0].finish_reason
    assert (text, finish) == (REFUSAL_TEXT, "content_filter")
    ordinary = oa.chat.completions.create(model="gpt-5.4", messages=ASK)
    assert ordinary.choices[0].finish_reason != "content_filter"


@pytest.mark.parametrize("streamed", [False, True])
def test_policy_trigger_is_a_refusal_anthropic(an: anthropic.Anthropic, streamed: bool) -> None:
    from mediagen_nb.emulator._chat_reply import REFUSAL_TEXT

    if streamed:
        with an.messages.stream(model="claude-haiku-4-5", max_tokens=200, messages=REFUSE) as s:
            final = s.get_final_message()
            stop, texts = final.stop_reason, [b.text for b in final.content if b.type == "text"]
    else:
        message = an.messages.create(model="claude-haiku-4-5", max_tokens=200, messages=REFUSE)
        stop, texts = message.stop_reason, [b.text for b in message.content if b.type == "text"]
    assert (stop, texts) == ("refusal", [REFUSAL_TEXT])
