"""ChatPanel tool loops and thinking, driven from Python against recorded protocol streams
(the same bytes the official SDKs are tested with), and the emulator's human text pace."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

import mediagen_nb
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import _text_routes, start_emulator
from mediagen_nb.emulator._text_routes import STREAM_DELTA_S
from mediagen_nb.emulator._textgen import count_tokens
from mediagen_nb.types import RequestValidationError
from mediagen_nb.widgets._chat_options import TOOLS_EXAMPLE
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import ChatTurn, ToolCall
from tests._chat_recordings import CHAT_TOOL_CALLS, MESSAGES_THINKING_TOOL_USE, named, sse
from tests._snippets import run_snippet, unfinished

CHAT_ANSWER = sse(
    {
        "id": "chatcmpl-2",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-5.4",
        "choices": [
            {"index": 0, "delta": {"content": "It is 18 °C in Paris."}, "finish_reason": None}
        ],
    },
    {
        "id": "chatcmpl-2",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-5.4",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    },
)
MESSAGES_ANSWER = named(
    {
        "type": "message_start",
        "message": {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 9, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Sunny."}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {"type": "message_stop"},
)


class Replayer:
    """A transport answering each chat POST with the next recorded body; keeps the requests."""

    def __init__(self, *bodies: bytes) -> None:
        self.bodies = list(bodies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        return httpx2.Response(
            200, content=self.bodies.pop(0), headers={"content-type": "text/event-stream"}
        )


@pytest.fixture
async def replay(request: pytest.FixtureRequest) -> AsyncIterator[tuple[ChatPanel, Replayer]]:
    replayer = Replayer(*request.param)
    async with AsyncClient(
        api_key="k",
        base_url="http://service.test/api",
        text_base_url="http://service.test/gateway",
        transport=httpx2.MockTransport(replayer),
    ) as client:
        panel = ChatPanel(session=Session(client=client))
        yield panel, replayer
        await panel.join()
        panel.close()


@pytest.mark.parametrize("replay", [(CHAT_TOOL_CALLS, CHAT_ANSWER)], indirect=True)
async def test_chat_completions_tool_loop(replay: tuple[ChatPanel, Replayer]) -> None:
    panel, replayer = replay
    panel.set(model="gpt-5.4", tools=TOOLS_EXAMPLE)
    panel.send("weather and time in Paris?")
    await panel.join()
    turn = panel.transcript[-1]
    assert [(c.id, c.name, c.input) for c in turn.tool_calls] == [
        ("call_weather1", "get_weather", {"city": "Paris", "unit": "celsius"}),
        ("call_time2", "get_time", {"zone": "Europe/Paris"}),
    ]
    synced = panel.turns[-1]
    assert synced["waiting"] is True
    assert synced["tool_calls"][0]["arguments"] == '{\n  "city": "Paris",\n  "unit": "celsius"\n}'
    assert (panel.can_send, panel.hint) == (False, "Type the tool's result above to continue.")
    with pytest.raises(RequestValidationError, match="answer the tool call first"):
        panel.send("never mind")
    assert len(replayer.requests) == 1

    panel.handle_action({"action": "tool-results", "results": {"call_weather1": "18 C"}})
    assert panel.notice == "Tool result: type a result for get_time"
    panel.handle_action(
        {"action": "tool-results", "results": {"call_weather1": "18 C", "call_time2": "14:05"}}
    )
    await panel.join()
    assert panel.transcript[-1].text == "It is 18 °C in Paris."
    messages = replayer.requests[1]["messages"]
    assert messages[0] == {"role": "user", "content": "weather and time in Paris?"}
    weather = {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "celsius"}'}
    clock = {"name": "get_time", "arguments": '{"zone": "Europe/Paris"}'}
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_weather1", "type": "function", "function": weather},
            {"id": "call_time2", "type": "function", "function": clock},
        ],
    }
    assert messages[2:] == [
        {"role": "tool", "tool_call_id": "call_weather1", "content": "18 C"},
        {"role": "tool", "tool_call_id": "call_time2", "content": "14:05"},
    ]
    assert replayer.requests[1]["tools"][0]["function"]["name"] == "get_weather"
    assert [c["result"] for c in panel.turns[1]["tool_calls"]] == ["18 C", "14:05"]
    assert panel.values["message"] == "never mind"  # the refused draft is kept
    assert (panel.can_send, panel.hint) == (True, "")  # the loop is closed: Send works again


@pytest.mark.parametrize("replay", [(MESSAGES_THINKING_TOOL_USE, MESSAGES_ANSWER)], indirect=True)
async def test_messages_thinking_and_tool_use(replay: tuple[ChatPanel, Replayer]) -> None:
    panel, replayer = replay
    panel.set(protocol="messages", thinking_budget=2048, tools=TOOLS_EXAMPLE)
    panel.send("weather in Paris?")
    await panel.join()
    first = replayer.requests[0]
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["tools"][0]["input_schema"]["required"] == ["city"]
    turn = panel.transcript[-1]
    assert turn.thinking == "The user wants the weather in Paris; I should call the tool."
    assert turn.text == "Let me check the weather."
    assert panel.turns[-1]["thinking"] == turn.thinking
    assert panel.turns[-1]["tool_calls"][0]["name"] == "get_weather"
    panel.submit_tool_results({"toolu_rec1": "sunny, 21 C"})
    await panel.join()
    messages = replayer.requests[1]["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": turn.thinking,
             "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
            {"type": "text", "text": "Let me check the weather."},
            {"type": "tool_use", "id": "toolu_rec1", "name": "get_weather",
             "input": {"city": "Paris", "days": [1, 2]}},
        ],
    }  # fmt: skip
    assert messages[2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_rec1", "content": "sunny, 21 C"}],
    }
    assert panel.transcript[-1].text == "Sunny."
    assert panel.transcript[-1].usage == {"input_tokens": 9, "output_tokens": 3}


def test_emulator_text_rate_paces_tokens_in_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []

    async def record(seconds: float) -> None:
        delays.append(seconds)

    monkeypatch.setattr(_text_routes, "_sleep", record)
    body = {"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with start_emulator(speed=1000.0, seed=2, text_rate=400.0) as handle:
        auth = {"Authorization": f"Bearer {handle.api_key}"}
        url = handle.text_base_url + "/v1/chat/completions"
        events = httpx2.post(url, json=body, headers=auth, timeout=10).text
        pieces = [
            json.loads(line[6:])["choices"][0]["delta"].get("content", "")
            for line in events.splitlines()
            if line.startswith("data: {") and '"content"' in line
        ][1:]  # the first chunk carries the role, sent without a wait
        assert delays == pytest.approx([count_tokens(p) / 400.0 for p in pieces])
        assert len(delays) > 5
        with pytest.raises(ValueError, match="text_rate must be a positive number"):
            handle.text_rate = 0
        handle.text_rate = None
        delays.clear()
        httpx2.post(url, json=body, headers=auth, timeout=10).raise_for_status()
        assert set(delays) == {STREAM_DELTA_S / 1000.0}


@pytest.mark.parametrize("protocol", ["chat_completions", "messages"])
async def test_tool_loop_against_the_emulator(protocol: str) -> None:
    with start_emulator(speed=1000.0, seed=3) as handle:
        async with AsyncClient(
            api_key=handle.api_key, base_url=handle.base_url, text_base_url=handle.text_base_url
        ) as client:
            panel = ChatPanel(session=Session(client=client))
            budget = 2048 if protocol == "messages" else 0
            panel.set(protocol=protocol, tools=TOOLS_EXAMPLE, thinking_budget=budget)
            panel.send("What's the weather in Paris? Use get_weather.")
            await panel.join()
            asked = panel.transcript[-1]
            assert [(c.name, c.input) for c in asked.tool_calls] == [
                ("get_weather", {"city": "Paris"})
            ]
            assert bool(asked.thinking) is (protocol == "messages")
            panel.submit_tool_results({asked.tool_calls[0].id: "sunny, 21 C"})
            await panel.join()
            answer = panel.transcript[-1]
            assert answer.state == "complete"
            assert "sunny, 21 C" in answer.text  # the emulator answers from the tool result
            assert [t.role for t in panel.transcript] == ["user", "assistant", "assistant"]
            assert panel.errors == []
            panel.close()


TWO_TOOLS = json.dumps(
    [
        *json.loads(TOOLS_EXAMPLE),
        {
            "name": "what_to_wear",
            "description": "Suggest clothes for a temperature in Celsius",
            "parameters": {
                "type": "object",
                "properties": {"temperature_c": {"type": "number"}},
                "required": ["temperature_c"],
            },
        },
    ]
)


@pytest.mark.parametrize("protocol", ["chat_completions", "messages"])
async def test_each_step_of_a_two_tool_loop_is_its_own_card_in_order(protocol: str) -> None:
    with start_emulator(speed=1000.0, seed=3) as handle:
        async with AsyncClient(
            api_key=handle.api_key, base_url=handle.base_url, text_base_url=handle.text_base_url
        ) as client:
            panel = ChatPanel(session=Session(client=client))
            panel.set(protocol=protocol, tools=TWO_TOOLS)
            panel.send("What is the weather in Paris, and what should I wear?")
            await panel.join()
            results = {"get_weather": '{"temperature_c": 18, "sky": "sunny"}'}
            results["what_to_wear"] = "a light jacket"
            for _ in results:
                (call,) = panel.transcript[-1].tool_calls
                panel.submit_tool_results({call.id: results[call.name]})
                await panel.join()
            steps = [
                [(c.name, c.input, c.result) for c in turn.tool_calls] for turn in panel.transcript
            ]
            assert steps == [
                [],
                [("get_weather", {"city": "Paris"}, results["get_weather"])],
                [("what_to_wear", {"temperature_c": 18}, "a light jacket")],
                [],
            ]
            assert "a light jacket" in panel.transcript[-1].text
            assert panel.transcript[-1].state == "complete"
            assert panel.errors == []
            panel.close()


@pytest.mark.parametrize("protocol", ["chat_completions", "messages"])
async def test_copy_as_code_runs_and_sends_what_the_panel_sends(
    protocol: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000")
    (tmp_path / "cat.png").write_bytes(png)
    monkeypatch.chdir(tmp_path)
    panel = ChatPanel(session=Session(mode_text="test"))
    budget = 2048 if protocol == "messages" else 0
    panel.set(protocol=protocol, tools=TOOLS_EXAMPLE, thinking_budget=budget)
    panel.set(model="claude-opus-4-6", message="Weather in Paris? Use get_weather.")
    panel.attach_file("cat.png", "image/png", png)
    expected = panel._body(panel.settings(), "Weather in Paris? Use get_weather.")
    with start_emulator(speed=1000.0, api_key="code-key") as handle:
        monkeypatch.setenv("MEDIAGEN_API_KEY", "code-key")
        monkeypatch.setenv("MEDIAGEN_BASE_URL", handle.base_url)
        monkeypatch.setenv("MEDIAGEN_TEXT_BASE_URL", handle.text_base_url)
        reply, client = await run_snippet(panel.code, "reply, client")
        await client.aclose()
    assert unfinished(panel.code) == []  # every comment is a whole sentence
    calls = reply.tool_calls if protocol == "chat_completions" else reply.tool_uses
    assert [c.name for c in calls] == ["get_weather"]
    frame = mediagen_nb.history(kind="chat")
    assert frame.iloc[-1]["request"] == {**expected, "stream": True}


async def test_a_tool_call_shows_as_a_card_while_the_reply_still_streams() -> None:
    panel = ChatPanel(session=Session(mode_text="test"))
    view = panel.transcript_view
    index = view.add(ChatTurn(role="assistant", state="streaming", model="gpt-5.4"))
    view.stream("Let me look.", "")
    view.flush()
    assert panel.turns[index]["tool_calls"] == []
    call = ToolCall("call_1", "get_weather", '{"city": "Oslo"}')
    view.stream("Let me look.", "", (call,))
    view.flush()
    live = panel.turns[index]
    assert [c["name"] for c in live["tool_calls"]] == ["get_weather"]
    assert live["text"] == ""  # the text itself travels in live_text
    assert panel.live_text == "Let me look."
    assert live["waiting"] is False  # no result box until the reply is complete
    panel.close()
