"""ChatPanel driven from Python (traits and methods, no browser): what the form offers, quiet
validation in the user's words, attachments, copy as code, and streaming against a real
emulator on loopback (SSE needs sockets: ASGITransport buffers whole responses)."""

from __future__ import annotations

import asyncio
import base64
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest

import mediagen_nb
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle, FaultConfig, start_emulator
from mediagen_nb.types import RequestValidationError
from mediagen_nb.widgets._chat_options import (
    attachment_kinds,
    model_options,
    model_title,
    protocols_for,
)
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import STREAM_UPDATES_PER_S, ChatTurn

QUESTION = "Explain streaming in detail please, with a list"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40


pytestmark = pytest.mark.emulator(speed=4.0, seed=7)


@pytest.fixture
async def client(emulator: EmulatorHandle) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as c:
        yield c


@pytest.fixture
async def panel(client: AsyncClient) -> AsyncIterator[ChatPanel]:
    p = ChatPanel(session=Session(client=client))
    yield p
    p.stop()
    await p.join()
    p.close()


def offline() -> ChatPanel:
    return ChatPanel(session=Session(mode_text="test"))


async def _until(predicate: Any, limit: int = 2000) -> None:
    for _ in range(limit):
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


# --- what the form offers (no network) ------------------------------------------------------


def test_model_titles_are_readable_distinct_and_grouped() -> None:
    titles = [title for title, _name in model_options()]
    assert len(titles) == len(set(titles)) == len(mediagen_nb.catalog.TEXT_MODELS)
    assert model_title("claude-sonnet-4-6") == "Claude Sonnet 4.6"
    assert model_title("claude-opus-4-5-hc") == "Claude Opus 4.5 · premium pool"
    assert model_title("gpt-5.5-low") == "GPT-5.5 · budget"
    assert model_title("gemini-3.1-flash-lite-preview") == "Gemini 3.1 Flash-Lite (preview)"
    groups = offline().spec["models"]
    assert [g["label"] for g in groups] == ["GPT", "Claude", "Gemini"]
    first = groups[1]["options"][0]
    assert first == {
        "value": "claude-haiku-4-5",
        "label": "Claude Haiku 4.5",
        "title": "claude-haiku-4-5: standard",
    }


def test_capabilities_follow_the_spec() -> None:
    assert protocols_for("gemini-2.5-pro") == ("chat_completions",)
    assert protocols_for("gpt-5.5") == ("chat_completions", "messages")
    assert attachment_kinds("gpt-5.5", "chat_completions") == ("image",)
    assert attachment_kinds("gemini-2.5-pro", "chat_completions") == ("image", "video")
    assert attachment_kinds("gpt-5.5", "messages") == ()
    assert attachment_kinds("claude-opus-4-6", "messages") == ("image",)


def test_form_offers_only_valid_combinations() -> None:
    panel = offline()
    panel.set(model="claude-opus-4-6", protocol="messages")
    spec = panel.spec
    assert spec["kinds"] == ["image"]
    assert spec["stop"] is False  # stop is a chat-completions field
    assert [s["value"] for s in spec["sampling"]] == ["default", "temperature"]
    assert spec["thinking"] is True
    assert spec["fields"]["max_tokens"]["label"] == "Max reply length"
    assert spec["fields"]["max_tokens"]["api"] == "max_completion_tokens / max_tokens"

    panel.set(model="gpt-5.5")
    assert panel.spec["kinds"] == []
    assert "For images with GPT, use Chat Completions" in panel.spec["capability"]

    panel.set(model="gemini-3-flash-preview")
    assert panel.values["protocol"] == "chat_completions"  # coerced: messages can't serve it
    assert [p["value"] for p in panel.spec["protocols"] if p["disabled"]] == ["messages"]
    assert panel.spec["kinds"] == ["image", "video"]
    assert panel.spec["thinking"] is False

    panel.set(sampling="top_p", top_p=0.5)
    assert panel.settings().top_p == 0.5
    assert "top_p=0.5" in panel.code
    assert "temperature" not in panel.code


