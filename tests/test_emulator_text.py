"""The text gateway routes, including the official openai/anthropic clients.

Streaming runs against a real uvicorn server on 127.0.0.1 (httpx2.ASGITransport buffers SSE).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anthropic
import httpx2
import openai
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from mediagen_nb.emulator import _text_routes
from mediagen_nb.emulator._app import create_app
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._state import EmulatorState
from mediagen_nb.emulator._text_routes import STREAM_DELTA_S, text_routes
from mediagen_nb.emulator._textgen import (
    MESSAGE_OVERHEAD,
    count_tokens,
)
from tests._support import KEY

AUTH = {"Authorization": f"Bearer {KEY}"}
QUESTION = "How do volcanoes form and why do some erupt explosively?"


NOW = 1_700_000_000.0


def _app(speed: float = 1000.0, faults: FaultConfig | None = None) -> Starlette:
    """The whole emulator app (text routes mounted under /gateway)."""
    return create_app(api_key=KEY, speed=speed, faults=faults, clock=lambda: NOW, seed=7)


@contextmanager
def _serve(app: Starlette) -> Iterator[str]:
    """Run the app on a real loopback server; yield the text base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
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
def app() -> Starlette:
    return _app()


@pytest.fixture
def base(app: Starlette) -> Iterator[str]:
    with _serve(app) as url:
        yield url


def _chat(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5.4", "messages": [{"role": "user", "content": question}], **extra}


# -- routes, non-streaming -------------------------------------------------------------------


async def _post(app: Starlette, path: str, body: Any) -> httpx2.Response:
    transport = httpx2.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {KEY}"}
    async with httpx2.AsyncClient(
        transport=transport, base_url="http://t/gateway", headers=headers
    ) as client:
        if isinstance(body, bytes):
            json_type = {"content-type": "application/json"}
            return await client.post(path, content=body, headers=json_type)
        return await client.post(path, json=body)


async def test_chat_completion_object_has_exactly_the_spec_fields(app: Starlette) -> None:
    response = await _post(app, "/v1/chat/completions", _chat(max_completion_tokens=5))
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"id", "object", "created", "model", "choices", "usage"}
    assert data["object"] == "chat.completion"
    assert data["created"] == int(NOW)
    assert data["id"].startswith("chatcmpl-")
    (choice,) = data["choices"]
    assert choice["index"] == 0
    assert choice["message"]["role"] == "assistant"
    assert choice["finish_reason"] == "length"
    usage = data["usage"]
    assert usage["completion_tokens"] == 5 == count_tokens(choice["message"]["content"])
    assert usage["total_tokens"] == usage["prompt_tokens"] + 5


async def test_chat_legacy_max_tokens_is_honoured(app: Starlette) -> None:
    data = (await _post(app, "/v1/chat/completions", _chat(max_tokens=3))).json()
    assert data["usage"]["completion_tokens"] == 3
    assert data["choices"][0]["finish_reason"] == "length"


async def test_message_object_per_spec(app: Starlette) -> None:
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": QUESTION}],
    }
    data = (await _post(app, "/v1/messages", body)).json()
    assert data["type"] == "message"
    assert data["role"] == "assistant"
    assert data["model"] == "claude-sonnet-4-6"
    assert data["stop_reason"] == "end_turn"
    assert data["stop_sequence"] is None
    (block,) = data["content"]
    assert block["type"] == "text"
    assert data["usage"]["output_tokens"] == count_tokens(block["text"])
    assert data["usage"]["input_tokens"] == count_tokens(QUESTION) + MESSAGE_OVERHEAD


async def test_messages_stop_sequences_and_max_tokens(app: Starlette) -> None:
    base = {"model": "gpt-5.5", "messages": [{"role": "user", "content": QUESTION}]}
    stopped = (
        await _post(
            app, "/v1/messages", {**base, "max_tokens": 500, "stop_sequences": ["volcanoes"]}
        )
    ).json()
    assert stopped["stop_reason"] == "stop_sequence"
    assert stopped["stop_sequence"] == "volcanoes"
    assert "volcanoes" not in stopped["content"][0]["text"]
    limited = (await _post(app, "/v1/messages", {**base, "max_tokens": 4})).json()
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
            "max_tokens: must be at least 1",
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
            "stop_sequences",
            "stop_sequences: must be a list (JSON array)",
        ),
        ("/v1/messages", [1, 2], "(body)", "(body): must be a JSON object"),
    ],
)
async def test_invalid_bodies_get_400_with_field_and_rule(
    app: Starlette, path: str, body: Any, param: str, message: str
) -> None:
    response = await _post(app, path, body)
    assert response.status_code == 400
    data = response.json()
    error = data["error"]
    assert error["type"] == "invalid_request_error"
    assert message in error["message"]
    if path == "/v1/messages":  # Anthropic's envelope: a top-level type and id, no param
        assert data == {
            "type": "error",
            "error": {"type": error["type"], "message": error["message"]},
            "request_id": response.headers["request-id"],
        }
    else:  # OpenAI's envelope
        assert error == {
            "message": error["message"],
            "type": error["type"],
            "param": param,
            "code": None,
        }


