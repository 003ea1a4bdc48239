"""Three gateway processes on one PostgreSQL ledger; one is SIGKILLed in the middle of a class.

One emulator upstream, behind a proxy that records every result poll and the gateway that
sent it, is shared by three ``mediagen-nb classroom --ledger postgresql://...`` processes
on one class folder. Students use the gateways in turn, with no sticky sessions. The
budgets hold exactly as on one gateway; after the kill, every task the dead gateway
followed completes through another, no task is ever polled by two gateways at once, and
nothing is lost or counted twice.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.classroom import PostgresClassLedger
from mediagen_nb.emulator import EmulatorHandle, start_emulator
from tests._classroom_helpers import MARKER_KEY
from tests._gateway_procs import GatewayProcess, RecordingProxy

LEASE_S = 1.0
SPEED = 10.0
"""Images take 1-4 s and are polled every 0.2 s: a lease is several polls."""
STUDENTS = 6
IMAGES_EACH = 2
TRIES_EACH = 5


@pytest.fixture
def upstream() -> Iterator[tuple[EmulatorHandle, RecordingProxy]]:
    with start_emulator(speed=SPEED, api_key=MARKER_KEY, seed=31) as emulator:
        proxy = RecordingProxy(emulator.base_url.removesuffix("/api"))
        proxy.start()
        try:
            yield emulator, proxy
        finally:
            proxy.stop()


@pytest.fixture
def gateways(
    postgres_dsn: str, upstream: tuple[EmulatorHandle, RecordingProxy], tmp_path: Path
) -> Iterator[list[GatewayProcess]]:
    """Three gateway processes, started one after the other (the first enrols the class)."""
    _, proxy = upstream
    env = {
        "MEDIAGEN_HOME": str(tmp_path / "home"),
        "MEDIAGEN_API_KEY": MARKER_KEY,
        "MEDIAGEN_BASE_URL": proxy.url + "/api",
        "MEDIAGEN_TEXT_BASE_URL": proxy.url + "/gateway",
    }
    common = ["--ledger", postgres_dsn, "--lease", str(LEASE_S), "--folder", str(tmp_path)]
    common += ["--upstream", "service", "--port", "0"]
    first = ["--students", str(STUDENTS), "--images", str(IMAGES_EACH)]
    started: list[GatewayProcess] = []
    try:
        for n, extra in enumerate((first, [], [])):
            started.append(GatewayProcess([*common, *extra], env, tmp_path / f"gw{n}.log"))
        yield started
    finally:
        for gateway in started:
            gateway.stop()


def _codes(dsn: str) -> list[str]:
    ledger = PostgresClassLedger(dsn)
    try:
        return [str(s.code) for s in ledger.load().students]
    finally:
        ledger.close()


async def _create(http: httpx2.AsyncClient, gateway: GatewayProcess, code: str) -> str | None:
    answer = await http.post(
        gateway.base_url + "/v1/banana/images",
        json={"model": "nano-banana", "prompt": "a lighthouse at dusk"},
        headers={"authorization": f"Bearer {code}"},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    return None if body["status"] == "failed" else str(body["id"])


async def _until_completed(
    http: httpx2.AsyncClient, gateways: list[GatewayProcess], code: str, task: str
) -> dict[str, object]:
    """Poll through the gateways in turn (as a student with no sticky session would)."""
    for gateway in itertools.cycle(gateways):
        answer = await http.get(
            gateway.base_url + f"/v1/result/{task}", headers={"authorization": f"Bearer {code}"}
        )
        assert answer.status_code == 200, answer.text
        body: dict[str, object] = answer.json()
        if body["status"] in ("completed", "failed", "cancelled"):
            return body
        await asyncio.sleep(0.1)
    raise AssertionError("unreachable")


async def test_a_killed_gateways_tasks_complete_through_the_others(
    gateways: list[GatewayProcess],
    upstream: tuple[EmulatorHandle, RecordingProxy],
    postgres_dsn: str,
) -> None:
    emulator, proxy = upstream
    victim, survivors = gateways[0], gateways[1:]
    codes = _codes(postgres_dsn)
    assert len(codes) == STUDENTS
    async with httpx2.AsyncClient(timeout=60) as http:
        # Every student tries 5 images at once, through every gateway in turn: 2 each pass.
        tries = [(code, gateways[(n + k) % 3]) for n, code in enumerate(codes) for k in range(5)]
        made = await asyncio.gather(*(_create(http, gw, code) for code, gw in tries))
        tasks = {task: (code, gw) for task, (code, gw) in zip(made, tries, strict=True) if task}
        per_student = Counter(code for code, _ in tasks.values())
        assert per_student == dict.fromkeys(codes, IMAGES_EACH)
        assert emulator.state.counters["tasks_created"] == STUDENTS * IMAGES_EACH
        orphans = [task for task, (_, gw) in tasks.items() if gw is victim]
        assert orphans  # the victim follows some of the class's tasks

        # Kill the victim once it has polled one of its tasks (the class is under way).
        deadline = time.monotonic() + 30
        while victim.holder not in {p.gateway for p in proxy.polls}:
            assert time.monotonic() < deadline, "the victim never polled"
            await asyncio.sleep(0.02)
        victim.kill()
        killed_at = time.monotonic()

        results = await asyncio.gather(
            *(_until_completed(http, survivors, tasks[t][0], t) for t in tasks)
        )
        assert [r["status"] for r in results] == ["completed"] * len(tasks)
        for result in results:
            for gateway in survivors:  # the media are in the shared folder
                name = str(result["image_url"]).rsplit("/", 1)[1]
                media = await http.get(gateway.base_url + f"/media/{name}")
                assert media.status_code == 200, media.text
                assert media.headers["content-type"] == "image/png"

    # No task polled by two gateways at once; each followed by one gateway, then (the
    # victim's, after the kill) by exactly one other.
    assert emulator.state.counters["poll_too_fast"] == 0
    assert all(proxy.most_at_once[task] == 1 for task in tasks)
    taken_over = []
    heirs = {gw.holder for gw in survivors}
    for task, (_, created_on) in tasks.items():
        runs = [who for who, _ in itertools.groupby(proxy.pollers(task))]
        assert len(runs) == len(set(runs)), f"{task} went back and forth: {runs}"
        assert runs[0] == created_on.holder or created_on is victim, runs
        assert victim.holder not in runs[1:], runs  # (a gateway stalled for a whole lease
        assert set(runs) <= heirs | {victim.holder}  # may hand a task to another)
        if created_on is victim and runs != [victim.holder]:
            first = min(p.start for p in proxy.polls if p.task == task and p.gateway in heirs)
            taken_over.append(first - killed_at)
    assert all(p.end <= killed_at + 0.5 for p in proxy.polls if p.gateway == victim.holder)
    print(f"taken over: {len(taken_over)} of {len(orphans)}; after {max(taken_over or [0]):.2f} s")

    # Nothing lost or counted twice: the ledger has each task once, done, and holds nothing.
    ledger = PostgresClassLedger(postgres_dsn)
    try:
        assert ledger.held() == []
        stored = {t.id: t for t in ledger.load().tasks if not t.refused}
        assert sorted(stored) == sorted(tasks)
        assert {t.status for t in stored.values()} == {"completed"}
        assert ledger.usage().images == STUDENTS * IMAGES_EACH
        assert ledger.usage().in_flight == 0
        created = Counter(e["key"] for e in ledger.events() if e["action"] == "created")
        assert created == dict.fromkeys(tasks, 1)
    finally:
        ledger.close()
