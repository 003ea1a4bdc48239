"""Every chat-completions shape the emulator sends is valid against OpenAI's published schema.

``tests/data/openai_chat_schemas.json`` holds ``CreateChatCompletionResponse`` and
``CreateChatCompletionStreamResponse`` with what they reference, extracted once from
``openapi.json`` of the openai-openapi repository (commit in its ``$comment``; the script
beside it rewrites it). OpenAPI 3.1 schemas are JSON Schema 2020-12, except that a few
still say ``nullable: true`` (3.0 style), which is turned into a ``null`` type here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from starlette.applications import Starlette

from tests.test_emulator_text import _app, _post

SCHEMAS = Path(__file__).parent / "data" / "openai_chat_schemas.json"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Local clock time in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
]
ASK = [{"role": "user", "content": "What is the weather and the time in Paris?"}]
CALLED = [
    *ASK,
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
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temperature_c": 18}'},
]
SHAPES: dict[str, dict[str, Any]] = {
    "text": {"messages": [{"role": "user", "content": "Why is the sky blue?"}]},
    "length": {"messages": ASK, "max_completion_tokens": 3},
    "stop": {"messages": [{"role": "user", "content": "Why is the sky blue?"}], "stop": ["a"]},
    "n": {"messages": ASK, "n": 3},
    "tool calls": {"messages": ASK, "tools": TOOLS},
    "after a tool result": {"messages": CALLED, "tools": TOOLS},
    "logprobs": {"messages": ASK, "logprobs": True, "top_logprobs": 3},
    "logprobs without top": {"messages": ASK, "logprobs": True},
    "json_object": {
        "messages": [{"role": "user", "content": "The weather in Paris, as JSON please."}],
        "response_format": {"type": "json_object"},
    },
    "json_schema": {
        "messages": CALLED,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "w",
                "schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "temperature_c": {"type": "number"}},
                    "required": ["city", "temperature_c"],
                },
            },
        },
    },
}


def _nullable(value: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` as JSON Schema (a ``null`` type, ``None`` in enums)."""
    if isinstance(value, list):
        return [_nullable(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _nullable(v) for k, v in value.items() if k != "nullable"}
    if value.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        if isinstance(out.get("enum"), list):
            out["enum"] = [*out["enum"], None]
        if "$ref" in out:
            out = {"anyOf": [{"$ref": out.pop("$ref")}, {"type": "null"}], **out}
    return out


def _validator(name: str) -> jsonschema.Draft202012Validator:
    data = _nullable(json.loads(SCHEMAS.read_text()))
    schema = {"$ref": f"#/$defs/{name}", "$defs": data["$defs"]}
    return jsonschema.Draft202012Validator(schema)


def _check(validator: jsonschema.Draft202012Validator, value: Any) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(value)]
    assert not errors, (errors, value)


@pytest.fixture(scope="module")
def app() -> Starlette:
    return _app()


@pytest.mark.parametrize("shape", list(SHAPES))
async def test_chat_completion_matches_the_published_schema(app: Starlette, shape: str) -> None:
    body = {"model": "gpt-5.4", **SHAPES[shape]}
    response = await _post(app, "/v1/chat/completions", body)
    assert response.status_code == 200, response.text
    data = response.json()
    _check(_validator("CreateChatCompletionResponse"), data)
    for choice in data["choices"]:
        assert choice["message"]["refusal"] is None
        assert (choice["logprobs"] is None) == ("logprobs" not in body)


@pytest.mark.parametrize("usage", [False, True], ids=["no-usage", "usage"])
@pytest.mark.parametrize("shape", list(SHAPES))
async def test_chat_chunks_match_the_published_schema(
    app: Starlette, shape: str, usage: bool
) -> None:
    body: dict[str, Any] = {"model": "gpt-5.4", "stream": True, **SHAPES[shape]}
    if usage:
        body["stream_options"] = {"include_usage": True}
    response = await _post(app, "/v1/chat/completions", body)
    assert response.status_code == 200, response.text
    events = [line[6:] for line in response.text.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    validator = _validator("CreateChatCompletionStreamResponse")
    for chunk in chunks:
        _check(validator, chunk)
    assert [c["choices"] == [] for c in chunks].count(True) == (1 if usage else 0)


async def test_logprobs_are_plausible_and_spell_the_text(app: Starlette) -> None:
    body = {"model": "gpt-5.4", "messages": ASK, "logprobs": True, "top_logprobs": 3}
    data = (await _post(app, "/v1/chat/completions", body)).json()
    choice = data["choices"][0]
    tokens = choice["logprobs"]["content"]
    assert "".join(t["token"] for t in tokens) == choice["message"]["content"]
    for token in tokens:
        assert -10 < token["logprob"] < 0
        assert bytes(token["bytes"]).decode() == token["token"]
        top = token["top_logprobs"]
        assert len(top) == 3
        assert top[0]["token"] == token["token"]
        assert top[0]["logprob"] == token["logprob"]
        assert [t["logprob"] for t in top] == sorted((t["logprob"] for t in top), reverse=True)
    streamed = await _post(app, "/v1/chat/completions", {**body, "stream": True})
    pieces = [
        t
        for line in streamed.text.split("\n")
        if line.startswith("data: {")
        for c in json.loads(line[6:])["choices"]
        if c["logprobs"]
        for t in c["logprobs"]["content"]
    ]
    assert pieces == tokens
    refused = await _post(app, "/v1/chat/completions", {**body, "top_logprobs": 21})
    assert refused.status_code == 400
    assert "top_logprobs" in refused.json()["error"]["message"]
