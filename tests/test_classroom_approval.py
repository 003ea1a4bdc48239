"""Approval before the wall, and the teacher reading chat turns.

With ``approve=True`` the wall, the feed, the export and the public media route show nothing
until the teacher approves; the student still gets their own result. Hidden items stay out
the same way. Every ended chat turn is kept with its prompt, an excerpt of the answer and
its tokens.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mediagen_nb.classroom import ClassroomHandle, start_classroom
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import student, upstream_of


@pytest.fixture
def approving(tmp_path: Path, marker_emulator: EmulatorHandle) -> Iterator[ClassroomHandle]:
    with start_classroom(
        2, upstream=upstream_of(marker_emulator), folder=tmp_path / "class", approve=True
    ) as handle:
        yield handle


async def make_image(handle: ClassroomHandle, who: str, prompt: str) -> str:
    async with student(handle, handle.codes[who]) as client:
        task = await client.images.create("nano-banana", prompt=prompt)
        await task.wait(timeout=30)
        data = await task.read_bytes()  # the student always gets their own result
    assert data.startswith(b"\x89PNG")
    return task.id


def media_of(handle: ClassroomHandle, task_id: str) -> str:
    media = handle.state.tasks[task_id].media
    assert media is not None
    return f"{handle.base_url}/media/{media}"


async def public_view(handle: ClassroomHandle, http: httpx2.AsyncClient) -> list[str]:
    feed = (await http.get(handle.wall_url + "/feed.json")).json()
    return [item["id"] for item in feed["items"]]


def exported(handle: ClassroomHandle, folder: Path) -> list[str]:
    with zipfile.ZipFile(handle.export(folder / "gallery.zip")) as archive:
        table = archive.read("gallery.csv").decode().splitlines()
    return [row.split(",")[0] for row in table[1:]]


async def test_nothing_is_public_until_the_teacher_approves(
    approving: ClassroomHandle, tmp_path: Path
) -> None:
    first = await make_image(approving, "student-01", "a paper crane")
    second = await make_image(approving, "student-02", "a clay pot")
    teacher = {"authorization": f"Bearer {approving.teacher_token}"}
    other = {"authorization": f"Bearer {approving.codes['student-02']}"}
    async with httpx2.AsyncClient() as http:
        assert await public_view(approving, http) == []
        assert approving.items() == []
        assert (await http.get(media_of(approving, first))).status_code == 404
        assert (await http.get(media_of(approving, first), headers=other)).status_code == 404
        assert (await http.get(media_of(approving, first), headers=teacher)).status_code == 200
        assert exported(approving, tmp_path) == []
        assert [item["id"] for item in approving.queue()] == [first, second]  # oldest first

        state = await http.post(
            approving.wall_url + "/api/approve", json={"id": first}, headers=teacher
        )
        assert [item["id"] for item in state.json()["queue"]] == [second]
        assert await public_view(approving, http) == [first]
        assert (await http.get(media_of(approving, first))).status_code == 200
        assert (await http.get(media_of(approving, second))).status_code == 404
        assert exported(approving, tmp_path) == [first]

        await http.post(
            approving.wall_url + "/api/hide", json={"id": second, "hidden": True}, headers=teacher
        )
        assert approving.queue() == []
        approving.hide(first)
        assert await public_view(approving, http) == []
        assert (await http.get(media_of(approving, first))).status_code == 404
        assert exported(approving, tmp_path) == []
        unknown = await http.post(
            approving.wall_url + "/api/approve", json={"id": "nope"}, headers=teacher
        )
        refused = await http.post(approving.wall_url + "/api/approve", json={"id": first})
    assert unknown.status_code == 404
    assert refused.status_code == 401


async def test_turning_approval_off_shows_every_item_not_hidden(
    approving: ClassroomHandle,
) -> None:
    made = await make_image(approving, "student-01", "a tin robot")
    assert approving.items() == []
    approving.set_approval(False)
    assert [item["id"] for item in approving.items()] == [made]
    assert approving.queue() == []


CHAT = [{"role": "user", "content": "Name a colour"}]


async def test_the_teacher_reads_each_students_chat_turns(classroom: ClassroomHandle) -> None:
    async with student(classroom, classroom.codes["student-01"]) as client:
        reply = await client.chat.completions.create(model="gpt-5.4", messages=CHAT)
        async with client.messages.stream(
            model="claude-haiku-4-5", max_tokens=200, messages=CHAT
        ) as stream:
            streamed = "".join([piece async for piece in stream.text_stream])
    async with student(classroom, classroom.codes["student-02"]) as client:
        await client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "Count to three"}]
        )
    turns = classroom.chats()
    mine = classroom.chats(student="STUDENT-01")
    assert [(t["student"], t["path"], t["prompt"]) for t in turns] == [
        ("student-02", "/v1/chat/completions", "Count to three"),
        ("student-01", "/v1/messages", "Name a colour"),
        ("student-01", "/v1/chat/completions", "Name a colour"),
    ]
    assert mine == turns[1:]
    text = reply.choices[0].message.content or ""
    assert mine[1]["answer"] == text[:300]
    assert mine[0]["answer"] == streamed[:300]
    assert all(t["outcome"] == "ok" and t["tokens"] > 0 for t in turns)
    usage: dict[str, Any] = {row["student"]: row["chat_tokens"] for row in classroom.usage()}
    assert sum(t["tokens"] for t in mine) == usage["student-01"]
    auth = {"authorization": f"Bearer {classroom.teacher_token}"}
    async with httpx2.AsyncClient() as http:
        state = (await http.get(classroom.wall_url + "/api/state", headers=auth)).json()
    assert state["chats"] == turns


async def test_turning_approval_on_keeps_what_the_wall_already_shows(
    classroom: ClassroomHandle,
) -> None:
    shown = await make_image(classroom, "student-01", "a kite")
    hidden = await make_image(classroom, "student-02", "a drum")
    classroom.hide(hidden)
    classroom.set_approval(True)
    later = await make_image(classroom, "student-01", "a boat")
    assert [item["id"] for item in classroom.items()] == [shown]
    assert [item["id"] for item in classroom.queue()] == [later]
    classroom.hide(hidden, hidden=False)  # shown again, but never approved: it waits
    assert [item["id"] for item in classroom.queue()] == [hidden, later]
