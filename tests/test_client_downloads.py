"""Result downloads are files or errors, never an empty success, and land where they belong:
a service's task id never names a path outside the chosen folder; a redirect, an error
status, an empty or short body is never cached, and a later read retries cleanly."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.client import APIError, AsyncClient, Task
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT, FakeService, MemoryRecorder

Handler = Callable[[httpx2.Request], httpx2.Response]
HOSTILE_IDS = ["../../escape", "/abs/escape", "..", "a/../../b", "..\\..\\win", ".hidden"]


def make(service: Handler, recorder: MemoryRecorder | None = None) -> AsyncClient:
    clock = FakeClock()
    transport = httpx2.MockTransport(service)
    return AsyncClient(
        KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=recorder
    )


def service_with_id(task_id: str, media: bytes) -> Handler:
    """A service whose task has ``task_id`` and is completed at the first poll."""
    fake = FakeService()

    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.url.host == "cdn.test":
            return httpx2.Response(200, content=media)
        if request.method == "POST":
            body = {"id": task_id, "created": 1, "status": "queued", "object": "image"}
            return fake.json(body)
        done = {"id": task_id, "created": 1, "status": "completed"}
        return fake.json({**done, "image_url": "http://cdn.test/media/x.png"})

    return handle


def files_under(root: Path) -> list[Path]:
    """Every file below ``root``, relative to it."""
    return sorted(p.relative_to(root) for p in root.rglob("*") if p.is_file())


def read(path: str) -> bytes:
    return Path(path).read_bytes()


async def finished(client: AsyncClient) -> Task:
    task = await client.images.create("nano-banana", prompt="a red square")
    return await task.wait()


@pytest.mark.parametrize("task_id", HOSTILE_IDS)
async def test_download_stays_inside_the_folder(tmp_path: Path, task_id: str) -> None:
    folder = tmp_path / "a" / "b" / "chosen"
    folder.mkdir(parents=True)
    media = FakeService().media
    async with make(service_with_id(task_id, media)) as client:
        saved = await (await finished(client)).download(folder)
    assert saved.parent.resolve() == folder.resolve()
    assert saved.read_bytes() == media
    assert files_under(tmp_path) == [saved.relative_to(tmp_path)]


def media_answers(answers: list[httpx2.Response]) -> FakeService:
    """A fake service whose result URL gives ``answers`` in turn (the last one repeats)."""
    service = FakeService(script=["completed"])
    calls: list[int] = []

    def media(_request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        return answers[min(len(calls), len(answers)) - 1]

    service.extra[("GET", "/media/task-1.png")] = media
    return service


BAD_ANSWERS: dict[str, httpx2.Response] = {
    "redirect": httpx2.Response(302, headers={"location": "http://elsewhere.test/x.png"}),
    "see-other": httpx2.Response(303, headers={"location": "/login"}),
    "empty": httpx2.Response(200, content=b""),
    "no-content": httpx2.Response(204),
}


@pytest.mark.parametrize("bad", sorted(BAD_ANSWERS))
async def test_a_bad_result_answer_is_an_error_and_never_cached(tmp_path: Path, bad: str) -> None:
    good = FakeService().media
    answers = [BAD_ANSWERS[bad], BAD_ANSWERS[bad], httpx2.Response(200, content=good)]
    recorder = MemoryRecorder(tmp_path)
    async with make(media_answers(answers), recorder) as client:
        task = await finished(client)  # its download on completion gets the first bad answer
        assert recorder.stored == {}
        with pytest.raises(APIError):
            await task.read_bytes()
        assert recorder.stored == {}
        assert task.local_path is None
        picture = await task.image()
    assert picture.size == (8, 8)
    assert read(recorder.stored["task-1"]) == good


async def test_a_short_body_is_an_error(tmp_path: Path) -> None:
    short = httpx2.Response(200, content=b"\x89PNG", headers={"content-length": "4096"})
    service = media_answers([short, short, httpx2.Response(200, content=FakeService().media)])
    recorder = MemoryRecorder(tmp_path)
    async with make(service, recorder) as client:
        task = await finished(client)
        with pytest.raises(APIError, match="Content-Length"):
            await task.read_bytes()
        assert recorder.stored == {}
        assert (await task.read_bytes()) == FakeService().media


async def test_an_empty_cached_file_is_downloaded_again(tmp_path: Path) -> None:
    good = FakeService().media
    recorder = MemoryRecorder(tmp_path)
    empty = tmp_path / "task-1.png"
    empty.write_bytes(b"")
    recorder.stored["task-1"] = str(empty)
    async with make(media_answers([httpx2.Response(200, content=good)]), recorder) as client:
        task = await finished(client)
        assert await task.read_bytes() == good
