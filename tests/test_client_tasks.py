"""Task handles: polling to each terminal state at the catalog's pace, deadlines, results."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mediagen_nb.client import (
    AsyncClient,
    MediagenError,
    Task,
    TaskCancelledError,
    TaskFailedError,
    TaskTimeoutError,
)
from mediagen_nb.client._tasks import normalize_status
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, MP4_BYTES, TEXT, FakeService, MemoryRecorder

SEEDANCE: dict[str, Any] = {"content": [{"type": "text", "text": "a boat at dawn"}]}


def make(
    service: FakeService, clock: FakeClock, recorder: MemoryRecorder | None = None
) -> AsyncClient:
    return AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(service),
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 0.0,
        recorder=recorder,
    )


async def test_wait_until_completed_records_and_caches_media(tmp_path: Path) -> None:
    service = FakeService(script=["queued", "processing", "processing", "completed"])
    clock, recorder = FakeClock(), MemoryRecorder(tmp_path)
    updates: list[str] = []
    async with make(service, clock, recorder) as client:
        task = await client.images.create("nano-banana", prompt="a red square")
        assert isinstance(task, Task)
        assert task.family == "banana"
        assert task.status == "queued"
        result = await task.wait(on_update=lambda t: updates.append(t.status))
        assert result is task
        assert result.status == "completed"
        assert task.done
        assert task.polls == 4
        assert updates == ["queued", "processing", "processing", "completed"]
        assert clock.sleeps == [2.0] * 4  # banana: catalog minimum 2 s, speed 1
        assert task.elapsed == pytest.approx(8.0)
        assert task.created_at == 1_700_000_000
        assert task.url == "http://cdn.test/media/task-1.png"
        assert task.local_path is not None
        assert task.local_path.endswith(".png")
        downloads = [p for p in service.paths() if "/media/" in p]
        assert len(downloads) == 1
        assert await task.read_bytes() == service.media
        picture = await task.image()
        assert picture.size == (8, 8)
        saved = await task.download(tmp_path)
        assert saved.read_bytes() == service.media
        assert saved.name == "task-1.png"
        assert len([p for p in service.paths() if "/media/" in p]) == 1
    assert recorder.actions("task") == ["created", "status", "status", "completed"]
    created = recorder.events[0]
    assert created.data["request"] == {"model": "nano-banana", "prompt": "a red square"}
    assert created.service == BASE
    assert created.family == "banana"
    assert recorder.events[-1].data["url"] == task.url


async def test_wait_raises_on_failed() -> None:
    service = FakeService(script=["processing", "failed"])
    clock = FakeClock()
    async with make(service, clock) as client:
        task = await client.images.create("gpt-image-2", prompt="x")
        with pytest.raises(TaskFailedError, match="content policy") as info:
            await task.wait()
    assert info.value.task_id == task.id
    assert task.status == "failed"
    assert task.error == "content policy violation"


async def test_wait_raises_on_service_cancelled_seedance(tmp_path: Path) -> None:
    service = FakeService(script=["processing", "cancelled"])
    clock, recorder = FakeClock(), MemoryRecorder(tmp_path)
    async with make(service, clock, recorder) as client:
        task = await client.videos.create("seedance_1_5_pro_480p", **SEEDANCE)
        with pytest.raises(TaskCancelledError) as info:
            await task.wait()
    assert info.value.local is False
    assert clock.sleeps == [10.0, 10.0]  # seedance 480p: never under 10 s at speed 1
    assert recorder.actions("task")[-1] == "cancelled"


async def test_local_cancel_wakes_a_waiting_task_and_says_nothing_was_sent(tmp_path: Path) -> None:
    service = FakeService(script=["processing"])
    recorder = MemoryRecorder(tmp_path)
    gate = asyncio.Event()

    async def slow_sleep(seconds: float) -> None:
        gate.set()
        await asyncio.sleep(3600)

    client = AsyncClient(
        KEY, BASE, TEXT, httpx2.MockTransport(service), sleep=slow_sleep, recorder=recorder
    )
    task = await client.videos.create("seedance_1_5_pro_720p", **SEEDANCE)
    waiter = asyncio.create_task(task.wait())
    await gate.wait()
    assert task.cancel() is True
    with pytest.raises(TaskCancelledError, match="locally") as info:
        await waiter
    assert info.value.local is True
    assert task.status == "cancelled"
    assert task.cancel() is False
    assert not any("cancel" in p for p in service.paths())
    assert recorder.events[-1].action == "cancelled"
    assert recorder.events[-1].data["local"]
    await client.aclose()


async def test_local_cancel_wakes_a_task_pausing_on_the_real_clock(tmp_path: Path) -> None:
    """The default sleep path: the pause is a timer future that cancel() resolves at once."""
    service = FakeService(script=["processing"])
    client = AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(service), recorder=None)
    task = await client.videos.create("seedance_1_5_pro_720p", **SEEDANCE)
    assert task.poll_interval >= 10  # seedance: a pause far longer than this test may take
    waiter = asyncio.create_task(task.wait())
    for _ in range(5):
        await asyncio.sleep(0)
    assert task._wake is not None  # pausing before its first poll
    assert task.cancel() is True
    with pytest.raises(TaskCancelledError, match="locally"):
        await asyncio.wait_for(waiter, 5)  # a guard against a hang, not a timing check
    assert task._wake is None
    assert task.polls == 0
    other = await client.videos.create("seedance_1_5_pro_720p", **SEEDANCE)
    outer = asyncio.create_task(other.wait())
    for _ in range(5):
        await asyncio.sleep(0)
    outer.cancel()  # cancelling the waiting coroutine itself still propagates
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert other._wake is None
    assert (other.status, other.polls) == ("queued", 0)  # not marked cancelled: only stopped
    await client.aclose()


async def test_a_failing_injected_sleep_surfaces_from_wait(tmp_path: Path) -> None:
    service = FakeService(script=["processing"])

    async def broken_sleep(seconds: float) -> None:
        raise RuntimeError(f"clock broke at {seconds:g} s")

    client = AsyncClient(
        KEY, BASE, TEXT, httpx2.MockTransport(service), sleep=broken_sleep, recorder=None
    )
    task = await client.videos.create("seedance_1_5_pro_720p", **SEEDANCE)
    with pytest.raises(RuntimeError, match="clock broke"):
        await task.wait()
    assert task._wake is None
    await client.aclose()


async def test_deadline_raises_task_timeout() -> None:
    service = FakeService(script=["processing"])
    clock = FakeClock()
    async with make(service, clock) as client:
        task = await client.videos.create("neutralSora2Pro", prompt="a fox", seconds=4)
        with pytest.raises(TaskTimeoutError) as info:
            await task.wait(timeout=100)
    assert info.value.status == "processing"
    assert sum(clock.sleeps) == pytest.approx(100.0)
    assert clock.sleeps == [30.0, 30.0, 30.0, 10.0]  # last sleep trimmed to the deadline


async def test_default_deadline_comes_from_the_catalog_eta() -> None:
    service = FakeService(script=["processing"], speed=100.0)
    clock = FakeClock()
    async with make(service, clock) as client:
        task = await client.videos.create("seedance_1_5_pro_1080p", **SEEDANCE)
        assert task.speed == 100.0
        assert task.poll_interval == pytest.approx(0.3)
        assert task.default_timeout() == pytest.approx(max(600.0, 3 * 480.0) / 100.0)
        with pytest.raises(TaskTimeoutError):
            await task.wait()
    assert sum(clock.sleeps) == pytest.approx(14.4)


async def test_speed_header_scales_the_poll_interval() -> None:
    service = FakeService(script=["processing", "processing", "completed"], speed=40.0)
    clock = FakeClock()
    async with make(service, clock) as client:
        task = await client.videos.create("seedance_1_5_pro_480p", **SEEDANCE)
        await task.wait()
    assert clock.sleeps == [0.25, 0.25, 0.25]


async def test_rate_limited_poll_waits_retry_after_then_continues() -> None:
    service = FakeService(script=["completed"])
    hits = {"n": 0}

    def limited(request: httpx2.Request) -> httpx2.Response:
        hits["n"] += 1
        if hits["n"] <= 2:
            return httpx2.Response(429, headers={"Retry-After": "1.5"}, json={"error": "slow"})
        return httpx2.Response(
            200, json={"id": "task-1", "status": "completed", "image_url": "http://cdn.test/a.png"}
        )

    service.extra[("GET", "/api/v1/result/task-1")] = limited
    clock = FakeClock()
    client = AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(service),
        sleep=clock.sleep,
        clock=clock,
        max_retries=1,
        recorder=None,
    )
    task = await client.images.create("nano-banana", prompt="x")
    await task.wait()
    # poll 1 -> 429, transport retries after 1.5 s -> 429 again -> wait loop sleeps 1.5 s
    assert clock.sleeps == [2.0, 1.5, 1.5, 2.0]
    assert task.status == "completed"
    assert client.retries == 1
    await client.aclose()


async def test_create_rejected_returns_failed_task(tmp_path: Path) -> None:
    service = FakeService(create_status="failed", create_error="unsupported ratio")
    recorder = MemoryRecorder(tmp_path)
    async with make(service, FakeClock(), recorder) as client:
        task = await client.images.create("gpt-image-2", prompt="x")
        assert task.status == "failed"
        assert task.error == "unsupported ratio"
        with pytest.raises(TaskFailedError, match="unsupported ratio"):
            await task.wait()
    assert recorder.actions() == ["created", "failed"]
    assert not [p for p in service.paths() if "result" in p]


async def test_attach_refreshes_at_once_and_reads_video(tmp_path: Path) -> None:
    service = FakeService(script=["completed"], media=MP4_BYTES)
    service.polls["old-task"] = 0
    clock, recorder = FakeClock(), MemoryRecorder(tmp_path)
    async with make(service, clock, recorder) as client:
        task = client.tasks.attach("old-task", "vidu", "viduq3-pro")
        assert task.status == "queued"
        assert task.polls == 0
        await task.wait()
        assert clock.sleeps == []
        assert task.polls == 1
        assert task.created_at == 1_700_000_000
        assert task.local_path is not None
        assert task.local_path.endswith(".mp4")
        assert await task.read_bytes() == MP4_BYTES


async def test_read_bytes_after_manual_refresh_keeps_media_once(tmp_path: Path) -> None:
    service = FakeService(script=["completed"])
    recorder = MemoryRecorder(tmp_path)
    async with make(service, FakeClock(), recorder) as client:
        task = await client.images.create("nano-banana", prompt="x")
        await task.refresh()
        assert task.status == "completed"
        assert task.local_path is None
        assert await task.read_bytes() == service.media
        assert task.local_path == recorder.stored[task.id]
        assert await task.read_bytes() == service.media
    assert len([p for p in service.paths() if "/media/" in p]) == 1


async def test_read_bytes_before_completion_is_an_error() -> None:
    service = FakeService(script=["processing"])
    async with make(service, FakeClock()) as client:
        task = await client.images.create("nano-banana", prompt="x")
        await task.refresh()
        with pytest.raises(MediagenError, match="no result yet"):
            await task.read_bytes()


async def test_recorder_errors_never_break_the_call(caplog: pytest.LogCaptureFixture) -> None:
    class Broken:
        def record(self, event: object) -> None:
            raise OSError("disk full")

        def store_media(self, key: str, data: bytes, suffix: str) -> str:
            raise OSError("disk full")

        def cached_media(self, key: str) -> str | None:
            raise OSError("disk full")

    service = FakeService(script=["completed"])
    clock = FakeClock()
    client = AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(service),
        sleep=clock.sleep,
        clock=clock,
        recorder=Broken(),
    )
    task = await client.images.create("nano-banana", prompt="x")
    await task.wait()
    assert await task.read_bytes() == service.media
    assert "disk full" in caplog.text
    await client.aclose()


def test_status_words_are_normalised() -> None:
    assert normalize_status("Running") == "processing"
    assert normalize_status("canceled") == "cancelled"
    assert normalize_status("succeeded") == "completed"
    assert normalize_status(None) == "processing"
    assert normalize_status("queued") == "queued"
