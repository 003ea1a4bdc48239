"""After a restart, unfinished tasks of the same service are re-attached and polled to the end."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import httpx2
import pytest

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.client import AsyncClient, Task
from mediagen_nb.history import Ledger, resume, unfinished
from mediagen_nb.history._resume import EXPIRED_ERROR

SERVICE = "http://service.test/api"
OTHER = "http://elsewhere.test/api"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


async def no_sleep(_seconds: float) -> None:
    return None


def created(
    store: Ledger,
    key: str,
    family: str = "image2",
    model: str = "gpt-image-2",
    *,
    service: str | None = SERVICE,
    status: str | None = None,
) -> None:
    """Record that task ``key`` was created (its request's prompt is the key)."""
    data: dict[str, object] = {"request": {"model": model, "prompt": key}}
    if status is not None:
        data["status"] = status
    store.record(
        LedgerEvent(
            kind="task",
            action="created",
            key=key,
            family=family,
            model=model,
            service=service,
            data=data,
        )
    )


def previous_kernel(home: Path) -> None:
    """What a kernel that died mid-poll left in the history."""
    store = Ledger(home, origin="previous-kernel")
    created(store, "t-live", status="queued")
    store.record(
        LedgerEvent(kind="task", action="status", key="t-live", data={"status": "processing"})
    )
    created(store, "t-gone", "seedance", "seedance_1_5_pro_720p", status="queued")
    created(store, "t-other", "sora", "neutralSora2Pro", service=OTHER, status="queued")
    created(store, "t-done", status="queued")
    store.record(
        LedgerEvent(kind="task", action="completed", key="t-done", data={"url": "https://x/d"})
    )
    store.store_media("t-done", PNG, ".png")  # finished and kept: nothing left to do
    store.close()


class FakeService:
    """Answers result polls: t-live finishes on the second poll, other ids on the first,
    and t-gone has expired (404)."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        self.calls[path] += 1
        if request.url.host == "cdn.test":
            return httpx2.Response(200, content=PNG, headers={"content-type": "image/png"})
        if path.startswith("/api/v1/result/t-") and path != "/api/v1/result/t-gone":
            task_id = path.rsplit("/", 1)[1]
            done = self.calls[path] >= 2 or task_id != "t-live"
            body = {
                "id": task_id,
                "object": "image.generation",
                "created": 1_700_000_000,
                "model": "gpt-image-2",
                "status": "completed" if done else "processing",
                "image_url": f"https://cdn.test/{task_id}.png" if done else None,
                "error": None,
            }
            return httpx2.Response(200, json=body)
        if path == "/api/v1/result/t-gone":
            error = {"type": "not_found_error", "message": "no such task"}
            return httpx2.Response(404, json={"error": error})
        return httpx2.Response(500, json={"error": {"type": "api_error", "message": path}})


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "kernel_home"
    monkeypatch.setenv("MEDIAGEN_HOME", str(folder))
    previous_kernel(folder)
    return folder


def make_client(service: FakeService) -> AsyncClient:
    return AsyncClient(
        api_key="sk-test-resume",
        base_url=SERVICE + "/",
        text_base_url="http://service.test/gateway",
        transport=httpx2.MockTransport(service),
        sleep=no_sleep,
    )


def test_unfinished_lists_running_tasks(home: Path) -> None:
    assert [(p.task_id, p.status) for p in unfinished()] == [
        ("t-live", "processing"),
        ("t-gone", "queued"),
        ("t-other", "queued"),
    ]


async def test_resume_finishes_live_and_expires_gone(home: Path) -> None:
    service = FakeService()
    seen: list[Task] = []
    async with make_client(service) as client:
        tasks = await resume(client, on_task=seen.append, wait=True)

    assert sorted(t.id for t in tasks) == ["t-gone", "t-live"]
    assert seen == tasks
    assert "/api/v1/result/t-other" not in service.calls  # other service: not touched
    assert "/api/v1/result/t-done" not in service.calls  # finished: not touched

    store = Ledger(home)
    live = store.item("task", "t-live")
    assert live is not None
    assert live["status"] == "completed"
    assert live["remote_url"] == "https://cdn.test/t-live.png"
    assert live["local_file"] is not None
    assert Path(live["local_file"]).read_bytes() == PNG  # noqa: ASYNC240 - tiny test file
    assert store.cached_media("t-live") == live["local_file"]

    gone = store.item("task", "t-gone")
    assert gone is not None
    assert (gone["status"], gone["error"]) == ("failed", EXPIRED_ERROR)
    assert service.calls["/api/v1/result/t-gone"] == 1  # not retried forever

    assert [p.task_id for p in unfinished()] == ["t-other"]


def _completed_unkept(home: Path, key: str, *, url_age_s: float) -> None:
    """A completed task whose result URL was seen ``url_age_s`` ago but never downloaded."""
    store = Ledger(home, origin="previous-kernel")
    created(store, key)
    url = f"https://cdn.test/{key}.png"
    store.record(LedgerEvent(kind="task", action="completed", key=key, data={"url": url}))
    store.close()
    if url_age_s:
        with sqlite3.connect(store.db_path) as conn:
            conn.execute(
                "UPDATE items SET url_expires = url_expires - ? WHERE key = ?", (url_age_s, key)
            )
        conn.close()


async def test_resume_keeps_results_the_dead_kernel_saw_but_did_not_store(home: Path) -> None:
    _completed_unkept(home, "t-seen", url_age_s=0)
    _completed_unkept(home, "t-stale", url_age_s=2 * 86_400)  # URL long expired
    assert {p.task_id for p in unfinished(include_unkept=True)} >= {"t-seen"}
    assert "t-stale" not in {p.task_id for p in unfinished(include_unkept=True)}
    service = FakeService()
    async with make_client(service) as client:
        tasks = await resume(client, wait=True)
    assert sorted(t.id for t in tasks) == ["t-gone", "t-live", "t-seen"]
    seen = Ledger(home).item("task", "t-seen")
    assert seen is not None
    assert seen["status"] == "completed"
    assert Path(seen["local_file"]).read_bytes() == PNG  # noqa: ASYNC240 - tiny test file
    assert "/api/v1/result/t-stale" not in service.calls  # nothing to fetch any more
    assert "t-seen" not in {p.task_id for p in unfinished(include_unkept=True)}


async def test_resume_returns_at_once_and_polls_in_background(home: Path) -> None:
    service = FakeService()
    cards: list[Task] = []
    async with make_client(service) as client:
        tasks = await resume(client, on_task=cards.append)
        assert {t.id for t in tasks} == {"t-live", "t-gone"}
        live = next(t for t in tasks if t.id == "t-live")
        assert not live.done  # nothing polled yet: resume did not block on it
        again = await resume(client, on_task=cards.append, wait=True)
        assert {id(t) for t in again} == {id(t) for t in tasks}  # same handles, no 2nd poller
        assert live.done
    assert len(cards) == 2
    assert service.calls["/api/v1/result/t-live"] == 2
    item = Ledger(home).item("task", "t-live")
    assert item is not None
    assert item["status"] == "completed"
    assert [p.task_id for p in unfinished()] == ["t-other"]


async def test_tasks_of_this_process_are_left_to_their_own_poller(home: Path) -> None:
    Ledger(home).record(
        LedgerEvent(
            kind="task",
            action="created",
            key="t-mine",
            family="image2",
            model="gpt-image-2",
            service=SERVICE,
        )
    )
    assert "t-mine" not in [p.task_id for p in unfinished(include_this_process=False)]
    service = FakeService()
    async with make_client(service) as client:
        tasks = await resume(client, wait=True)
        assert "t-mine" not in [t.id for t in tasks]
        assert "/api/v1/result/t-mine" not in service.calls
        tasks = await resume(client, wait=True, include_this_process=True)
    assert [t.id for t in tasks] == ["t-mine"]
    assert service.calls["/api/v1/result/t-mine"] == 1
    mine = Ledger(home).item("task", "t-mine")
    assert mine is not None
    assert mine["status"] == "completed"


async def test_nothing_to_resume_on_another_service(home: Path) -> None:
    service = FakeService()
    client = AsyncClient(
        api_key="sk-test-resume",
        base_url="http://third.test/api",
        text_base_url="http://third.test/gateway",
        transport=httpx2.MockTransport(service),
        sleep=no_sleep,
    )
    async with client:
        assert await resume(client, wait=True) == []
    assert not service.calls


async def test_resume_leaves_tasks_a_live_kernel_is_polling(home: Path, dead_pid: int) -> None:
    import os

    for key, origin in (("t-busy", f"{os.getpid()}-other-kernel"), ("t-orphan", f"{dead_pid}-x")):
        store = Ledger(home, origin=origin)
        created(store, key)
        store.close()
    service = FakeService()
    async with make_client(service) as client:
        tasks = await resume(client, wait=True)
    # the live kernel keeps its task; the dead one's is taken over
    assert sorted(t.id for t in tasks) == ["t-gone", "t-live", "t-orphan"]
    assert "/api/v1/result/t-busy" not in service.calls