def test_fresh_panel_is_quiet_and_its_buttons_are_honest() -> None:
    panel = offline()
    assert panel.problems == {}
    assert panel.hint == "Type a message to send (Ctrl+Enter sends)."
    assert (panel.can_send, panel.can_stop, panel.can_retry) == (False, False, False)
    assert panel.notice == ""
    panel.handle_action({"action": "stop"})  # nothing streams: a no-op, never an error
    assert panel.errors == []
    panel.set(message="hello")
    assert panel.can_send
    assert panel.hint == ""


def test_validation_names_the_field_as_the_user_sees_it() -> None:
    panel = offline()
    panel.values = {**panel.values, "stop": "a\nb\nc\nd\ne", "message": "hello"}
    assert not panel.can_send
    assert panel.problems == {}  # not touched by the user yet: no error shown
    assert panel.hint.startswith("Stop sequences: ")
    panel.set(stop="a\nb\nc\nd\ne")
    assert panel.problems == {"stop": "Stop sequences: takes at most 4 sequences, got 5"}
    with pytest.raises(RequestValidationError, match="Stop sequences"):
        panel.send()
    assert panel.transcript == []
    panel.set(stop="a\nb")
    assert panel.problems == {}
    assert panel.can_send


def test_tools_json_in_either_shape_becomes_the_protocols_shape() -> None:
    panel = offline()
    panel.set(message="weather in Oslo?", tools="[{")
    assert panel.problems["tools"].startswith("Tools: not valid JSON (line 1, column 3")
    assert not panel.can_send
    openai_shape = (
        '[{"type": "function", "function": {"name": "get_weather", "description": "Weather",'
        ' "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]'
    )
    panel.set(tools=openai_shape, tool_choice="required")
    assert panel.problems == {}
    body = panel._body(panel.settings(), "hi")
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assert body["tool_choice"] == "required"
    panel.set(protocol="messages")
    body = panel._body(panel.settings(), "hi")
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]
    assert body["tool_choice"] == {"type": "any"}
    assert "tools=[" in panel.code
    assert 'tool_choice={"type": "any"}' in panel.code
    panel.set(tools='[{"name": "bad name!"}, {"name": "x"}, {"name": "x"}]')
    assert panel.problems["tools"] == "Tools: tool 1 needs a name of letters, digits, _ or - (1-64)"


def test_thinking_budget_on_messages_only() -> None:
    panel = offline()
    panel.set(message="think", protocol="messages", thinking_budget=500)
    assert panel.problems == {"thinking_budget": "Thinking budget: must be at least 1024"}
    panel.set(thinking_budget=2048)
    body = panel._body(panel.settings(), "think")
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] == 2048 + 1024  # the budget must stay below max_tokens
    assert 'thinking={"type": "enabled", "budget_tokens": 2048}' in panel.code
    panel.set(max_tokens=2000)
    assert panel.problems == {
        "thinking_budget": "Thinking budget: must be less than the max reply length (2000)"
    }
    panel.set(protocol="chat_completions")
    assert "thinking" not in panel._body(panel.settings(), "think")
    assert panel.problems == {}


def test_attachments_by_file_and_url_in_both_protocols() -> None:
    panel = offline()
    panel.set(message="what is this?", model="claude-opus-4-6")
    panel.attach_file("cat.png", "image/png", PNG)
    panel.attach_url("https://example.com/dog.jpg")
    assert [(a["label"], a["source"], a["url"]) for a in panel.attachments] == [
        ("cat.png", "file", ""),  # the bytes never go to the front end
        ("https://example.com/dog.jpg", "url", "https://example.com/dog.jpg"),
    ]
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    content = panel._body(panel.settings(), "q")["messages"][-1]["content"]
    assert content[1:] == [
        {"type": "image_url", "image_url": {"url": data_url}},
        {"type": "image_url", "image_url": {"url": "https://example.com/dog.jpg"}},
    ]
    panel.set(protocol="messages")
    content = panel._body(panel.settings(), "q")["messages"][-1]["content"]
    assert content[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": data_url.split(",")[1]},
    }
    assert content[2]["source"] == {"type": "url", "url": "https://example.com/dog.jpg"}
    assert 'b64("cat.png", "image/png")' in panel.code
    assert data_url.split(",")[1] not in panel.code
    panel.remove_attachment(panel.attachments[1]["key"])
    assert [a["label"] for a in panel.attachments] == ["cat.png"]


