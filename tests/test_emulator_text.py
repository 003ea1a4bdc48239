"""Text generation and the text gateway, including the official openai/anthropic clients.

Streaming runs against a real uvicorn server on 127.0.0.1 (httpx.ASGITransport buffers SSE).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anthropic
import httpx
import openai
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from mediagen_nb.emulator import _text_routes
from mediagen_nb.emulator._faults import FaultConfig, FaultInjector
from mediagen_nb.emulator._text_routes import STREAM_DELTA_S, text_routes
from mediagen_nb.emulator._textgen import (
    MEDIA_TOKENS,
    MESSAGE_OVERHEAD,
    chat_conversation,
    count_tokens,
    generate,
    messages_conversation,
    split_deltas,
    tokenize,
)

KEY = "test-key"
QUESTION = "How do volcanoes form and why do some erupt explosively?"


class _State:
    """The TextState the routes read (a real fault injector, a fixed clock)."""

    def __init__(self, speed: float = 1000.0, faults: FaultConfig | None = None) -> None:
        self.speed = speed
        self.faults = FaultInjector(faults or FaultConfig())
        self._n = 0

    def now(self) -> float:
        return 1_700_000_000.0

    def random_hex(self, nbytes: int) -> str:
        self._n += 1
        return f"{self._n:0{nbytes * 2}x}"


def _app(state: _State) -> Starlette:
    app = Starlette(routes=[Mount("/gateway", routes=text_routes())])
    app.state.emulator = state
    return app


@contextmanager
def _serve(state: _State) -> Iterator[str]:
    """Run the routes on a real loopback server; yield the text base URL."""
    config = uvicorn.Config(_app(state), host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/gateway"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def state() -> _State:
    return _State()


@pytest.fixture
def base(state: _State) -> Iterator[str]:
    with _serve(state) as url:
        yield url


def _chat(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5.4", "messages": [{"role": "user", "content": question}], **extra}


# -- text generation -------------------------------------------------------------------------


def test_tokenize_words_punctuation_and_cjk() -> None:
    assert tokenize("Hello, world! It's 3.5") == [
        "Hello",
        ",",
        "world",
        "!",
        "It",
        "'",
        "s",
        "3",
        ".",
        "5",
    ]
    assert tokenize("量子计算 ok") == ["量", "子", "计", "算", "ok"]
    assert count_tokens("  ") == 0


def test_answer_reacts_to_prompt_and_is_deterministic() -> None:
    conv = chat_conversation(_chat())
    first = generate("gpt-5.4", conv, {})
    assert first == generate("gpt-5.4", conv, {})
    assert "volcanoes" in first.text
    assert "gpt-5.4" in first.text
    assert first.finish == "end"
    assert first.completion_tokens == count_tokens(first.text)
    other = generate("gpt-5.4", chat_conversation(_chat("Explain photosynthesis in plants")), {})
    assert "photosynthesis" in other.text
    assert other.text != first.text


def test_seed_varies_wording_with_temperature() -> None:
    conv = chat_conversation(_chat())
    texts = {generate("gpt-5.4", conv, {"temperature": t / 10}).text for t in range(10)}
    assert len(texts) > 1


def test_max_tokens_truncates_to_a_prefix() -> None:
    conv = chat_conversation(_chat())
    full = generate("gpt-5.4", conv, {})
    cut = generate("gpt-5.4", conv, {}, max_tokens=7)
    assert cut.finish == "length"
    assert cut.completion_tokens == 7
    assert full.text.startswith(cut.text)
    roomy = generate("gpt-5.4", conv, {}, max_tokens=full.completion_tokens)
    assert roomy.finish == "end"
    assert roomy.text == full.text


def test_stop_sequence_cuts_before_first_occurrence() -> None:
    conv = chat_conversation(_chat())
    full = generate("gpt-5.4", conv, {}).text
    cut = generate("gpt-5.4", conv, {}, stop=["zzz-never", "volcanoes"])
    assert cut.finish == "stop"
    assert cut.stop_sequence == "volcanoes"
    assert cut.text == full[: full.index("volcanoes")]
    # max tokens still applies after the cut
    short = generate("gpt-5.4", conv, {}, stop=["volcanoes"], max_tokens=2)
    assert (short.finish, short.completion_tokens, short.stop_sequence) == ("length", 2, None)


def test_prompt_tokens_count_text_framing_and_media() -> None:
    body = {
        "model": "gpt-5.4",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                ],
            },
        ],
    }
    conv = chat_conversation(body)
    assert conv.system == "Be brief."
    assert conv.media == ("image",)
    expected = count_tokens("Be brief.") + count_tokens("What is in this picture?")
    assert conv.prompt_tokens == expected + 2 * MESSAGE_OVERHEAD + MEDIA_TOKENS
    assert "1 image part" in generate("gpt-5.4", conv, body).text


def test_messages_conversation_reads_system_blocks() -> None:
    conv = messages_conversation(
        {
            "system": [{"type": "text", "text": "You teach geology."}],
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
            ],
        }
    )
    assert conv.system == "You teach geology."
    assert conv.question == QUESTION
    text = generate("claude-opus-4-6", conv, {}).text
    assert "turn 2" in text
    assert "You teach geology." in text


def test_split_deltas_join_back_and_keep_token_counts() -> None:
    text = generate("gpt-5.4", chat_conversation(_chat()), {}).text
    deltas = split_deltas(text, 42)
    assert "".join(deltas) == text
    assert all(2 <= count_tokens(d) <= 4 for d in deltas[:-1])
    assert sum(count_tokens(d) for d in deltas) == count_tokens(text)
    assert split_deltas("") == []


def test_typical_answer_streams_in_one_to_three_seconds_at_speed_one() -> None:
    text = generate("gpt-5.4", chat_conversation(_chat()), {}).text
    assert 1.0 <= len(split_deltas(text, 7)) * STREAM_DELTA_S <= 3.0


# -- routes, non-streaming -------------------------------------------------------------------


async def _post(state: _State, path: str, body: Any) -> httpx.Response:
    transport = httpx.ASGITransport(app=_app(state))
    async with httpx.AsyncClient(transport=transport, base_url="http://t/gateway") as client:
        if isinstance(body, bytes):
            return await client.post(path, content=body)
        return await client.post(path, json=body)


async def test_chat_completion_object_has_exactly_the_spec_fields(state: _State) -> None:
    response = await _post(state, "/v1/chat/completions", _chat(max_completion_tokens=5))
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"id", "object", "created", "model", "choices", "usage"}
    assert data["object"] == "chat.completion"
    assert data["created"] == 1_700_000_000
    assert data["id"].startswith("chatcmpl-")
    (choice,) = data["choices"]
    assert choice["index"] == 0
    assert choice["message"]["role"] == "assistant"
    assert choice["finish_reason"] == "length"
    usage = data["usage"]
    assert usage["completion_tokens"] == 5 == count_tokens(choice["message"]["content"])
    assert usage["total_tokens"] == usage["prompt_tokens"] + 5


async def test_chat_legacy_max_tokens_is_honoured(state: _State) -> None:
    data = (await _post(state, "/v1/chat/completions", _chat(max_tokens=3))).json()
    assert data["usage"]["completion_tokens"] == 3
    assert data["choices"][0]["finish_reason"] == "length"


async def test_message_object_per_spec(state: _State) -> None:
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": QUESTION}],
    }
    data = (await _post(state, "/v1/messages", body)).json()
    assert data["type"] == "message"
    assert data["role"] == "assistant"
    assert data["model"] == "claude-sonnet-4-6"
    assert data["stop_reason"] == "end_turn"
    assert data["stop_sequence"] is None
    (block,) = data["content"]
    assert block["type"] == "text"
    assert data["usage"]["output_tokens"] == count_tokens(block["text"])
    assert data["usage"]["input_tokens"] == count_tokens(QUESTION) + MESSAGE_OVERHEAD


async def test_messages_stop_sequences_and_max_tokens(state: _State) -> None:
    base = {"model": "gpt-5.5", "messages": [{"role": "user", "content": QUESTION}]}
    stopped = (
        await _post(
            state, "/v1/messages", {**base, "max_tokens": 500, "stop_sequences": ["volcanoes"]}
        )
    ).json()
    assert stopped["stop_reason"] == "stop_sequence"
    assert stopped["stop_sequence"] == "volcanoes"
    assert "volcanoes" not in stopped["content"][0]["text"]
    limited = (await _post(state, "/v1/messages", {**base, "max_tokens": 4})).json()
    assert limited["stop_reason"] == "max_tokens"
    assert limited["usage"]["output_tokens"] == 4


@pytest.mark.parametrize(
    ("path", "body", "param", "message"),
    [
        (
            "/v1/chat/completions",
            _chat(temperature=3),
            "temperature",
            "temperature: must be between 0 and 2",
        ),
        ("/v1/chat/completions", {"messages": []}, "model", "model: is required"),
        (
            "/v1/chat/completions",
            _chat(max_tokens=0),
            "max_tokens",
            "max_tokens: must be an integer of at least 1",
        ),
        (
            "/v1/chat/completions",
            _chat(stop=["a", "b", "c", "d", "e"]),
            "stop",
            "stop: takes at most 4",
        ),
        (
            "/v1/messages",
            {
                "model": "gemini-2.5-pro",
                "max_tokens": 10,
                "messages": [{"role": "user", "content": "x"}],
            },
            "model",
            "model: the messages endpoint accepts Claude and GPT models only",
        ),
        (
            "/v1/messages",
            {"model": "claude-opus-4-6", "messages": [{"role": "user", "content": "x"}]},
            "max_tokens",
            "max_tokens: is required",
        ),
        (
            "/v1/messages",
            {"model": "claude-opus-4-6", "max_tokens": 5, "messages": [], "stop_sequences": "x"},
            "messages",
            "stop_sequences: must be an array of strings",
        ),
        ("/v1/messages", [1, 2], "(body)", "(body): must be a JSON object"),
    ],
)
async def test_invalid_bodies_get_400_with_field_and_rule(
    state: _State, path: str, body: Any, param: str, message: str
) -> None:
    response = await _post(state, path, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert message in error["message"]


async def test_malformed_json_gets_400(state: _State) -> None:
    response = await _post(state, "/v1/chat/completions", b"{not json")
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


# -- streaming over a real server ------------------------------------------------------------


def test_raw_chat_stream_shape(base: str) -> None:
    body = _chat(stream=True, stream_options={"include_usage": True})
    with httpx.stream("POST", base + "/v1/chat/completions", json=body, timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = [e for e in raw.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-2]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "stop"}
    assert chunks[-1]["choices"] == []
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks[:-1])
    assert chunks[-1]["usage"]["completion_tokens"] == count_tokens(text)
    assert all(c["usage"] is None for c in chunks[:-1])


def test_raw_messages_stream_is_anthropic_shaped(base: str) -> None:
    body = {
        "model": "claude-haiku-4-5",
        "max_tokens": 50,
        "stream": True,
        "messages": [{"role": "user", "content": QUESTION}],
    }
    with httpx.stream("POST", base + "/v1/messages", json=body, timeout=10) as response:
        raw = response.read().decode()
    blocks = [b for b in raw.split("\n\n") if b]
    names = []
    for block in blocks:
        event_line, data_line = block.split("\n")
        name = event_line.removeprefix("event: ")
        assert json.loads(data_line.removeprefix("data: "))["type"] == name
        names.append(name)
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert set(names[3:-3]) == {"content_block_delta"}
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]


def test_openai_sdk_streaming_matches_non_streaming(base: str) -> None:
    client = openai.OpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0)
    whole = client.chat.completions.create(
        model="gpt-5.4", messages=[{"role": "user", "content": QUESTION}]
    )
    text = whole.choices[0].message.content
    assert text
    assert "volcanoes" in text
    assert whole.usage is not None
    assert whole.usage.completion_tokens == count_tokens(text)
    stream = client.chat.completions.create(
        model="gpt-5.4",
        messages=[{"role": "user", "content": QUESTION}],
        stream=True,
        stream_options={"include_usage": True},
    )
    pieces, finish, usage = [], None, None
    for chunk in stream:
        if chunk.choices:
            pieces.append(chunk.choices[0].delta.content or "")
            finish = chunk.choices[0].finish_reason or finish
        if chunk.usage:
            usage = chunk.usage
    assert "".join(pieces) == text
    assert finish == "stop"
    assert usage is not None
    assert usage.total_tokens == whole.usage.total_tokens


def test_openai_sdk_stop_and_bad_request(base: str) -> None:
    client = openai.OpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0)
    result = client.chat.completions.create(
        model="gemini-2.5-pro", messages=[{"role": "user", "content": QUESTION}], stop=["volcanoes"]
    )
    assert result.choices[0].finish_reason == "stop"
    assert "volcanoes" not in (result.choices[0].message.content or "")
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="nope-1", messages=[{"role": "user", "content": "x"}])
    assert "model" in str(caught.value)


def test_anthropic_sdk_create_stream_helper_and_raw_events(base: str) -> None:
    client = anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0)
    kwargs: dict[str, Any] = {
        "model": "claude-opus-4-6",
        "max_tokens": 400,
        "messages": [{"role": "user", "content": QUESTION}],
    }
    message = client.messages.create(**kwargs)
    text = message.content[0].text  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn"
    with client.messages.stream(**kwargs) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed == text
    assert final.usage.output_tokens == message.usage.output_tokens == count_tokens(text)
    assert final.usage.input_tokens == message.usage.input_tokens
    assert final.stop_reason == "end_turn"
    kinds = [event.type for event in client.messages.create(**kwargs, stream=True)]
    assert kinds[0] == "message_start"
    assert kinds[-2:] == ["message_delta", "message_stop"]
    short = client.messages.create(**{**kwargs, "max_tokens": 3})
    assert short.stop_reason == "max_tokens"
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(**{**kwargs, "model": "gemini-2.5-pro"})


@pytest.mark.parametrize("speed", [1000.0])
def test_stream_pacing_scales_with_speed(speed: float, monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    monkeypatch.setattr(_text_routes, "_sleep", record)
    with _serve(_State(speed=speed)) as url:
        httpx.post(
            url + "/v1/chat/completions", json=_chat(stream=True), timeout=10
        ).raise_for_status()
    assert delays
    assert set(delays) == {STREAM_DELTA_S / speed}


def test_stream_cut_fault_ends_without_terminator() -> None:
    state = _State(faults=FaultConfig(stream_cut_rate=1.0, seed=3))
    with _serve(state) as url:
        chat = httpx.post(url + "/v1/chat/completions", json=_chat(stream=True), timeout=10).text
        body = {
            "model": "claude-opus-4-6",
            "max_tokens": 400,
            "stream": True,
            "messages": [{"role": "user", "content": QUESTION}],
        }
        msgs = httpx.post(url + "/v1/messages", json=body, timeout=10).text
    assert "[DONE]" not in chat
    assert '"finish_reason":"stop"' not in chat
    assert chat.count("data: ") > 2
    assert "content_block_delta" in msgs
    assert "message_stop" not in msgs
    assert "message_delta" not in msgs
    assert state.faults.counts["stream_cut"] == 2
