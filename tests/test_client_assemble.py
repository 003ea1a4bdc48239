"""Stream reassembly: fed the same recorded bytes, our client rebuilds what the SDKs rebuild.

Both the official SDK and ``mediagen_nb.AsyncClient`` read the recording from an
``httpx2.MockTransport``, so each side runs its own SSE parsing and accumulation end to end.
"""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import openai
import pytest

from mediagen_nb.client import AsyncClient
from mediagen_nb.types import (
    ChatCompletion,
    CompletionUsage,
    DoneEvent,
    Message,
    MessageUsage,
    TextEvent,
    ThinkingBlock,
    ThinkingEvent,
    ToolCall,
    ToolCallEvent,
    ToolInputEvent,
    ToolUseBlock,
)
from tests._chat_recordings import (
    CHAT_TOOL_CALLS,
    CHAT_TWO_CHOICES,
    MESSAGES_THINKING_TOOL_USE,
)

BASE = "http://recorded.test"
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}},
]
CHAT_BODY: dict[str, Any] = {
    "model": "gpt-5.4",
    "messages": [{"role": "user", "content": "Weather and time in Paris?"}],
}
MESSAGES_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 4096,
    "messages": [{"role": "user", "content": "Weather in Paris?"}],
}


def _replay(body: bytes) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx2.MockTransport(handler)


def _ours(body: bytes) -> AsyncClient:
    return AsyncClient(
        api_key="k", base_url=BASE, text_base_url=BASE, transport=_replay(body), recorder=None
    )


def _chat_view(choices: list[Any]) -> list[dict[str, Any]]:
    view = []
    for choice in choices:
        message = choice.message
        view.append(
            {
                "index": choice.index,
                "finish_reason": choice.finish_reason,
                "role": message.role,
                "content": message.content,
                "tool_calls": [
                    (c.id, c.type, c.function.name, c.function.arguments)
                    for c in message.tool_calls or []
                ],
            }
        )
    return view


async def _sdk_chat(body: bytes, tools: list[dict[str, Any]]) -> Any:
    http = httpx2.AsyncClient(transport=_replay(body))
    sdk = openai.AsyncOpenAI(api_key="k", base_url=BASE, http_client=http)
    async with sdk, sdk.chat.completions.stream(**CHAT_BODY, tools=tools) as stream:  # type: ignore[arg-type]
        return await stream.get_final_completion()


@pytest.mark.parametrize(
    ("recording", "tools"), [(CHAT_TOOL_CALLS, TOOLS), (CHAT_TWO_CHOICES, [])], ids=["tools", "n2"]
)
async def test_chat_stream_reassembles_like_the_openai_sdk(
    recording: bytes, tools: list[dict[str, Any]]
) -> None:
    expected = await _sdk_chat(recording, tools)
    async with _ours(recording) as client:
        stream = await client.chat.completions.create(**CHAT_BODY, tools=tools, stream=True)
        final = await stream.get_final_completion()
    assert isinstance(final, ChatCompletion)
    assert _chat_view(final.choices) == _chat_view(expected.choices)
    assert (final.id, final.model, final.created) == (
        expected.id,
        expected.model,
        expected.created,
    )
    ours_usage = final.usage.model_dump() if final.usage else None
    sdk_usage = expected.usage.model_dump(exclude_none=True) if expected.usage else None
    assert ours_usage == sdk_usage


async def test_chat_tool_calls_are_typed_and_continue_the_loop() -> None:
    async with _ours(CHAT_TOOL_CALLS) as client:
        stream = await client.chat.completions.create(**CHAT_BODY, tools=TOOLS, stream=True)
        updates = [u async for u in stream.events()]
    kinds = [u.type for u in updates]
    assert kinds == ["tool_input"] * 4 + ["tool_call", "tool_call", "done"]
    inputs = [u for u in updates if isinstance(u, ToolInputEvent)]
    assert [(u.index, u.name) for u in inputs] == [(0, "get_weather")] * 3 + [(1, "get_time")]
    assert inputs[2].snapshot == '{"city": "Paris", "unit": "celsius"}'
    calls = [u.call for u in updates if isinstance(u, ToolCallEvent)]
    assert all(isinstance(c, ToolCall) for c in calls)
    assert [(c.id, c.name, c.input) for c in calls] == [
        ("call_weather1", "get_weather", {"city": "Paris", "unit": "celsius"}),
        ("call_time2", "get_time", {"zone": "Europe/Paris"}),
    ]
    done = updates[-1]
    assert isinstance(done, DoneEvent)
    assert isinstance(done.final, ChatCompletion)
    assert isinstance(done.usage, CompletionUsage)
    assert done.usage.total_tokens == 95
    assert done.final.choices[0].finish_reason == "tool_calls"
    turn = done.final.message.to_param()
    assert turn["content"] is None
    assert [c["function"]["name"] for c in turn["tool_calls"]] == ["get_weather", "get_time"]
    assert calls[0].result("18 C") == {
        "role": "tool",
        "tool_call_id": "call_weather1",
        "content": "18 C",
    }


