"""Three gateways on one PostgreSQL ledger, in this process: budgets, sharing, leases.

Each test gets a fresh database on the session's real PostgreSQL server (``tests/_postgres``)
and three gateways started on it, one shared media folder, one emulator upstream. Students
use any gateway for any request (no sticky sessions); the budgets hold exactly as on one.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.classroom import (
    ClassroomHandle,
    Limits,
    PostgresClassLedger,
    Rules,
    TaskRecord,
    start_classroom,
)
from mediagen_nb.classroom._open import open_ledger
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import until, upstream_of

LEASE_S = 1.0
MESSAGES = [{"role": "user", "content": "Tell me a short story about a fox"}]


def auth(code: str) -> dict[str, str]:
    return {"authorization": f"Bearer {code}"}


def accepted(response: httpx2.Response) -> bool:
    return response.status_code == 200 and response.json()["status"] != "failed"


async def create(http: httpx2.AsyncClient, room: ClassroomHandle, code: str) -> httpx2.Response:
    return await http.post(
        room.base_url + "/v1/banana/images",
        json={"model": "nano-banana", "prompt": "a lighthouse"},
        headers=auth(code),
    )


@pytest.fixture
def rooms(
    postgres_dsn: str, marker_emulator: EmulatorHandle, tmp_path: Path
) -> Iterator[list[ClassroomHandle]]:
    """Three gateways on one database and one media folder (the first enrols 3 students)."""
    started: list[ClassroomHandle] = []
    try:
        for students in (3, 0, 0):
            started.append(
                start_classroom(
                    students,
                    class_code=True,
                    upstream=upstream_of(marker_emulator),
                    folder=tmp_path / "class",
                    ledger=postgres_dsn,
                    lease=LEASE_S,
                )
            )
        yield started
    finally:
        for room in started:
            room.stop()


def test_every_gateway_knows_the_class_it_joined(rooms: list[ClassroomHandle]) -> None:
    first, second, third = rooms
    assert len(first.codes) == 3
    assert second.codes == first.codes == third.codes
    assert second.class_code == first.class_code
    assert second.teacher_token == first.teacher_token
    assert not (first.folder / "classroom.sqlite3").exists()


async def test_concurrent_creates_on_three_gateways_never_pass_the_image_caps(
    rooms: list[ClassroomHandle], marker_emulator: EmulatorHandle
) -> None:
    """Row 1 across gateways: 60 creates at once, spread over three gateways and three
    students, 3 images each and 3 for the class (set on one gateway): exactly 3 accepted."""
    rooms[0].set_rules(Rules(limits=Limits(images=3), class_limits=Limits(images=3)))
    codes = list(rooms[0].codes.values())
    before = marker_emulator.state.counters["tasks_created"]
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(
            *(create(http, rooms[n % 3], codes[n % len(codes)]) for n in range(60))
        )
    assert [a.status_code for a in answers] == [200] * 60
    assert sum(accepted(a) for a in answers) == 3
    assert marker_emulator.state.counters["tasks_created"] - before == 3
    for room in rooms:
        assert room.state.ledger.usage().images == 3
    assert rooms[1].state.ledger.held() == []


async def test_one_students_cap_holds_across_gateways(rooms: list[ClassroomHandle]) -> None:
    """30 creates at once by one student allowed 2 images, through all three gateways."""
    rooms[2].set_rules(Rules(limits=Limits(images=2)))
    code = next(iter(rooms[0].codes.values()))
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(*(create(http, rooms[n % 3], code) for n in range(30)))
    assert sum(accepted(a) for a in answers) == 2


async def test_concurrent_chats_on_three_gateways_stay_within_one_reply(
    rooms: list[ClassroomHandle],
) -> None:
    """Row 3 across gateways: 45 chats at once on a 10-token budget."""
    rooms[1].set_rules(Rules(limits=Limits(chat_tokens=10)))
    code = next(iter(rooms[0].codes.values()))
    body = {"model": "gpt-5.4", "messages": MESSAGES, "max_tokens": 60}
    async with httpx2.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(
            *(
                http.post(
                    rooms[n % 3].text_base_url + "/v1/chat/completions",
                    json=body,
                    headers=auth(code),
                )
                for n in range(45)
            )
        )
    served = [a for a in answers if a.status_code == 200]
    assert len(served) >= 1
    assert {a.status_code for a in answers} <= {200, 403}
    replies = [e["tokens"] for e in rooms[0].state.ledger.events() if e["action"] == "chat_end"]
    assert len(replies) == len(served)
    used = rooms[2].state.ledger.usage().chat_tokens
    assert used == sum(replies)
    assert used <= 10 + max(replies)
    assert rooms[0].state.ledger.held() == []
    turns = rooms[1].state.ledger.chat_turns()  # the teacher reads every gateway's turns
    assert sorted(t.tokens for t in turns) == sorted(replies)


def shows(room: ClassroomHandle, ids: list[str]) -> Callable[[], bool]:
    """Whether the room's wall shows exactly the tasks ``ids``."""
    return lambda: [item["id"] for item in room.items()] == ids