async def test_malformed_json_gets_400_also_without_the_middleware() -> None:
    bare = Starlette(routes=[Mount("/gateway", routes=text_routes())])
    bare.state.emulator = EmulatorState(api_key=KEY)
    for app in (bare, _app()):
        response = await _post(app, "/v1/chat/completions", b"{not json")
        assert response.status_code == 400
        assert response.json()["error"]["type"] == "invalid_request_error"
    ok = await _post(bare, "/v1/chat/completions", _chat())
    assert ok.json()["object"] == "chat.completion"


# -- streaming over a real server ------------------------------------------------------------


def test_raw_chat_stream_shape(base: str) -> None:
    body = _chat(stream=True, stream_options={"include_usage": True})
    with httpx2.stream(
        "POST", base + "/v1/chat/completions", json=body, headers=AUTH, timeout=10
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = [e for e in raw.split("\n\n") if e]
    assert all(e.startswith("data: ") for e in events)
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-2]["choices"][0] == {
        "index": 0,
        "delta": {},
        "logprobs": None,
        "finish_reason": "stop",
    }
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
    with httpx2.stream(
        "POST", base + "/v1/messages", json=body, headers=AUTH, timeout=10
    ) as response:
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
    with openai.OpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as client:
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
    with openai.OpenAI(base_url=base + "/v1", api_key=KEY, max_retries=0) as client:
        result = client.chat.completions.create(
            model="gemini-2.5-pro",
            messages=[{"role": "user", "content": QUESTION}],
            stop=["volcanoes"],
        )
        assert result.choices[0].finish_reason == "stop"
        assert "volcanoes" not in (result.choices[0].message.content or "")
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(
                model="nope-1", messages=[{"role": "user", "content": "x"}]
            )
        assert "model" in str(caught.value)


def test_anthropic_sdk_create_stream_helper_and_raw_events(base: str) -> None:
    with anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0) as client:
        kwargs: dict[str, Any] = {
            "model": "claude-opus-4-6",
            "max_tokens": 400,
            "messages": [{"role": "user", "content": QUESTION}],
        }
        message = client.messages.create(**kwargs)
        block = message.content[0]
        assert block.type == "text"
        text = block.text
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
    with _serve(_app(speed=speed)) as url:
        httpx2.post(
            url + "/v1/chat/completions", json=_chat(stream=True), headers=AUTH, timeout=10
        ).raise_for_status()
    assert delays
    assert set(delays) == {STREAM_DELTA_S / speed}


def test_stream_cut_fault_ends_without_terminator() -> None:
    app = _app(faults=FaultConfig(stream_cut_rate=1.0, seed=3))
    with _serve(app) as url:
        chat = httpx2.post(
            url + "/v1/chat/completions", json=_chat(stream=True), headers=AUTH, timeout=10
        ).text
        body = {
            "model": "claude-opus-4-6",
            "max_tokens": 400,
            "stream": True,
            "messages": [{"role": "user", "content": QUESTION}],
        }
        msgs = httpx2.post(url + "/v1/messages", json=body, headers=AUTH, timeout=10).text
    assert "[DONE]" not in chat
    assert '"finish_reason":"stop"' not in chat
    assert chat.count("data: ") > 2
    assert "content_block_delta" in msgs
    assert "message_stop" not in msgs
    assert "message_delta" not in msgs
    assert app.state.emulator.faults.counts["stream_cut"] == 2


def test_official_clients_authenticate_and_are_refused_with_a_wrong_key(base: str) -> None:
    # the anthropic SDK sends x-api-key, the openai SDK a Bearer token: both are accepted
    hi: Any = [{"role": "user", "content": "hi"}]
    with anthropic.Anthropic(base_url=base, api_key=KEY, max_retries=0) as good:
        reply = good.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=hi)
    assert reply.content[0].type == "text"
    with (
        anthropic.Anthropic(base_url=base, api_key="wrong", max_retries=0) as bad,
        pytest.raises(anthropic.AuthenticationError),
    ):
        bad.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=hi)
    with (
        openai.OpenAI(base_url=base + "/v1", api_key="wrong", max_retries=0) as wrong,
        pytest.raises(openai.AuthenticationError),
    ):
        wrong.chat.completions.create(model="gpt-5.4", messages=hi)
