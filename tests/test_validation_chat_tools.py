"""validate_request on tool use, thinking, structured output, ``n`` and ``stream_options``.

What the two chat protocols accept passes clean; each bad value gets a Problem naming the
field (as the protocol names it) and the rule.
"""

from __future__ import annotations

from typing import Any

import pytest

from mediagen_nb import validate_request

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
CHAT_TOOLS = [
    {
        "type": "function",
        "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA, "strict": True},
    }
]
MSG_TOOLS = [{"name": "get_weather", "description": "Weather", "input_schema": WEATHER_SCHEMA}]
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


def chat(**extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        **extra,
    }


def msgs(**extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        **extra,
    }


def fields(path: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.field, p.rule) for p in validate_request(path, body) if p.is_error]


def test_chat_tool_loop_and_developer_role_are_accepted() -> None:
    body = chat(
        tools=CHAT_TOOLS,
        tool_choice="auto",
        parallel_tool_calls=True,
        messages=[
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
        ],
        n=2,
        stream=True,
        stream_options={"include_usage": True},
    )
    assert fields(CHAT, body) == []


@pytest.mark.parametrize(
    ("extra", "field", "word"),
    [
        ({"tool_choice": "required"}, "tool_choice", "only allowed when tools"),
        ({"tool_choice": "sometimes", "tools": CHAT_TOOLS}, "tool_choice", "'required'"),
        (
            {
                "tool_choice": {"type": "function", "function": {"name": "nope"}},
                "tools": CHAT_TOOLS,
            },
            "tool_choice.function.name",
            "not among tools",
        ),
        (
            {"tools": [{"type": "function", "function": {"name": "bad name"}}]},
            "tools[0].function.name",
            "letters",
        ),
        ({"tools": [{"type": "retrieval"}]}, "tools[0].type", "'function'"),
        (
            {
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": "f",
                            "parameters": {
                                "type": "object",
                                "properties": {"a": {"type": "string"}},
                                "required": ["a"],
                            },
                            "strict": True,
                        },
                    }
                ]
            },
            "tools[0].function.parameters.additionalProperties",
            "false",
        ),
        ({"response_format": {"type": "json_object"}}, "messages", "'json'"),
        ({"response_format": {"type": "yaml"}}, "response_format.type", "json_schema"),
        ({"response_format": {"type": "json_schema"}}, "response_format.json_schema", "name"),
        (
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {
                        "name": "x",
                        "strict": True,
                        "schema": {
                            "type": "object",
                            "properties": {"a": {"type": "string"}},
                            "additionalProperties": False,
                        },
                    },
                }
            },
            "response_format.json_schema.schema.required",
            "missing a",
        ),
        ({"n": 0}, "n", "1 to 128"),
        ({"n": 1.5}, "n", "integer"),
        ({"stream_options": {"include_usage": True}}, "stream_options", "stream is true"),
        ({"parallel_tool_calls": "yes"}, "parallel_tool_calls", "true or false"),
    ],
)
def test_chat_bad_values_name_the_field(extra: dict[str, Any], field: str, word: str) -> None:
    problems = fields(CHAT, chat(**extra))
    assert [f for f, _ in problems] == [field]
    assert word in problems[0][1]


def test_chat_tool_turn_rules() -> None:
    unanswered = chat(
        tools=CHAT_TOOLS,
        messages=[
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "user", "content": "and?"},
        ],
    )
    assert fields(CHAT, unanswered) == [
        ("messages[2]", "the tool calls call_1 must each be answered by a tool message first")
    ]
    stray = chat(messages=[{"role": "user", "content": "x"}, {"role": "tool", "content": "18 C"}])
    assert fields(CHAT, stray) == [("messages[1].tool_call_id", "is required on a tool message")]
    unknown = chat(
        messages=[
            {"role": "user", "content": "x"},
            {"role": "tool", "tool_call_id": "c9", "content": "1"},
        ]
    )
    assert [f for f, _ in fields(CHAT, unknown)] == ["messages[1].tool_call_id"]
    null_user = chat(messages=[{"role": "user", "content": None}])
    assert [f for f, _ in fields(CHAT, null_user)] == ["messages[0].content"]
    bad_call = dict(CALL, function={"name": "get_weather", "arguments": {"city": "Paris"}})
    bad = chat(
        messages=[
            {"role": "user", "content": "x"},
            {"role": "assistant", "content": None, "tool_calls": [bad_call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "1"},
        ]
    )
    assert fields(CHAT, bad) == [
        ("messages[1].tool_calls[0].function.arguments", "must be a JSON string")
    ]


def test_messages_tool_loop_with_thinking_is_accepted() -> None:
    body = msgs(
        tools=MSG_TOOLS,
        tool_choice={"type": "auto"},
        thinking={"type": "enabled", "budget_tokens": 2048},
        messages=[
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "call it", "signature": "sig"},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C"}],
            },
        ],
        output_config={"format": {"type": "json_schema", "schema": WEATHER_SCHEMA}},
    )
    assert fields(MESSAGES, body) == []


@pytest.mark.parametrize(
    ("extra", "field", "word"),
    [
        (
            {"thinking": {"type": "enabled", "budget_tokens": 1023}},
            "thinking.budget_tokens",
            "at least 1024",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 4096}},
            "thinking.budget_tokens",
            "less than max_tokens (4096)",
        ),
        ({"thinking": {"type": "enabled"}}, "thinking.budget_tokens", "required"),
        ({"thinking": {"type": "on"}}, "thinking.type", "'enabled'"),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2048}, "temperature": 0.5},
            "temperature",
            "only be 1",
        ),
        (
            {
                "thinking": {"type": "enabled", "budget_tokens": 2048},
                "tools": MSG_TOOLS,
                "tool_choice": {"type": "any"},
            },
            "tool_choice",
            "forces tool use",
        ),
        (
            {"tool_choice": {"type": "tool", "name": "nope"}, "tools": MSG_TOOLS},
            "tool_choice.name",
            "not among tools",
        ),
        ({"tool_choice": {"type": "required"}, "tools": MSG_TOOLS}, "tool_choice.type", "'any'"),
        ({"tool_choice": {"type": "any"}}, "tool_choice", "needs tools"),
        ({"tools": [{"name": "get_weather"}]}, "tools[0].input_schema", "required"),
        (
            {"tools": [{"name": "f", "input_schema": {"type": "string"}}]},
            "tools[0].input_schema",
            "'object'",
        ),
        (
            {"output_config": {"format": {"type": "json"}}},
            "output_config.format.type",
            "json_schema",
        ),
    ],
)
def test_messages_bad_values_name_the_field(extra: dict[str, Any], field: str, word: str) -> None:
    problems = fields(MESSAGES, msgs(**extra))
    assert [f for f, _ in problems] == [field]
    assert word in problems[0][1]


def test_messages_tool_result_rules() -> None:
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    missing = msgs(
        tools=MSG_TOOLS,
        messages=[
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": "never mind"},
        ],
    )
    assert fields(MESSAGES, missing) == [
        (
            "messages[2]",
            "must answer every tool_use of the previous message with a tool_result; "
            "missing toolu_1",
        )
    ]
    wrong = msgs(
        messages=[
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": [use]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}],
            },
        ],
    )
    assert [f for f, _ in fields(MESSAGES, wrong)] == [
        "messages[2].content[0].tool_use_id",
        "messages[2]",
    ]
