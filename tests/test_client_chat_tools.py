"""mediagen_nb.AsyncClient for tool loops, thinking and chat retries.

Against the emulator: a tool loop continued with ``to_param()`` / ``result()`` on both
endpoints, the stream helper's updates in order, and the emulator's own streamed bytes
reassembled by our client and by the official SDKs into the same reply. With scripted
transports: the SDKs' retry policy for chat POSTs (what is retried, how long it waits, how
often), and a stream that already delivered text is never sent again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mediagen_nb import APIConnectionError, BadRequestError, RateLimitError, ServerError
from mediagen_nb.client import AsyncClient, StreamInterruptedError
from mediagen_nb.types import (
    CompletionUsage,
    DoneEvent,
    Message,
    ThinkingBlock,
    ToolCall,
    ToolCallEvent,
    ToolUseBlock,
    tool_results_turn,
)
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT
from tests.test_client_assemble import (
    CHAT_BODY,
    MESSAGES_BODY,
    _chat_view,
    _ours,
    _sdk_chat,
    _sdk_message,
)
from tests.test_emulator_chat_sdk import AN_TOOLS, ASK, OA_TOOLS, RESULT
from tests.test_emulator_text import _app, _serve


@pytest.fixture(scope="module")
def text_base() -> Iterator[str]:
    with _serve(_app()) as url:
        yield url


def _client(text_base: str) -> AsyncClient:
    return AsyncClient(KEY, text_base.replace("/gateway", "/api"), text_base, recorder=None)


async def test_chat_tool_loop_with_our_client(text_base: str) -> None:
    async with _client(text_base) as client:
        messages: list[dict[str, Any]] = list(ASK)
        first = await client.chat.completions.create(
            model="gpt-5.4", messages=messages, tools=OA_TOOLS
        )
        assert first.choices[0].finish_reason == "tool_calls"
        call = first.tool_calls[0]
        assert isinstance(call, ToolCall)
        assert (call.name, call.input) == ("get_weather", {"city": "Paris", "unit": "fahrenheit"})
        messages += [first.message.to_param(), call.result(RESULT)]
        async with client.chat.completions.stream(
            model="gpt-5.4", messages=messages, tools=OA_TOOLS
        ) as stream:
            updates = [u async for u in stream.events()]
    done = updates[-1]
    assert isinstance(done, DoneEvent)
    assert f"get_weather: “{RESULT}”" in done.final.text
    assert isinstance(done.usage, CompletionUsage)
    assert done.usage.completion_tokens > 0
    assert {u.type for u in updates[:-1]} == {"text"}


async def test_messages_thinking_tool_loop_with_the_stream_helper(text_base: str) -> None:
    args: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 3000,
        "tools": AN_TOOLS,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
    }
    async with _client(text_base) as client:
        messages: list[dict[str, Any]] = list(ASK)
        async with client.messages.stream(messages=messages, **args) as stream:
            updates = [u async for u in stream.events()]
        kinds = [u.type for u in updates]
        first_text, first_input = kinds.index("text"), kinds.index("tool_input")
        assert set(kinds[:first_text]) == {"thinking"}
        assert set(kinds[first_text:first_input]) == {"text"}
        assert kinds[-2:] == ["tool_call", "done"]
        done = updates[-1]
        assert isinstance(done, DoneEvent)
        final = done.final
        assert isinstance(final, Message)
        assert [type(b) for b in final.content] == [
            ThinkingBlock,
            type(final.content[1]),
            ToolUseBlock,
        ]
        calls = [u.call for u in updates if isinstance(u, ToolCallEvent)]
        assert calls == final.tool_uses
        messages += [
            final.to_param(),
            tool_results_turn(*(use.result(RESULT) for use in final.tool_uses)),
        ]
        second = await client.messages.create(messages=messages, **args)
    assert second.stop_reason == "end_turn"
    assert second.thinking
    assert f"get_weather: “{RESULT}”" in second.text


def _record(text_base: str, path: str, body: dict[str, Any]) -> bytes:
    with httpx2.stream(
        "POST",
        text_base + path,
        json={**body, "stream": True},
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=10,
    ) as response:
        return response.read()


async def test_emulator_recordings_reassemble_like_the_sdks(text_base: str) -> None:
    chat_body = {
        **CHAT_BODY,
        "messages": [{"role": "user", "content": "Weather and time in Paris, please?"}],
        "tools": OA_TOOLS,
        "n": 2,
        "stream_options": {"include_usage": True},
    }
    chat_bytes = _record(text_base, "/v1/chat/completions", chat_body)
    expected = await _sdk_chat(chat_bytes, OA_TOOLS)
    async with _ours(chat_bytes) as client:
        stream = await client.chat.completions.create(**CHAT_BODY, stream=True)
        final = await stream.get_final_completion()
    assert len(final.choices) == 2
    assert [len(c.message.tool_calls or []) for c in final.choices] == [2, 2]
    assert _chat_view(final.choices) == _chat_view(expected.choices)
    assert final.usage is not None
    assert expected.usage is not None
    assert final.usage.model_dump() == expected.usage.model_dump(exclude_none=True)

    messages_body = {
        **MESSAGES_BODY,
        "tools": AN_TOOLS,
        "thinking": {"type": "enabled", "budget_tokens": 2000},
    }
    message_bytes = _record(text_base, "/v1/messages", messages_body)
    sdk_message = await _sdk_message(message_bytes)
    async with _ours(message_bytes) as client:
        message_stream = await client.messages.create(**MESSAGES_BODY, stream=True)
        message = await message_stream.get_final_message()
    assert [b.to_param() for b in message.content] == [
        b.model_dump(mode="json", exclude_none=True) for b in sdk_message.content
    ]
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens) == (
        sdk_message.usage.input_tokens,
        sdk_message.usage.output_tokens,
    )


# -- retries ---------------------------------------------------------------------------------

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    ],
}
HELLO = [{"role": "user", "content": "hello"}]


def _scripted(items: list[httpx2.Response | Exception]) -> tuple[httpx2.MockTransport, list[str]]:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url.path)
        item = items[min(len(seen) - 1, len(items) - 1)]
        if isinstance(item, Exception):
            raise item
        return item

    return httpx2.MockTransport(handler), seen


def _make(transport: httpx2.MockTransport, clock: FakeClock, **kw: Any) -> AsyncClient:
    return AsyncClient(
        KEY,
        BASE,
        TEXT,
        transport,
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 0.0,
        recorder=None,
        **kw,
    )


async def test_chat_is_retried_on_429_5xx_and_lost_connections_honouring_retry_after() -> None:
    clock = FakeClock()
    transport, seen = _scripted(
        [
            httpx2.Response(
                429, headers={"retry-after-ms": "250"}, json={"error": {"message": "slow"}}
            ),
            httpx2.Response(529, json={"type": "error", "error": {"type": "overloaded_error"}}),
            httpx2.Response(200, json=COMPLETION),
        ]
    )
    async with _make(transport, clock, chat_max_retries=2) as client:
        reply = await client.chat.completions.create(model="gpt-5.4", messages=HELLO)
    assert reply.text == "hi"
    assert len(seen) == 3
    assert clock.sleeps == [0.25, 1.0]  # retry-after-ms, then 0.5 * 2**1 (jitter factor 1)
    clock = FakeClock()
    transport, seen = _scripted(
        [httpx2.ReadError("reset"), httpx2.Response(408), httpx2.Response(200, json=COMPLETION)]
    )
    async with _make(transport, clock) as client:
        assert (await client.chat.completions.create(model="gpt-5.4", messages=HELLO)).text == "hi"
        assert client.chat_retries == 2
    assert clock.sleeps == [0.5, 1.0]


async def test_chat_retries_stop_at_the_limit_and_skip_what_the_sdks_do_not_retry() -> None:
    clock = FakeClock()
    transport, seen = _scripted([httpx2.Response(503, headers={"retry-after": "2"})])
    async with _make(transport, clock) as client:
        with pytest.raises(ServerError):
            await client.chat.completions.create(model="gpt-5.4", messages=HELLO)
    assert len(seen) == 3  # the first try and the default 2 retries
    assert clock.sleeps == [2.0, 2.0]
    for status, error in ((400, BadRequestError), (429, RateLimitError)):
        clock = FakeClock()
        headers = {"x-should-retry": "false"} if status == 429 else {}
        transport, seen = _scripted([httpx2.Response(status, headers=headers)])
        async with _make(transport, clock) as client:
            with pytest.raises(error):
                await client.chat.completions.create(model="gpt-5.4", messages=HELLO)
        assert len(seen) == 1
    clock = FakeClock()
    transport, seen = _scripted([httpx2.ConnectError("refused")])
    async with _make(transport, clock, chat_max_retries=0) as client:
        with pytest.raises(APIConnectionError):
            await client.messages.create(model="claude-sonnet-4-6", max_tokens=20, messages=HELLO)
    assert len(seen) == 1  # the transport does not retry chat POSTs on its own


async def test_a_stream_is_retried_while_opening_but_never_after_text_arrived() -> None:
    body = (
        b'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,'
        b'"delta":{"content":"Hel"},"finish_reason":null}]}\n\n'
    )

    class Cut(httpx2.AsyncByteStream):
        async def __aiter__(self) -> Any:
            yield body
            raise httpx2.ReadError("connection reset")

    clock = FakeClock()
    transport, seen = _scripted(
        [
            httpx2.Response(502),
            httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Cut()),
        ]
    )
    async with _make(transport, clock) as client:
        stream = await client.chat.completions.create(model="gpt-5.4", messages=HELLO, stream=True)
        with pytest.raises(StreamInterruptedError) as caught:
            async for _ in stream.text_stream:
                pass
    assert caught.value.partial_text == "Hel"
    assert len(seen) == 2  # one retry while opening, none after text arrived


def test_blocking_client_stream_helper(text_base: str) -> None:
    from mediagen_nb import Client

    with Client(KEY, text_base.replace("/gateway", "/api"), text_base, recorder=None) as client:
        with client.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=2000,
            messages=ASK,
            thinking={"type": "enabled", "budget_tokens": 1024},
        ) as stream:
            kinds = [u.type for u in stream.events()]
        assert kinds[0] == "thinking"
        assert kinds[-1] == "done"
        with client.chat.completions.stream(model="gpt-5.4", messages=ASK) as chat_stream:
            text = "".join(chat_stream.text_stream)
        assert text == chat_stream.text
        assert chat_stream.usage is not None


async def test_turns_record_tool_calls_and_thinking(text_base: str, tmp_path: Any) -> None:
    from tests.client_fakes import MemoryRecorder

    recorder = MemoryRecorder(tmp_path)
    base = text_base.replace("/gateway", "/api")
    async with AsyncClient(KEY, base, text_base, recorder=recorder) as client:
        await client.chat.completions.create(model="gpt-5.4", messages=ASK, tools=OA_TOOLS)
        stream = await client.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=2000,
            messages=[{"role": "user", "content": "Why is the sky blue?"}],
            thinking={"type": "enabled", "budget_tokens": 1024},
            stream=True,
        )
        await stream.until_done()
    completed = [e.data for e in recorder.events if e.action == "completed"]
    assert [c.get("stream") for c in completed] == [False, True]
    calls = completed[0]["tool_calls"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("get_weather", '{"city": "Paris", "unit": "fahrenheit"}')
    ]
    assert "thinking" not in completed[0]
    assert completed[1]["thinking"].startswith("The user asks: “Why is the sky blue?”")
    assert "tool_calls" not in completed[1]