async def test_chat_two_choices_keep_their_own_text() -> None:
    async with _ours(CHAT_TWO_CHOICES) as client:
        stream = await client.chat.completions.create(**CHAT_BODY, stream=True)
        texts = [(u.choice, u.text) async for u in stream.events() if isinstance(u, TextEvent)]
    assert texts == [(0, "Hello"), (1, "Hi"), (1, " there"), (0, " world")]
    assert stream.text == "Hello world"
    assert stream.finish_reason == "stop"


async def _sdk_message(body: bytes) -> Any:
    http = httpx2.AsyncClient(transport=_replay(body))
    sdk = anthropic.AsyncAnthropic(api_key="k", base_url=BASE, http_client=http)
    async with sdk, sdk.messages.stream(**MESSAGES_BODY) as stream:
        return await stream.get_final_message()


async def test_messages_stream_reassembles_like_the_anthropic_sdk() -> None:
    expected = await _sdk_message(MESSAGES_THINKING_TOOL_USE)
    async with _ours(MESSAGES_THINKING_TOOL_USE) as client:
        stream = await client.messages.create(**MESSAGES_BODY, stream=True)
        final = await stream.get_final_message()
    assert isinstance(final, Message)
    assert [b.to_param() for b in final.content] == [
        b.model_dump(mode="json", exclude_none=True) for b in expected.content
    ]
    assert [type(b).__name__ for b in final.content] == [
        "ThinkingBlock",
        "TextBlock",
        "ToolUseBlock",
    ]
    assert (final.id, final.model, final.stop_reason, final.stop_sequence) == (
        expected.id,
        expected.model,
        expected.stop_reason,
        expected.stop_sequence,
    )
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (
        expected.usage.input_tokens,
        expected.usage.output_tokens,
    )


async def test_messages_stream_helper_yields_thinking_text_tool_and_done() -> None:
    client = _ours(MESSAGES_THINKING_TOOL_USE)
    async with client, client.messages.stream(**MESSAGES_BODY) as stream:
        updates = [u async for u in stream.events()]
    assert [u.type for u in updates] == [
        "thinking",
        "thinking",
        "text",
        "text",
        "tool_input",
        "tool_input",
        "tool_call",
        "done",
    ]
    thinking = [u for u in updates if isinstance(u, ThinkingEvent)]
    assert thinking[-1].snapshot == "The user wants the weather in Paris; I should call the tool."
    texts = [u for u in updates if isinstance(u, TextEvent)]
    assert texts[-1].snapshot == "Let me check the weather."
    call = next(u.call for u in updates if isinstance(u, ToolCallEvent))
    assert isinstance(call, ToolUseBlock)
    assert (call.id, call.name, call.input) == (
        "toolu_rec1",
        "get_weather",
        {"city": "Paris", "days": [1, 2]},
    )
    done = updates[-1]
    assert isinstance(done, DoneEvent)
    assert isinstance(done.final, Message)
    assert done.final.thinking.startswith("The user wants")
    block = done.final.content[0]
    assert isinstance(block, ThinkingBlock)
    assert block.signature == "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"
    assert isinstance(done.usage, MessageUsage)
    assert done.usage.output_tokens == 89
    assert stream.stop_reason == "tool_use"
    assert call.result("sunny", is_error=False) == {
        "type": "tool_result",
        "tool_use_id": "toolu_rec1",
        "content": "sunny",
    }
    assert done.final.to_param()["content"][0] == {
        "type": "thinking",
        "thinking": "The user wants the weather in Paris; I should call the tool.",
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h",
    }


async def test_text_stream_yields_only_answer_text() -> None:
    async with _ours(MESSAGES_THINKING_TOOL_USE) as client:
        stream = await client.messages.stream(**MESSAGES_BODY)
        pieces = [p async for p in stream.text_stream]
    assert pieces == ["Let me check", " the weather."]
