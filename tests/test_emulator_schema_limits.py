"""Hostile JSON Schemas cost the emulator bounded work: a clear 400 naming the field and the
limit, in each protocol's envelope, never a 500, and other requests keep being answered."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest

from mediagen_nb.emulator import start_emulator
from mediagen_nb.emulator._chat_facts import _fits
from mediagen_nb.emulator._schema_instance import MISSING, instance_for, pattern_matches
from tests._emulator_helpers import client, make_app
from tests._support import KEY

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"


def chat_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A chat request whose reply must follow ``schema``."""
    return {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "fill it in"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}},
    }


def messages_body(schema: dict[str, Any]) -> dict[str, Any]:
    """A messages request with one tool whose arguments must follow ``schema``."""
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": "use the tool"}],
        "tools": [{"name": "fill", "description": "fill it in", "input_schema": schema}],
        "tool_choice": {"type": "any"},
    }


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


HUGE: dict[str, dict[str, Any]] = {
    "min-length": obj(text={"type": "string", "minLength": 1_500_000_000}),
    "min-items": obj(list={"type": "array", "items": {"type": "string"}, "minItems": 2_000_000}),
    "described-length": obj(text={"type": "string", "description": "{minLength: 900000000}"}),
    "nested-items": obj(
        grid={
            "type": "array",
            "minItems": 1000,
            "items": {"type": "array", "minItems": 1000, "items": {"type": "string"}},
        }
    ),
    "ref-cycle": {
        **obj(root={"$ref": "#/$defs/a"}),
        "$defs": {"a": obj(next={"$ref": "#/$defs/a"})},
    },
    "self-allof": {
        **obj(x={"$ref": "#/$defs/a"}),
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}},
    },
    "mutual-allof": {
        **obj(x={"$ref": "#/$defs/a"}),
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
    },
}


async def post(path: str, body: dict[str, Any]) -> httpx2.Response:
    async with client(make_app(), prefix="/gateway") as http:
        return await http.post(path, json=body)


def error_of(answer: httpx2.Response) -> dict[str, Any]:
    error = answer.json()["error"]
    assert isinstance(error, dict)
    return error


def assert_names_a_limit(message: str) -> None:
    """The error says which bound was crossed (not some unrelated rule)."""
    assert any(word in message for word in ("at most", "more than", "deeper than"))
    assert "schema" in message


@pytest.mark.parametrize("name", sorted(HUGE))
async def test_over_limit_schema_is_a_400_in_the_chat_envelope(name: str) -> None:
    answer = await post(CHAT, chat_body(HUGE[name]))
    assert answer.status_code == 400
    error = error_of(answer)
    assert error["type"] == "invalid_request_error"
    assert_names_a_limit(error["message"])


@pytest.mark.parametrize("name", sorted(HUGE))
async def test_over_limit_schema_is_a_400_in_the_messages_envelope(name: str) -> None:
    answer = await post(MESSAGES, messages_body(HUGE[name]))
    assert answer.status_code == 400
    assert answer.json()["type"] == "error"
    assert error_of(answer)["type"] == "invalid_request_error"
    assert_names_a_limit(error_of(answer)["message"])


async def test_the_400_names_the_field_and_the_limit() -> None:
    answer = await post(CHAT, chat_body(HUGE["min-length"]))
    error = error_of(answer)
    field = "response_format.json_schema.schema.properties.text.minLength"
    assert error["param"] == field
    assert field in error["message"]
    assert "10000" in error["message"]


async def test_an_optional_cycle_still_gets_an_instance() -> None:
    schema = {
        "$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}}}},
        "$ref": "#/$defs/node",
    }
    answer = await post(CHAT, chat_body(schema))
    assert answer.status_code == 200


def test_a_backtracking_pattern_still_gives_a_matching_short_value() -> None:
    name = "a" * 40 + "!"
    schema = obj(**{name: {"type": "string", "pattern": "^(a+)+$"}})
    value = instance_for(schema)[name]
    assert value
    assert set(value) == {"a"}


async def _poll_unknown(http: httpx2.AsyncClient, count: int) -> list[int]:
    statuses = []
    for _ in range(count):
        answer = await http.get("/api/v1/result/no-such-task")
        statuses.append(answer.status_code)
    return statuses


async def test_other_requests_are_answered_while_a_hostile_pattern_is_processed() -> None:
    name = "a" * 40 + "!"
    hostile = chat_body(obj(**{name: {"type": "string", "pattern": "^(a+)+$"}}))
    with start_emulator(api_key=KEY) as handle:
        root = handle.base_url.removesuffix("/api")
        headers = {"Authorization": f"Bearer {KEY}"}
        async with httpx2.AsyncClient(base_url=root, headers=headers, timeout=10.0) as http:
            slow = asyncio.create_task(http.post(f"/gateway{CHAT}", json=hostile))
            await asyncio.sleep(0)
            statuses = await _poll_unknown(http, 5)
            answer = await slow
    assert statuses == [404] * 5
    assert answer.status_code == 200


@pytest.mark.timeout(60)  # a regex run on the value would backtrack for days, not seconds
def test_a_hostile_pattern_is_never_run_on_a_value_from_the_conversation() -> None:
    long_value = "a" * 40 + "!"
    schema = {"type": "string", "pattern": "^(a+)+$"}
    assert _fits(long_value, schema) is MISSING
    assert _fits("aaa", schema) is MISSING  # nested repetition: never run, however short
    assert _fits("aaa", {"type": "string", "pattern": "^a+$"}) == "aaa"  # safe: tried
    assert pattern_matches("^(a+)+$", long_value) is None
    assert pattern_matches("^a+$", "a" * 65) is None  # over the length a regex is run on


@pytest.mark.timeout(60)
async def test_a_hostile_pattern_with_a_long_value_in_the_prompt_is_answered() -> None:
    long_value = "a" * 40 + "!"
    schema = obj(city={"type": "string", "pattern": "^(a+)+$"})
    body = chat_body(schema)
    body["messages"] = [
        {"role": "user", "content": f"The city is {long_value}. city: {long_value}"}
    ]
    async with client(make_app(), prefix="/gateway") as http:
        answer = await http.post(CHAT, json=body)
    assert answer.status_code == 200