async def test_a_student_moves_between_gateways_and_the_wall_follows(
    rooms: list[ClassroomHandle],
) -> None:
    """A name joins on one gateway, creates on the second, polls the third; the result and
    its media answer on every gateway, every wall shows it, a hide on one hides it on all."""
    first, second, third = rooms
    key = f"{first.class_code}:Zoe"
    async with httpx2.AsyncClient(timeout=30) as http:
        joined = await http.get(first.base_url + "/v1/result/none", headers=auth(key))
        assert joined.status_code == 404  # enrolled, no such task
        made = await create(http, second, key)
        assert accepted(made)
        task_id = made.json()["id"]
        status = ""
        while status != "completed":
            polled = await http.get(third.base_url + f"/v1/result/{task_id}", headers=auth(key))
            assert polled.status_code == 200
            status = polled.json()["status"]
            await asyncio.sleep(0.05)
        url = polled.json()["image_url"]
        name = url.rsplit("/", 1)[1]
        for room in rooms:
            media = await http.get(room.base_url + f"/media/{name}")
            assert media.status_code == 200
            assert media.headers["content-type"] == "image/png"
        other = await http.get(first.base_url + f"/v1/result/{task_id}", headers=auth(key))
        assert other.json()["status"] == "completed"
        for room in rooms:
            await until(shows(room, [task_id]))
        assert [row["images"] for row in third.usage() if row["student"] == "Zoe"] == [1]
        second.hide(task_id)
        for room in rooms:
            await until(shows(room, []))
        hidden = await http.get(first.base_url + f"/media/{name}")
        assert hidden.status_code == 404


async def test_pause_and_revoke_on_one_gateway_apply_on_all(
    rooms: list[ClassroomHandle],
) -> None:
    """The teacher pauses on one gateway: the next create on another is refused at once
    (the rules are read in the budget's transaction); a revoked code is refused everywhere."""
    first, second, third = rooms
    name, code = next(iter(first.codes.items()))
    first.pause()
    async with httpx2.AsyncClient(timeout=30) as http:
        refused = await create(http, second, code)
        assert refused.json()["status"] == "failed"
        assert "paused" in refused.json()["error"]
        first.resume()
        assert accepted(await create(http, third, code))
        first.revoke(name)

        async def turned_away() -> bool:
            answer = await http.get(third.base_url + "/v1/result/x", headers=auth(code))
            return answer.status_code == 401

        deadline = time.monotonic() + 30  # a tenth of a second when the machine is not busy
        while not await turned_away():
            assert time.monotonic() < deadline, "the revocation never reached the gateway"
            await asyncio.sleep(0.05)