def test_bad_attachments_are_refused_with_a_readable_notice() -> None:
    panel = offline()
    panel.handle_action(
        {"action": "attach-file", "name": "x.bmp", "type": "image/bmp", "data": "AA=="}
    )
    panel.handle_action({"action": "attach-url", "url": "not a url"})
    big = base64.b64encode(b"\0" * (5 * 1024 * 1024 + 1)).decode()
    panel.handle_action(
        {"action": "attach-file", "name": "big.png", "type": "image/png", "data": big}
    )
    assert panel.errors == [
        "Attachments: x.bmp is not an image of type PNG, JPEG, GIF, WebP",
        "Attachments: 'not a url' is not an http(s) URL",
        "Attachments: big.png is 5.0 MB; at most 5 MB",
    ]
    assert panel.notice == panel.errors[-1]
    assert panel.attachments == []
    panel.handle_action({"action": "dismiss"})
    assert panel.notice == ""


def test_load_fills_the_form_from_a_recorded_request() -> None:
    panel = offline()
    panel.load(
        {
            "model": "claude-haiku-4-5",
            "max_tokens": 4096,
            "system": "be kind",
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "tools": [{"name": "lookup", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "tell me about tides"}],
        }
    )
    v = panel.values
    assert (v["model"], v["protocol"], v["system"], v["message"]) == (
        "claude-haiku-4-5", "messages", "be kind", "tell me about tides",
    )  # fmt: skip
    assert (v["sampling"], v["thinking_budget"]) == ("default", 2048)
    assert '"lookup"' in v["tools"]
    assert panel.can_send
    with pytest.raises(ValueError, match="Model: 'nope' is not in the catalog"):
        panel.load({"model": "nope", "messages": []})


# --- streaming against the emulator ---------------------------------------------------------


async def test_streamed_text_is_exact_and_comm_messages_are_batched(
    panel: ChatPanel, client: AsyncClient
) -> None:
    loop = asyncio.get_running_loop()
    sent: list[float] = []
    original = panel.send_state

    def counting(key: Any = None, **kwargs: Any) -> None:
        keys = {key} if isinstance(key, str) else set(key or ())
        if keys & {"live_seq", "turns"}:  # the transcript's (throttled) messages
            sent.append(loop.time())
        original(key, **kwargs)

    panel.send_state = counting
    panel.send(QUESTION)
    assert panel.busy
    assert (panel.can_stop, panel.can_send) == (True, False)
    assert panel.hint == "A reply is streaming: Stop it or wait."
    await panel.join()

    reply = await client.chat.completions.create(
        model=panel.values["model"], messages=[{"role": "user", "content": QUESTION}]
    )
    user, assistant = panel.transcript
    assert (user.role, user.text) == ("user", QUESTION)
    assert (assistant.state, assistant.text) == ("complete", reply.text)
    assert len(reply.text) > 100
    assert assistant.usage is not None
    assert assistant.usage["completion_tokens"] > 0
    state = panel.get_state()
    assert state["turns"][-1]["text"] == reply.text
    assert state["turns"][-1]["title"] == "Claude Sonnet 4.6"
    assert state["live_index"] == -1
    assert (panel.can_stop, panel.can_retry) == (False, True)
    # at most 20 messages per second: consecutive messages at least 1/20 s apart
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert len(sent) >= 3
    assert min(gaps) >= 1 / STREAM_UPDATES_PER_S - 1e-3
    assert len(sent) < len(reply.text.split()) / 2


