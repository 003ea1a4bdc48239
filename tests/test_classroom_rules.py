"""Budgets, the allow-list, the pause switch, and the key that never shows."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mediagen_nb.classroom import ClassroomHandle, Limits, Rules, start_classroom
from mediagen_nb.classroom._cli import describe
from mediagen_nb.client import AuthenticationError, TaskFailedError
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import MARKER_KEY, student, upstream_of

MESSAGES = [{"role": "user", "content": "Tell me a short story about a fox"}]
SEEDANCE: dict[str, Any] = {"content": [{"type": "text", "text": "a paper boat"}], "duration": 4}


def code(handle: ClassroomHandle, n: int = 0) -> str:
    return list(handle.codes.values())[n]


def upstream_creates(emulator: EmulatorHandle) -> int:
    counters = emulator.state.counters
    return int(counters["tasks_created"] + counters["tasks_rejected"])


async def test_image_limit_per_student(
    classroom: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    classroom.set_rules(Rules(limits=Limits(images=1)))
    async with student(classroom, code(classroom)) as client:
        first = await client.images.create("nano-banana", prompt="one")
        await first.wait(timeout=30)
        sent = upstream_creates(marker_emulator)
        refused = await client.images.create("nano-banana", prompt="two")
        assert refused.status == "failed"
        assert refused.error == "your class allows 1 image each; you have used 1"
        with pytest.raises(TaskFailedError, match="allows 1 image each"):
            await refused.wait()
        again = await client.tasks.get(refused.id)
    assert again.status == "failed"
    assert again.error == refused.error
    assert upstream_creates(marker_emulator) == sent
    async with student(classroom, code(classroom, 1)) as other:
        ok = await other.images.create("nano-banana", prompt="someone else's first")
        assert ok.status != "failed"
        await ok.wait(timeout=30)


async def test_video_limit_per_student(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(limits=Limits(videos=0)))
    async with student(classroom, code(classroom)) as client:
        task = await client.videos.create("seedance_1_5_pro_480p", **SEEDANCE)
    assert task.status == "failed"
    assert task.error == "your class allows 0 videos each; you have used 0"


async def test_concurrent_limit(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(limits=Limits(concurrent=1)))
    async with student(classroom, code(classroom)) as client:
        running = await client.videos.create("seedance_1_5_pro_480p", **SEEDANCE)
        refused = await client.images.create("nano-banana", prompt="while the video runs")
        assert refused.error is not None
        assert refused.error.startswith("your class allows 1 task at a time each")
        await running.wait(timeout=60)
        after = await client.images.create("nano-banana", prompt="after the video")
        assert after.status != "failed"
        await after.wait(timeout=30)


async def test_class_wide_limit(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(class_limits=Limits(images=1)))
    async with student(classroom, code(classroom)) as alice:
        await (await alice.images.create("nano-banana", prompt="first")).wait(timeout=30)
    async with student(classroom, code(classroom, 1)) as bob:
        task = await bob.images.create("nano-banana", prompt="second")
    assert task.error == "the class has used all 1 image it may make together"


async def test_per_student_override(classroom: ClassroomHandle) -> None:
    classroom.set_rules(
        Rules(limits=Limits(images=0), per_student={"Student-02": Limits(images=5)})
    )
    async with student(classroom, code(classroom, 1)) as client:
        task = await client.images.create("nano-banana", prompt="allowed for me")
        assert task.status != "failed"
        await task.wait(timeout=30)


async def test_model_allow_list(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(models=frozenset({"nano-banana", "gpt-5.4"})))
    async with student(classroom, code(classroom)) as client:
        task = await client.images.create("gpt-image-2", prompt="not on the list")
        with pytest.raises(AuthenticationError) as chat:
            await client.chat.completions.create(model="gpt-5.5", messages=MESSAGES)
    assert (
        task.error
        == "your class does not use the model gpt-image-2; you may use: gpt-5.4, nano-banana"
    )
    assert chat.value.status_code == 403
    assert "does not use the model gpt-5.5" in str(chat.value)


async def test_chat_token_limit_in_both_envelopes(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(limits=Limits(chat_tokens=1)))
    async with student(classroom, code(classroom)) as client:
        await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    used = classroom.usage()[0]["chat_tokens"]
    headers = {"authorization": f"Bearer {code(classroom)}"}
    async with httpx2.AsyncClient(headers=headers) as http:
        chat = await http.post(
            classroom.text_base_url + "/v1/chat/completions",
            json={"model": "gpt-5.4", "messages": MESSAGES},
        )
        messages = await http.post(
            classroom.text_base_url + "/v1/messages",
            json={"model": "claude-haiku-4-5", "max_tokens": 50, "messages": MESSAGES},
        )
    sentence = f"your class allows 1 chat token each; you have used {used}"
    assert chat.status_code == 403
    assert chat.headers["x-should-retry"] == "false"
    assert chat.json() == {
        "error": {"message": sentence, "type": "permission_error", "param": None, "code": None}
    }
    assert messages.status_code == 403
    assert messages.json() == {
        "type": "error",
        "error": {"type": "permission_error", "message": sentence},
    }


async def test_pause_refuses_tasks_and_chat_then_resumes(classroom: ClassroomHandle) -> None:
    classroom.pause()
    async with student(classroom, code(classroom)) as client:
        task = await client.images.create("nano-banana", prompt="during the pause")
        with pytest.raises(AuthenticationError, match="paused"):
            await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
        assert task.error is not None
        assert "paused" in task.error
        classroom.resume()
        resumed = await client.images.create("nano-banana", prompt="after the pause")
        assert resumed.status != "failed"
        await resumed.wait(timeout=30)


async def _everything_served(handle: ClassroomHandle) -> list[bytes]:
    """Bodies and headers of one request of every kind (successes, refusals, errors)."""
    seen: list[bytes] = []

    def keep(response: httpx2.Response) -> None:
        seen.append(response.content)
        seen.append(repr(list(response.headers.items())).encode())

    auth = {"authorization": f"Bearer {code(handle)}"}
    chat = {"model": "gpt-5.4", "messages": MESSAGES}
    async with httpx2.AsyncClient() as http:
        keep(
            await http.post(handle.text_base_url + "/v1/chat/completions", json=chat, headers=auth)
        )
        keep(
            await http.post(
                handle.text_base_url + "/v1/chat/completions",
                json={**chat, "stream": True},
                headers=auth,
            )
        )
        create = await http.post(
            handle.base_url + "/v1/banana/images",
            json={"model": "nano-banana", "prompt": "x"},
            headers=auth,
        )
        keep(create)
        keep(await http.get(handle.base_url + f"/v1/result/{create.json()['id']}", headers=auth))
        keep(await http.get(handle.base_url + "/v1/result/unknown", headers=auth))
        keep(
            await http.get(handle.base_url + "/v1/result/x", headers={"authorization": "Bearer no"})
        )
        keep(await http.post(handle.base_url + "/v1/sora/videos", json={"model": 1}, headers=auth))
        keep(await http.get(handle.base_url + "/nothing", headers=auth))
        for page in ("/wall", "/wall/static/wall.js", "/wall/static/wall.css", "/wall/feed.json"):
            keep(await http.get(handle.root_url + page))
        teacher = {"authorization": f"Bearer {handle.teacher_token}"}
        keep(await http.get(handle.root_url + "/wall/api/state", headers=teacher))
        keep(await http.get(handle.root_url + "/wall/api/export.zip", headers=teacher))
        handle.pause()
        keep(
            await http.post(handle.text_base_url + "/v1/chat/completions", json=chat, headers=auth)
        )
    return seen


async def test_the_key_never_appears(
    classroom: ClassroomHandle, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    seen = await _everything_served(classroom)
    seen.append(repr(classroom).encode())
    seen.append(describe(classroom).encode())
    seen.append(caplog.text.encode())
    seen += [p.read_bytes() for p in (tmp_path / "class").rglob("*") if p.is_file()]
    assert len(seen) > 30
    assert not [blob[:200] for blob in seen if MARKER_KEY.encode() in blob]


def test_service_upstream_needs_the_teachers_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIAGEN_API_KEY", MARKER_KEY)
    with pytest.raises(ValueError, match="MEDIAGEN_BASE_URL and MEDIAGEN_TEXT_BASE_URL"):
        start_classroom(upstream="service", folder=tmp_path / "c")


def test_codes_survive_a_restart(tmp_path: Path, marker_emulator: EmulatorHandle) -> None:
    up = upstream_of(marker_emulator)
    with start_classroom(["Ada", "Grace"], upstream=up, folder=tmp_path / "c") as first:
        codes = first.codes
        first.revoke("Grace")
    with start_classroom(["Ada", "Grace"], upstream=up, folder=tmp_path / "c") as second:
        assert second.codes == {"Ada": codes["Ada"]}
        assert second.teacher_token == first.teacher_token