async def test_prompt_rules_set_on_one_gateway_apply_on_all(
    rooms: list[ClassroomHandle],
) -> None:
    """A blocked word the teacher sets on one gateway refuses prompts on the others."""
    rooms[0].set_blocked(["volcano"])
    code = next(iter(rooms[0].codes.values()))
    body = {"model": "nano-banana", "prompt": "a Volcano at night"}
    async with httpx2.AsyncClient(timeout=30) as http:
        for room in rooms[1:]:
            deadline = time.monotonic() + 10
            while True:
                answer = await http.post(
                    room.base_url + "/v1/banana/images", json=body, headers=auth(code)
                )
                if answer.json()["status"] == "failed":
                    break
                assert time.monotonic() < deadline, "the rule never reached the gateway"
                await asyncio.sleep(0.05)
    assert rooms[2].blocked == ("volcano",)


def _running(n: int) -> TaskRecord:
    now = time.time()
    return TaskRecord(f"t{n}", "ada", "image", "banana", "nano-banana", "p", "processing", now, now)


def test_expired_leases_go_to_exactly_one_gateway(postgres_dsn: str) -> None:
    """A gateway's tasks stay its own while it renews; once its leases expire, two
    gateways claiming at once split them: each task claimed once, none twice, and the old
    holder can no longer renew."""
    holder = PostgresClassLedger(postgres_dsn, lease_s=LEASE_S, holder="gw-dead")
    others = [PostgresClassLedger(postgres_dsn, lease_s=LEASE_S) for _ in range(2)]
    try:
        for n in range(40):
            holder.save_task(_running(n))
        assert others[0].claim_leases() == []
        assert holder.renew_lease("t0")
        assert not others[0].renew_lease("t0")
        time.sleep(LEASE_S * 1.2)
        claimed: list[list[str]] = [[], []]

        def claim(i: int) -> None:
            for _ in range(10):
                claimed[i] += [t.id for t in others[i].claim_leases(limit=7)]

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(claimed[0] + claimed[1]) == sorted(f"t{n}" for n in range(40))
        assert not set(claimed[0]) & set(claimed[1])
        assert not holder.renew_lease("t0")
        done = _running(0)
        done.status = "completed"
        others[0].save_task(done)
        assert not any(ledger.renew_lease("t0") for ledger in others)
    finally:
        for ledger in (holder, *others):
            ledger.close()


def test_a_dead_gateways_reservations_are_given_back(postgres_dsn: str) -> None:
    """Reservations of a gateway silent for three leases stop counting (it died mid-create)."""
    from mediagen_nb.classroom._budget import Claim

    dead = PostgresClassLedger(postgres_dsn, lease_s=0.2, holder="gw-dead")
    alive = PostgresClassLedger(postgres_dsn, lease_s=0.2)
    try:
        rules = Rules(limits=Limits(images=1))
        assert not isinstance(dead.reserve(rules, Claim("ada", "image", 1)), str)
        assert isinstance(alive.reserve(rules, Claim("ada", "image", 1)), str)
        time.sleep(0.7)
        alive.claim_leases()
        assert alive.held() == []
        assert not isinstance(alive.reserve(rules, Claim("ada", "image", 1)), str)
    finally:
        dead.close()
        alive.close()


def test_a_ledger_url_must_be_postgresql(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="postgresql://") as caught:
        open_ledger("mysql://teacher:s3cret@db/class", tmp_path)
    assert "s3cret" not in str(caught.value)


def test_gateways_sharing_a_ledger_refuse_an_emulator_each(
    postgres_dsn: str, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="one upstream"):
        start_classroom(1, upstream="emulator", folder=tmp_path, ledger=postgres_dsn)


def test_a_gateway_stopping_hands_its_tasks_over_at_once(postgres_dsn: str) -> None:
    """A gateway that stops (not killed) gives its leases up: another claims them without
    waiting for them to expire."""
    stopping = PostgresClassLedger(postgres_dsn, lease_s=600)
    other = PostgresClassLedger(postgres_dsn, lease_s=600)
    try:
        for n in range(3):
            stopping.save_task(_running(n))
        assert other.claim_leases() == []
        stopping.release_leases()
        assert sorted(t.id for t in other.claim_leases()) == ["t0", "t1", "t2"]
        assert not stopping.renew_lease("t0")
    finally:
        stopping.close()
        other.close()