async def test_stop_keeps_partial_text_recorded_as_incomplete(
    panel: ChatPanel, client: AsyncClient
) -> None:
    panel.send(QUESTION)
    await _until(lambda: len(panel.transcript[-1].text) > 10)
    panel.handle_action({"action": "stop"})
    await panel.join()
    reply = await client.chat.completions.create(
        model=panel.values["model"], messages=[{"role": "user", "content": QUESTION}]
    )
    turn = panel.transcript[-1]
    assert turn.state == "stopped"
    assert 10 < len(turn.text) < len(reply.text)
    assert reply.text.startswith(turn.text)
    assert panel.get_state()["turns"][-1]["text"] == turn.text
    assert panel.errors == []
    frame = mediagen_nb.history(kind="chat")
    row = frame[frame["task_id"] == turn.turn_id].iloc[0]
    assert (row["status"], row["text"]) == ("incomplete", turn.text)
    assert row["error"] == "stopped by the user"  # a Stop is not a service error
    assert not panel.busy
    assert not panel.can_send  # the message box is empty again
    assert panel.can_retry


async def test_multi_turn_sends_the_conversation(panel: ChatPanel) -> None:
    panel.send("first question")
    await panel.join()
    panel.set(protocol="messages", system="answer briefly")
    panel.handle_action({"action": "send"})  # empty draft: refused quietly, nothing sent
    assert len(panel.transcript) == 2
    panel.handle_action({"action": "send", "message": "second question"})  # Ctrl+Enter
    await panel.join()
    assert [t.role for t in panel.transcript] == ["user", "assistant", "user", "assistant"]
    assert all(t.state == "complete" for t in panel.transcript)
    last = panel.transcript[-1]
    assert last.protocol == "messages"
    assert last.usage is not None
    assert last.usage["output_tokens"] > 0
    frame = mediagen_nb.history(kind="chat")
    request = frame[frame["task_id"] == last.turn_id].iloc[0]["request"]
    assert request["system"] == "answer briefly"
    assert [m["content"] for m in request["messages"]] == [
        "first question",
        panel.transcript[1].text,
        "second question",
    ]
    panel.handle_action({"action": "clear"})
    assert panel.transcript == []
    assert not panel.can_retry


async def test_cut_stream_shows_error_and_retry_replaces_the_reply() -> None:
    handle = start_emulator(speed=8.0, faults=FaultConfig(stream_cut_rate=1.0, seed=1))
    try:
        async with AsyncClient(
            api_key=handle.api_key, base_url=handle.base_url, text_base_url=handle.text_base_url
        ) as client:
            panel = ChatPanel(session=Session(client=client))
            panel.send(QUESTION)
            await panel.join()
            turn = panel.transcript[-1]
            assert turn.state == "error"
            assert turn.error
            assert panel.can_retry
            panel.handle_action({"action": "retry"})
            await panel.join()
            assert [t.role for t in panel.transcript] == ["user", "assistant"]
            assert panel.transcript[-1].state == "error"
            assert panel.errors == []  # the failure is shown on the turn, not as an error box
            panel.close()
    finally:
        handle.stop()


def test_plain_text_fallback_shows_the_conversation() -> None:
    panel = ChatPanel(session=Session(mode_text="demo mode (built-in emulator)"))
    panel.transcript_view.add(ChatTurn(role="user", text="hi there"))
    bundle = panel._repr_mimebundle_()
    assert bundle is not None
    text = bundle[0]["text/plain"]
    assert "You: hi there" in text
    assert "demo mode" in text


async def test_many_tiny_updates_are_coalesced_and_the_last_is_exact() -> None:
    panel = offline()
    view = panel.transcript_view
    loop = asyncio.get_running_loop()
    index = view.add(ChatTurn(role="assistant", state="streaming"))
    text = ""
    start = loop.time()
    for i in range(300):
        text += f"w{i} "
        view.stream(text)
        if i % 10 == 0:
            await asyncio.sleep(0.01)
    view.finish(index, text=text, state="complete", usage={"completion_tokens": 300})
    await view.drain()
    elapsed = loop.time() - start
    assert view.updates <= elapsed * STREAM_UPDATES_PER_S + 2
    assert view.updates < 300 / 10
    state = panel.get_state()
    assert state["turns"][index]["text"] == text
    assert state["live_index"] == -1
    assert "usage: completion_tokens 300" in view.plain_text()
