"""Shared polling, the wall's feed and controls, the export, and a restart mid-task."""

from __future__ import annotations

import asyncio
import csv
import io
import zipfile
from pathlib import Path
from typing import Any

import httpx2

from mediagen_nb.classroom import ClassroomHandle, start_classroom
from mediagen_nb.emulator import EmulatorHandle, FaultConfig, start_emulator
from tests._classroom_helpers import MARKER_KEY, student, until, upstream_of

SEEDANCE: dict[str, Any] = {"content": [{"type": "text", "text": "a paper boat"}], "duration": 4}


def code(handle: ClassroomHandle, n: int = 0) -> str:
    return list(handle.codes.values())[n]


async def _poll_hard(http: httpx2.AsyncClient, url: str, polls: list[str]) -> None:
    """Poll as fast as the loop allows until the task is terminal."""
    while True:
        body = (await http.get(url)).json()
        polls.append(body["status"])
        if body["status"] in ("completed", "failed"):
            return
        await asyncio.sleep(0)


async def test_polling_is_coalesced(
    classroom: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    auth = {"authorization": f"Bearer {code(classroom)}"}
    async with httpx2.AsyncClient(headers=auth) as http:
        created = await http.post(
            classroom.base_url + "/v1/seedance/videos",
            json={"model": "seedance_1_5_pro_480p", **SEEDANCE},
        )
        url = f"{classroom.base_url}/v1/result/{created.json()['id']}"
        polls: list[str] = []
        await asyncio.gather(*[_poll_hard(http, url, polls) for _ in range(3)])
    task = classroom.state.tasks[created.json()["id"]]
    assert polls.count("completed") == 3
    assert task.status == "completed"
    assert task.student_polls == len(polls)
    assert task.upstream_polls >= 1
    assert task.student_polls >= 10 * task.upstream_polls
    assert marker_emulator.state.counters["poll_too_fast"] == 0


async def test_wall_feed_shows_new_items_and_hides_on_request(classroom: ClassroomHandle) -> None:
    teacher = {"authorization": f"Bearer {classroom.teacher_token}"}
    async with httpx2.AsyncClient(base_url=classroom.root_url) as wall:
        start = (await wall.get("/wall/feed.json")).json()
        assert start["items"] == []
        async with student(classroom, code(classroom)) as client:
            task = await client.images.create("nano-banana", prompt="a lighthouse at dusk")
            feed: dict[str, Any] = {"items": []}

            async def refresh() -> None:
                feed.update((await wall.get("/wall/feed.json")).json())

            while not feed["items"]:
                await asyncio.wait_for(refresh(), 2)
                await asyncio.sleep(0.05)
            await task.wait(timeout=5)
        item = feed["items"][0]
        assert (item["id"], item["student"], item["prompt"]) == (
            task.id,
            "student-01",
            "a lighthouse at dusk",
        )
        media = await wall.get(item["url"])
        assert media.content.startswith(b"\x89PNG")
        assert (
            await wall.get("/wall/feed.json", params={"since": str(feed["version"])})
        ).status_code == 204
        denied = await wall.post("/wall/api/hide", json={"id": task.id})
        hidden = await wall.post("/wall/api/hide", json={"id": task.id}, headers=teacher)
        after = (await wall.get("/wall/feed.json")).json()
    assert denied.status_code == 401
    assert hidden.status_code == 200
    assert [i["hidden"] for i in hidden.json()["items"]] == [True]
    assert after["items"] == []


async def test_teacher_pause_and_usage_over_http(classroom: ClassroomHandle) -> None:
    teacher = {"authorization": f"Bearer {classroom.teacher_token}"}
    async with httpx2.AsyncClient(base_url=classroom.root_url, headers=teacher) as wall:
        paused = await wall.post("/wall/api/pause", json={"paused": True})
        bad = await wall.post("/wall/api/pause", json={"paused": "yes"})
        state = (await wall.get("/wall/api/state")).json()
    assert paused.json()["paused"] is True
    assert classroom.paused
    assert bad.status_code == 400
    assert [row["student"] for row in state["usage"]] == ["student-01", "student-02", "student-03"]


async def test_export_zip_holds_media_and_csv(classroom: ClassroomHandle, tmp_path: Path) -> None:
    async with student(classroom, code(classroom)) as client:
        first = await client.images.create("nano-banana", prompt="one, with a comma")
        second = await client.images.create("nano-banana", prompt="two")
        await asyncio.gather(first.wait(timeout=30), second.wait(timeout=30))
    classroom.hide(second.id)
    path = classroom.export(tmp_path / "gallery.zip")
    with zipfile.ZipFile(path) as archive:
        names = sorted(archive.namelist())
        rows = list(csv.DictReader(io.StringIO(archive.read("gallery.csv").decode())))
        picture = archive.read(rows[0]["file"])
    assert names == ["gallery.csv", "media/student-01-1.png"]
    assert [(r["id"], r["prompt"]) for r in rows] == [(first.id, "one, with a comma")]
    assert picture.startswith(b"\x89PNG")


async def test_restart_resumes_tasks_in_flight(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    up = upstream_of(marker_emulator)
    folder = tmp_path / "class"
    with start_classroom(1, upstream=up, folder=folder) as first:
        credential = code(first)
        async with student(first, credential) as client:
            task = await client.videos.create("seedance_1_5_pro_720p", **SEEDANCE)
        assert not first.state.tasks[task.id].done
    with start_classroom(1, upstream=up, folder=folder) as second:
        assert second.state.tasks[task.id].status in ("queued", "processing")
        await until(lambda: second.state.tasks[task.id].done, within=60)
        async with student(second, credential) as client:
            result = await client.tasks.get(task.id)
        resumed = second.state.tasks[task.id]
    assert resumed.upstream_polls >= 1
    assert result.status == "completed"
    assert result.video_url is not None
    assert result.video_url.startswith(second.base_url + "/media/")


async def test_rate_limited_and_failing_polls_are_waited_out(tmp_path: Path) -> None:
    """Injected 429s (with Retry-After), 5xx and dropped connections on the upstream's result
    endpoint: the gateway waits and polls again, and the student's task still completes."""
    faults = FaultConfig(rate_limit_rate=0.3, error_rate=0.2, drop_rate=0.1, seed=7)
    with (
        start_emulator(speed=100.0, api_key=MARKER_KEY, faults=faults) as emulator,
        start_classroom(1, upstream=upstream_of(emulator), folder=tmp_path) as room,
    ):
        async with student(room, code(room)) as client:
            task = await client.images.create("nano-banana", prompt="through the storm")
            await task.wait(timeout=60)
        injected = emulator.state.faults.counts
    assert task.status == "completed"
    assert injected["rate_limit"] > 0
    assert room.state.tasks[task.id].upstream_polls > injected["rate_limit"]
