"""Budgets that hold under a class that pushes: concurrency, errors, streams, refusals.

Each test states a property of the gateway (issue 31, rows 1, 2, 3, 4, 6 and 15) and
drives it through a real gateway in front of the emulator (or a broken upstream).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb.classroom import ClassroomHandle, Limits, Rules, Upstream, start_classroom
from mediagen_nb.classroom._forward import UsageMeter
from mediagen_nb.client._config import Secret
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import MARKER_KEY

MESSAGES = [{"role": "user", "content": "Tell me a short story about a fox"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "details": {"type": "string"}},
            "required": ["city", "details"],
        },
    },
}


def auth(code: str) -> dict[str, str]:
    return {"authorization": f"Bearer {code}"}


async def create(http: httpx2.AsyncClient, room: ClassroomHandle, code: str) -> httpx2.Response:
    return await http.post(
        room.base_url + "/v1/banana/images",
        json={"model": "nano-banana", "prompt": "a lighthouse"},
        headers=auth(code),
    )


def accepted(response: httpx2.Response) -> bool:
    return response.status_code == 200 and response.json()["status"] != "failed"


async def test_concurrent_creates_never_pass_the_image_caps(
    classroom: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    """Row 1: 50 creates at once from three students, 3 images each and 3 for the class:
    never more than 3 accepted, and never more than 3 reach the service."""
    classroom.set_rules(Rules(limits=Limits(images=3), class_limits=Limits(images=3)))
    codes = list(classroom.codes.values())
    before = marker_emulator.state.counters["tasks_created"]
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(
            *(create(http, classroom, codes[n % len(codes)]) for n in range(50))
        )
    assert [a.status_code for a in answers] == [200] * 50
    assert sum(accepted(a) for a in answers) == 3
    assert marker_emulator.state.counters["tasks_created"] - before == 3
    assert sum(row["images"] for row in classroom.usage()) == 3


async def test_per_student_image_cap_holds_under_concurrency(classroom: ClassroomHandle) -> None:
    """Row 1, per student: 30 creates at once from one student allowed 2 images."""
    classroom.set_rules(Rules(limits=Limits(images=2)))
    code = next(iter(classroom.codes.values()))
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(*(create(http, classroom, code) for _ in range(30)))
    assert sum(accepted(a) for a in answers) == 2


async def test_requests_failing_unexpectedly_release_their_slot(
    classroom: ClassroomHandle,
) -> None:
    """Row 2: creates that fail in a way nobody planned for (a header the upstream client
    cannot encode: 500) give back their slot; the class-wide ``concurrent=2`` still lets
    two creates through afterwards."""
    classroom.set_rules(Rules(class_limits=Limits(concurrent=2)))
    code = next(iter(classroom.codes.values()))
    for _ in range(4):  # the server closes a connection after a 500: one client each
        async with httpx2.AsyncClient(timeout=60) as http:
            broken = await http.post(
                classroom.base_url + "/v1/banana/images",
                json={"model": "nano-banana", "prompt": "x"},
                headers=[(b"authorization", f"Bearer {code}".encode()), (b"accept", b"\xe9")],
            )
        assert not accepted(broken)
    async with httpx2.AsyncClient(timeout=60) as http:
        both = await asyncio.gather(create(http, classroom, code), create(http, classroom, code))
    assert [accepted(a) for a in both] == [True, True]
    assert classroom.state.ledger.held() == []


async def test_concurrent_chats_stay_within_one_reply_of_the_budget(
    classroom: ClassroomHandle,
) -> None:
    """Row 3: 40 chats at once on a 10-token budget: what is charged never passes the limit
    by more than one reply."""
    classroom.set_rules(Rules(limits=Limits(chat_tokens=10)))
    code = next(iter(classroom.codes.values()))
    body = {"model": "gpt-5.4", "messages": MESSAGES, "max_tokens": 60}
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(
            *(
                http.post(
                    classroom.text_base_url + "/v1/chat/completions", json=body, headers=auth(code)
                )
                for _ in range(40)
            )
        )
    served = [a for a in answers if a.status_code == 200]
    assert len(served) >= 1
    assert {a.status_code for a in answers} <= {200, 403}
    replies = [e["tokens"] for e in classroom.state.ledger.events() if e["action"] == "chat_end"]
    assert len(replies) == len(served)
    used = classroom.usage()[0]["chat_tokens"]
    assert used == sum(replies)
    assert used <= 10 + max(replies)
    assert classroom.state.ledger.held() == []


async def test_streamed_tool_calls_are_charged_until_the_budget_is_spent(
    classroom: ClassroomHandle,
) -> None:
    """Row 4: OpenAI-style streamed tool calls without ``include_usage`` count their prompt
    and their arguments: on a 50-token budget the student is refused once it is spent."""
    classroom.set_rules(Rules(limits=Limits(chat_tokens=50)))
    code = next(iter(classroom.codes.values()))
    body = {
        "model": "gpt-5.4",
        "stream": True,
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
        "tools": [WEATHER_TOOL],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
    }
    statuses: list[int] = []
    arguments = ""
    async with httpx2.AsyncClient(timeout=60) as http:
        for _ in range(20):
            async with http.stream(
                "POST",
                classroom.text_base_url + "/v1/chat/completions",
                json=body,
                headers=auth(code),
            ) as response:
                raw = (await response.aread()).decode()
            statuses.append(response.status_code)
            if response.status_code == 200 and not arguments:
                arguments = _streamed_arguments(raw)
    assert arguments  # the stream really carried a tool call
    served = statuses.count(200)
    assert statuses == [200] * served + [403] * (20 - served)
    assert 1 <= served < 20
    used = classroom.usage()[0]["chat_tokens"]
    assert used >= 50
    assert used >= served * len(arguments) // 4


def _streamed_arguments(sse: str) -> str:
    found = ""
    for line in sse.splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices", []):
                for call in (choice.get("delta") or {}).get("tool_calls") or []:
                    found += (call.get("function") or {}).get("arguments") or ""
    return found


STARTED = {"input_tokens": 25, "output_tokens": 1}
"""The usage a messages stream's ``message_start`` carries (output: a placeholder 1)."""


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def test_a_cut_messages_stream_counts_what_it_generated() -> None:
    """Row 4, messages protocol: a stream cut after a long tool input (the final
    ``output_tokens`` never came) counts the input it generated, not the placeholder 1."""
    meter = UsageMeter(prompt=30)
    arguments = json.dumps({"city": "Paris", "details": "x" * 400})
    meter.feed(
        _sse(
            {"type": "message_start", "message": {"usage": STARTED}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": arguments},
            },
        )
    )
    assert meter.tokens(complete=False) >= 25 + len(arguments) // 4
    meter.feed(_sse({"type": "message_delta", "usage": {"output_tokens": 120}}))
    assert meter.tokens(complete=True) == 25 + 120


