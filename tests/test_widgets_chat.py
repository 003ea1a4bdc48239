"""ChatPanel driven from Python: capability hints, live validation, and streaming against a
real emulator on loopback (SSE needs sockets: ASGITransport buffers whole responses)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import mediagen_nb
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle, FaultConfig, start_emulator
from mediagen_nb.types import RequestValidationError
from mediagen_nb.widgets._chat_options import (
    ChatSettings,
    attachment_kinds,
    build_request,
    model_options,
    protocols_for,
)
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import STREAM_UPDATES_PER_S

QUESTION = "Explain streaming in detail please, with a list"


@pytest.fixture
def emulator() -> Iterator[EmulatorHandle]:
    handle = start_emulator(speed=4.0, seed=7)
    yield handle
    handle.stop()


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


def _visible(widget: Any) -> bool:
    return widget.layout.display != "none"


async def _until(predicate: Any, limit: int = 2000) -> None:
    for _ in range(limit):
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition not reached")


# --- capabilities (no network) --------------------------------------------------------------


def test_model_picker_is_grouped_by_vendor() -> None:
    vendors = [label.split(" · ")[0] for label, _name in model_options()]
    groups = [v for i, v in enumerate(vendors) if i == 0 or vendors[i - 1] != v]
    assert groups == ["GPT", "Claude", "Gemini"]
    assert len(vendors) == len(mediagen_nb.catalog.TEXT_MODELS)


def test_capabilities_follow_the_spec() -> None:
    assert protocols_for("gemini-2.5-pro") == ("chat-completions",)
    assert protocols_for("gpt-5.5") == ("chat-completions", "messages")
    assert attachment_kinds("gpt-5.5", "chat-completions") == ("image",)
    assert attachment_kinds("gemini-2.5-pro", "chat-completions") == ("image", "video")
    assert attachment_kinds("gpt-5.5", "messages") == ()
    assert attachment_kinds("claude-opus-4-6", "messages") == ("image",)


def test_panel_disables_invalid_combinations() -> None:
    panel = ChatPanel(session=Session(mode_text="test"))
    panel.model.value = "claude-opus-4-6"
    panel.protocol.value = "messages"
    assert not panel.protocol.disabled
    assert _visible(panel.image_urls)
    assert not _visible(panel.video_urls)
    assert not _visible(panel.stop_sequences)  # stop is a chat-completions field
    assert "top_p" not in panel.sampling.options

    panel.model.value = "gpt-5.5"
    assert not _visible(panel.attachments_box)
    assert "not supported for GPT" in panel.hint.value

    panel.model.value = "gemini-3-flash-preview"
    assert panel.protocol.value == "chat-completions"
    assert panel.protocol.disabled
    assert _visible(panel.image_urls)
    assert _visible(panel.video_urls)
    assert "Claude and GPT models only" in panel.hint.value

    panel.model.value = "gpt-5.4"
    assert not panel.protocol.disabled
    assert _visible(panel.image_urls)
    assert not _visible(panel.video_urls)
    assert "Gemini models only" in panel.hint.value


def test_temperature_or_top_p_one_at_a_time() -> None:
    panel = ChatPanel(session=Session(mode_text="test"))
    panel.sampling.value = "top_p"
    assert _visible(panel.top_p)
    assert not _visible(panel.temperature)
    panel.top_p.value = 0.5
    body = build_request(panel.settings(), [], "hi")
    assert body["top_p"] == 0.5
    assert "temperature" not in body
    panel.sampling.value = "temperature"
    body = build_request(panel.settings(), [], "hi")
    assert "top_p" not in body
    assert body["temperature"] == 1.0


def test_live_validation_names_the_field_and_blocks_send() -> None:
    panel = ChatPanel(session=Session(mode_text="test"))
    assert panel.send_button.disabled  # nothing typed yet
    panel.input.value = "hello"
    assert not panel.send_button.disabled
    panel.stop_sequences.value = "a\nb\nc\nd\ne"
    assert panel.send_button.disabled
    assert "at most 4" in panel.field_problems["stop"].value
    assert "stop:" in panel.send_button.tooltip
    with pytest.raises(RequestValidationError, match="stop"):
        panel.send()
    assert panel.transcript == []
    panel.stop_sequences.value = "a\nb"
    assert not panel.send_button.disabled
    panel.model.value = "gemini-2.5-pro"
    panel.video_urls.value = "not a url"
    problems = [str(p) for p in panel.problems()]
    assert any(p.startswith("video_urls[0]: 'not a url'") for p in problems), problems
    assert panel.field_problems["attachments"].value


def test_messages_body_shapes() -> None:
    settings = ChatSettings(
        model="claude-haiku-4-5",
        protocol="messages",
        system="be brief",
        image_urls=("https://example.com/a.png",),
    )
    body = build_request(settings, [("user", "q"), ("assistant", "a")], "next")
    assert body["system"] == "be brief"
    assert body["max_tokens"] == 1024
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert mediagen_nb.validate_request("/v1/messages", body) == []


# --- streaming against the emulator ---------------------------------------------------------


async def test_streamed_text_is_exact_and_comm_messages_are_batched(
    panel: ChatPanel, client: AsyncClient
) -> None:
    view = panel.transcript_view
    loop = asyncio.get_running_loop()
    sent: list[float] = []
    original = view.send_state

    def counting(*args: Any, **kwargs: Any) -> None:
        sent.append(loop.time())
        original(*args, **kwargs)

    view.send_state = counting
    panel.send(QUESTION)
    assert panel.busy
    assert panel.stop_button.disabled is False
    await panel.join()

    reply = await client.chat.completions.create(
        model=panel.model.value, messages=[{"role": "user", "content": QUESTION}]
    )
    user, assistant = panel.transcript
    assert (user.role, user.text) == ("user", QUESTION)
    assert assistant.state == "complete"
    assert assistant.done
    assert assistant.text == reply.text
    assert len(reply.text) > 100
    assert assistant.usage is not None
    assert assistant.usage["completion_tokens"] > 0
    # the front end's final state carries the same exact text
    state = view.get_state()
    assert state["turns"][-1]["text"] == reply.text
    assert state["turns"][-1]["state"] == "complete"
    assert state["live_index"] == -1
    # at most 20 messages per second: consecutive messages at least 1/20 s apart
    gaps = [b - a for a, b in itertools.pairwise(sent)]
    assert len(sent) >= 3
    assert min(gaps) >= 1 / STREAM_UPDATES_PER_S - 1e-3
    assert view.updates == len(sent)
    # the emulator sent far more deltas than the front end got messages
    assert len(sent) < len(reply.text.split()) / 2


async def test_stop_keeps_partial_text_recorded_as_incomplete(
    panel: ChatPanel, client: AsyncClient
) -> None:
    panel.send(QUESTION)
    await _until(lambda: len(panel.transcript[-1].text) > 10)
    panel.stop()
    await panel.join()
    reply = await client.chat.completions.create(
        model=panel.model.value, messages=[{"role": "user", "content": QUESTION}]
    )
    turn = panel.transcript[-1]
    assert turn.state == "stopped"
    assert turn.done
    assert 10 < len(turn.text) < len(reply.text)
    assert reply.text.startswith(turn.text)
    assert panel.transcript_view.get_state()["turns"][-1]["text"] == turn.text
    assert panel.errors == []
    frame = mediagen_nb.history(kind="chat")
    row = frame[frame["task_id"] == turn.turn_id].iloc[0]
    assert row["status"] == "incomplete"
    assert row["text"] == turn.text
    assert not panel.busy
    assert panel.send_button.disabled  # the input box is empty again


async def test_multi_turn_sends_the_conversation(panel: ChatPanel) -> None:
    panel.send("first question")
    await panel.join()
    panel.protocol.value = "messages"
    panel.system.value = "answer briefly"
    panel.send("second question")
    await panel.join()
    roles = [t.role for t in panel.transcript]
    assert roles == ["user", "assistant", "user", "assistant"]
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
            assert panel.retry_button.layout.display != "none"
            panel.retry()
            await panel.join()
            assert [t.role for t in panel.transcript] == ["user", "assistant"]
            assert panel.transcript[-1].state == "error"
            panel.close()
    finally:
        handle.stop()


def test_plain_text_fallback_shows_the_conversation() -> None:
    panel = ChatPanel(session=Session(mode_text="demo mode (built-in emulator)"))
    from mediagen_nb.widgets._transcript import ChatTurn

    panel.transcript_view.add(ChatTurn(role="user", text="hi there"))
    bundle = panel._repr_mimebundle_()
    assert bundle is not None
    assert "hi there" in bundle["text/plain"]
    assert "demo mode" in bundle["text/plain"]


async def test_many_tiny_updates_are_coalesced_and_the_last_is_exact() -> None:
    from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

    view = ChatTranscript()
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
    state = view.get_state()
    assert state["turns"][index]["text"] == text
    assert state["live_index"] == -1
    assert "usage: completion_tokens 300" in view.plain_text()
