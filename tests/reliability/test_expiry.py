"""Row 5: result URLs expire, yet every completed result in the history still opens from cache.

One task per family runs to completion against the emulator (speed 100) on a clock the test
moves by hand, shared by the emulator and the client's sleep, so a day of URL lifetime passes
in no wall time. Then the clock jumps past one service day (image2, vidu and sd2 URLs answer
410, seedance records are gone: 404) and past two (every URL gone). Pass when, at each stage,
every completed row of the history has its media file (a valid PNG or MP4), the client reads a
re-attached task's bytes from that cache without touching the expired URL, and the history
panel shows image thumbnails from it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.client import AsyncClient, Task, TaskFailedError
from mediagen_nb.emulator import create_app
from mediagen_nb.history import Ledger
from mediagen_nb.widgets import HistoryPanel, Session
from tests._support import KEY, FakeClock
from tests.reliability._reliability import ORDERS, is_mp4, is_png, report

BASE = "http://emulator.test/api"
TEXT = "http://emulator.test/gateway"
SPEED = 100.0
DAY = 86_400.0
SHORT_LIVED = {"image2", "vidu", "sd2_manxue"}
"""Families whose URL lifetime (1 day; sd2 1 hour) ends before their record (2 days): 410."""


@dataclass
class World:
    clock: FakeClock
    transport: httpx2.ASGITransport
    client: AsyncClient
    store: Ledger
    home: Path


@pytest.fixture
async def world(tmp_path: Path, fast_render: object) -> AsyncIterator[World]:
    clock = FakeClock()
    app = create_app(api_key=KEY, speed=SPEED, clock=clock, seed=21)
    transport = httpx2.ASGITransport(app=app)
    home = tmp_path / "history"
    store = Ledger(home)
    async with AsyncClient(
        KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=store
    ) as client:
        yield World(clock, transport, client, store, home)
    store.close()


async def _url_statuses(world: World, rows: list[dict[str, object]]) -> dict[str, int]:
    """HTTP status the emulator gives each completed row's result URL now (by family)."""
    async with httpx2.AsyncClient(transport=world.transport) as raw:
        return {
            str(row["family"]): (await raw.get(str(row["remote_url"]))).status_code for row in rows
        }


def _opens_from_cache(rows: list[dict[str, object]]) -> list[str]:
    """Families whose completed row has no valid media file."""
    bad = []
    for row in rows:
        local = row.get("local_file")
        path = Path(str(local)) if local else None
        if path is None or not path.is_file():
            bad.append(str(row["family"]))
            continue
        data = path.read_bytes()
        ok = is_png(data) if str(row["key"]).startswith("img_") else is_mp4(data)
        if not ok:
            bad.append(str(row["family"]))
    return bad


async def _read_via_client(world: World, rows: list[dict[str, object]]) -> int:
    """Read every result through a re-attached task handle; return how many matched the file."""
    read = []
    for row in rows:
        task = world.client.tasks.attach(str(row["key"]), str(row["family"]), str(row["model"]))
        read.append(await task.read_bytes())
    return _matching_files(rows, read)


def _matching_files(rows: list[dict[str, object]], read: list[bytes]) -> int:
    return sum(
        data == Path(str(row["local_file"])).read_bytes()
        for row, data in zip(rows, read, strict=True)
    )


async def test_completed_results_outlive_their_urls(world: World) -> None:
    tasks: list[Task] = []
    for spec in ORDERS:
        resource = world.client.images if spec.kind == "image" else world.client.videos
        task = await resource.create(
            spec.model, family=spec.family, **spec.with_prompt(f"expiry {spec.family}")
        )
        try:
            await task.wait(timeout=DAY)
        except TaskFailedError:
            pytest.fail(f"{spec.family} failed: {task.error}")
        tasks.append(task)
    rows = world.store.items(kind="task", status="completed")
    assert {r["key"] for r in rows} == {t.id for t in tasks}
    fresh = await _url_statuses(world, rows)

    world.clock.advance(DAY / SPEED + 1.0)
    one_day = await _url_statuses(world, rows)
    bad_one_day = _opens_from_cache(rows)
    read_one_day = await _read_via_client(world, rows)

    world.clock.advance(DAY / SPEED + 1.0)
    two_days = await _url_statuses(world, rows)
    bad_two_days = _opens_from_cache(world.store.items(kind="task", status="completed"))
    read_two_days = await _read_via_client(world, rows)
    panel = HistoryPanel(session=Session(client=world.client), home=world.home, page_size=100)
    panel.set_values(scope="all")
    thumbs = [r for r in panel.rows if r["thumb"].startswith("data:image/")]
    panel.close()

    report(
        "row 5 url expiry",
        completed=len(rows),
        urls_after_1_day=dict(Counter(one_day.values())),
        urls_after_2_days=dict(Counter(two_days.values())),
        opened_from_cache=read_two_days,
        missing_or_invalid=len(bad_two_days),
    )
    assert set(fresh.values()) == {200}
    # after a service day: the short-lived URLs answer 410, seedance's record is gone (404)
    assert {one_day[f] for f in SHORT_LIVED} == {410}
    assert one_day["seedance"] == 404
    assert {s for f, s in one_day.items() if f not in SHORT_LIVED | {"seedance"}} == {200}
    # after two: nothing is served any more
    assert set(two_days.values()) <= {404, 410}
    # ...and every result still opens from the media cache
    assert bad_one_day == []
    assert bad_two_days == []
    assert read_one_day == len(rows)
    assert read_two_days == len(rows)
    images = [r for r in rows if str(r["key"]).startswith("img_")]
    assert len(thumbs) == len(images)