def test_an_openai_stream_without_usage_counts_prompt_and_tool_arguments() -> None:
    meter = UsageMeter(prompt=40)
    meter.feed(
        _sse(
            {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "function": {"arguments": "a" * 200, "name": "f"}}
                            ]
                        },
                    }
                ]
            },
        )
    )
    assert meter.tokens(complete=True) == 40 + (200 + 1 + 3) // 4


def _stored_bytes(folder: Path) -> int:
    """Bytes of text the ledger holds in its tasks and events."""
    with contextlib.closing(sqlite3.connect(folder / "classroom.sqlite3")) as conn, conn:
        tasks = conn.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM tasks").fetchone()[0]
        events = conn.execute(
            "SELECT COALESCE(SUM(LENGTH(data) + LENGTH(key)), 0) FROM events"
        ).fetchone()[0]
    return int(tasks) + int(events)


async def test_refused_creates_keep_only_a_bounded_record(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    """Row 6: 40 refused creates of 500 KB each (a huge prompt, or a huge model name) add
    less than 4 KB each to the ledger and to memory."""
    from tests._classroom_helpers import upstream_of

    folder = tmp_path / "class"
    with start_classroom(1, upstream=upstream_of(marker_emulator), folder=folder) as room:
        room.set_rules(Rules(models=frozenset({"nano-banana"}), limits=Limits(images=0)))
        code = next(iter(room.codes.values()))
        before = _stored_bytes(folder)
        huge = "a fox " * 85_000
        async with httpx2.AsyncClient(timeout=60) as http:
            for n in range(40):
                body = (
                    {"model": "nano-banana", "prompt": huge}
                    if n % 2
                    else {"model": huge, "prompt": "small"}
                )
                answer = await http.post(
                    room.base_url + "/v1/banana/images", json=body, headers=auth(code)
                )
                assert answer.json()["status"] == "failed"
                again = await http.get(
                    room.base_url + f"/v1/result/{answer.json()['id']}", headers=auth(code)
                )
                assert again.json()["error"] == answer.json()["error"]
                assert len(answer.content) < 1024
        grown = _stored_bytes(folder) - before
        kept = [t for t in room.state.tasks.values() if t.refused]
        in_memory = sum(len(json.dumps(t.__dict__)) for t in kept)
    assert len(kept) == 40
    assert grown < 40 * 4096
    assert in_memory < 40 * 4096
    assert any(t.prompt.startswith("a fox a fox") for t in kept)  # an excerpt stays


@pytest.fixture
def broken_upstream(marker_emulator: EmulatorHandle) -> Iterator[Upstream]:
    """An upstream whose creates answer 200 with an HTML page (chat goes to the emulator)."""

    async def page(request: Request) -> Response:
        return Response("<html>maintenance</html>", media_type="text/html")

    app = Starlette(routes=[Route("/api/v1/banana/images", page, methods=["POST"])])
    server, thread, port = serve_in_thread(app, "127.0.0.1", 0, what="a broken upstream")
    try:
        yield Upstream(
            f"http://127.0.0.1:{port}/api",
            marker_emulator.text_base_url,
            Secret(MARKER_KEY),
            kind="service",
        )
    finally:
        server.should_exit = True
        thread.join(10)


async def test_a_create_answered_with_a_page_is_a_proper_error(
    tmp_path: Path, broken_upstream: Upstream
) -> None:
    """Row 15: an upstream 200 that is not JSON gives a 502 in the endpoint's shape, the
    slot back, nothing counted, and the outcome in the ledger."""
    rules = Rules(limits=Limits(concurrent=1, images=1))
    with start_classroom(1, upstream=broken_upstream, folder=tmp_path) as room:
        room.set_rules(rules)
        code = next(iter(room.codes.values()))
        answers = []
        for _ in range(3):
            async with httpx2.AsyncClient(timeout=30) as http:
                answers.append(await create(http, room, code))
        assert [a.status_code for a in answers] == [502] * 3
        assert all(isinstance(a.json()["error"]["message"], str) for a in answers)
        events = [e for e in room.state.ledger.events() if e["action"] == "create_error"]
        assert [e["status"] for e in events] == [200] * 3
        usage = room.usage()[0]
        assert (usage["images"], usage["running"]) == (0, 0)
        assert room.state.ledger.held() == []


def test_a_ledger_from_before_reservations_keeps_its_usage(tmp_path: Path) -> None:
    """A class folder written before the budget columns existed: its tasks still count."""
    from dataclasses import asdict

    from mediagen_nb.classroom import SqliteClassLedger, TaskRecord

    def task(tid: str, who: str, kind: str, status: str, refused: bool = False) -> str:
        record = TaskRecord(tid, who, kind, "banana", "m", "p", status, 1.0, 1.0, refused=refused)
        data = asdict(record)
        data.pop("upstream_polls")
        data.pop("student_polls")
        return json.dumps(data)

    with contextlib.closing(sqlite3.connect(tmp_path / "classroom.sqlite3")) as conn, conn:
        conn.execute("CREATE TABLE tasks (id TEXT PRIMARY KEY, created REAL NOT NULL, data TEXT)")
        rows = [
            ("a", task("a", "Ada", "image", "running")),
            ("b", task("b", "Ada", "video", "completed")),
            ("c", task("c", "Ada", "image", "failed", refused=True)),
            ("d", task("d", "Ben", "image", "completed")),
        ]
        conn.executemany("INSERT INTO tasks VALUES (?, 1.0, ?)", rows)
    ledger = SqliteClassLedger(tmp_path)
    try:
        ada, everyone = ledger.usage("ada"), ledger.usage()
    finally:
        ledger.close()
    assert (ada.images, ada.videos, ada.in_flight) == (1, 1, 1)
    assert (everyone.images, everyone.videos, everyone.in_flight) == (2, 1, 1)


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_prompt_in_chinese_is_held_at_a_token_or_more_per_character(ensure_ascii: bool) -> None:
    """What a chat holds for its prompt is not fooled by a script of one token per character
    (sent as UTF-8 by a browser, or as \\u escapes by Python's json)."""
    from mediagen_nb.classroom._budget import chat_claim_amount, prompt_tokens

    question = "请给我讲一个关于狐狸的故事" * 80
    body = {"model": "gpt-5.4", "messages": [{"role": "user", "content": question}]}
    raw = json.dumps(body, ensure_ascii=ensure_ascii).encode()
    assert prompt_tokens(raw) >= len(question)
    assert chat_claim_amount(body, raw, 1024) == prompt_tokens(raw) + 1024
    assert chat_claim_amount({**body, "max_tokens": 7}, raw, 1024) == prompt_tokens(raw) + 7
