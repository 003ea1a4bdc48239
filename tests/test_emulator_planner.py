"""The emulator's step planner on the wire: what it calls next, when it stops, how it fills.

Raw requests on the ASGI app (no SDK), both protocols: forced tool choice starts the
Messages turn with ``tool_use``; a call already made is not made again; a task stops calling
tools after ``MAX_STEPS`` calls; a final-answer tool ends a task filled from the results;
the answer after a two-step run reports both steps' results; JSON asked in words follows the
example object given; the same conversation gets the same reply; Anthropic's temperature
range.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette

from mediagen_nb.emulator._chat_plan import MAX_STEPS
from tests.test_emulator_text import _app, _post

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
FINAL = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature_c": {"type": "number"}},
    "required": ["city", "temperature_c"],
}
AN_TOOLS: list[dict[str, Any]] = [
    {"name": "get_weather", "description": "Current weather for a city", "input_schema": CITY},
    {
        "name": "final_result",
        "description": "The final response which ends this conversation",
        "input_schema": FINAL,
    },
]
OA_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {"name": t["name"], "description": t["description"], "parameters": s},
    }
    for t, s in zip(AN_TOOLS, (CITY, FINAL), strict=True)
]
ASK = {"role": "user", "content": "What is the weather in Paris?"}


def _messages(**extra: Any) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-6", "max_tokens": 512, "tools": AN_TOOLS, **extra}


def _called(use_id: str, name: str, arguments: Any, result: str) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": use_id, "name": name, "input": arguments}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use_id, "content": result}],
        },
    ]


async def test_forced_tool_choice_starts_the_messages_turn_with_tool_use() -> None:
    app: Starlette = _app()
    for choice in ({"type": "any"}, {"type": "tool", "name": "get_weather"}):
        body = _messages(messages=[ASK], tool_choice=choice)
        data = (await _post(app, "/v1/messages", body)).json()
        assert [b["type"] for b in data["content"]] == ["tool_use"], choice
        assert data["content"][0]["input"] == {"city": "Paris"}
    auto = (await _post(app, "/v1/messages", _messages(messages=[ASK]))).json()
    assert [b["type"] for b in auto["content"]] == ["text", "tool_use"]


async def test_after_a_result_the_final_tool_finishes_with_the_results_values() -> None:
    app: Starlette = _app()
    result = '{"temperature_c": 18, "sky": "sunny"}'
    messages = [ASK, *_called("toolu_1", "get_weather", {"city": "Paris"}, result)]
    for choice in ({"type": "any"}, {"type": "auto"}):
        body = _messages(messages=messages, tool_choice=choice)
        data = (await _post(app, "/v1/messages", body)).json()
        uses = [b for b in data["content"] if b["type"] == "tool_use"]
        assert [(u["name"], u["input"]) for u in uses] == [
            ("final_result", {"city": "Paris", "temperature_c": 18})
        ]
        first = "tool_use" if choice["type"] == "any" else "text"  # a preamble under auto
        assert data["content"][0]["type"] == first


async def test_a_call_already_made_is_not_made_again_and_steps_are_bounded() -> None:
    app: Starlette = _app()
    oa = [t for t in OA_TOOLS if t["function"]["name"] == "get_weather"]
    called: list[dict[str, Any]] = [
        ASK,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 °C, sunny"},
    ]
    body = {"model": "gpt-5.4", "messages": called, "tools": oa}
    data = (await _post(app, "/v1/chat/completions", body)).json()
    assert data["choices"][0]["finish_reason"] == "stop"
    assert "18 °C, sunny" in data["choices"][0]["message"]["content"]
    lookup = {
        "name": "lookup_weather_station",
        "description": "Weather station readings",
        "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }
    many: list[dict[str, Any]] = [ASK]
    for step in range(MAX_STEPS):
        many += _called(f"toolu_{step}", "get_weather", {"city": f"C{step}"}, "ok")
    body = _messages(messages=many, tools=[AN_TOOLS[0], lookup])
    data = (await _post(app, "/v1/messages", body)).json()
    assert data["stop_reason"] == "end_turn"
    fewer = _messages(messages=many[:3], tools=[AN_TOOLS[0], lookup])
    data = (await _post(app, "/v1/messages", fewer)).json()
    assert [b.get("name") for b in data["content"] if b["type"] == "tool_use"] == [
        "lookup_weather_station"
    ]


async def test_json_asked_in_words_follows_the_example_and_is_deterministic() -> None:
    app: Starlette = _app()
    system = 'Reply in JSON shaped like {"city": "...", "temperature_c": 0, "fenced": false}.'
    messages = [ASK, *_called("toolu_1", "get_weather", {"city": "Paris"}, "18 °C")]
    body = {"model": "claude-sonnet-4-6", "max_tokens": 512, "system": system}
    first = (await _post(app, "/v1/messages", {**body, "messages": messages})).json()
    again = (await _post(app, "/v1/messages", {**body, "messages": messages})).json()
    assert first["content"] == again["content"]
    value = json.loads(first["content"][0]["text"])
    assert value == {"city": "Paris", "temperature_c": 18, "fenced": False}
    fenced = {**body, "system": system + " Put it in a code block.", "messages": messages}
    text = (await _post(app, "/v1/messages", fenced)).json()["content"][0]["text"]
    assert text.startswith("```json\n")
    assert json.loads(text.removeprefix("```json\n").removesuffix("\n```")) == value


async def test_messages_temperature_outside_zero_to_one_is_refused_in_anthropics_envelope() -> None:
    app: Starlette = _app()
    for temperature in (1.5, -0.1):
        body = {**_messages(messages=[ASK]), "temperature": temperature}
        response = await _post(app, "/v1/messages", body)
        assert response.status_code == 400
        data = response.json()
        assert data["type"] == "error"
        assert data["error"]["type"] == "invalid_request_error"
        assert data["error"]["message"].startswith("temperature: must be between 0 and 1")
        assert data["request_id"] == response.headers["request-id"]


async def test_the_answer_after_a_two_step_run_reports_every_result_in_call_order() -> None:
    app: Starlette = _app()
    wear = {"type": "object", "properties": {"temperature_c": {"type": "number"}}}
    tools = [AN_TOOLS[0], {"name": "what_to_wear", "description": "Clothes", "input_schema": wear}]
    ask = {"role": "user", "content": "What is the weather in Paris, and what should I wear?"}
    messages = [
        ask,
        *_called("toolu_1", "get_weather", {"city": "Paris"}, '{"temperature_c": 18}'),
        *_called("toolu_2", "what_to_wear", {"temperature_c": 18}, "a light jacket"),
    ]
    data = (await _post(app, "/v1/messages", _messages(messages=messages, tools=tools))).json()
    assert data["stop_reason"] == "end_turn"
    text = data["content"][0]["text"]
    weather, wear_said = 'get_weather: “{"temperature_c": 18}”', "what_to_wear: “a light jacket”"
    assert weather in text
    assert text.index(weather) < text.index(wear_said)
