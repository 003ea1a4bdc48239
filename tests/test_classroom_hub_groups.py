"""A restarted gateway still knows each JupyterHub student's group (and so their limits)
before they sign in again: the groups live in the class ledger, SQLite and PostgreSQL, whose
older files gain the column. The hub is a stand-in serving ``/hub/api/user`` on loopback."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb.classroom import ClassroomHandle, Limits, SqliteClassLedger, start_classroom
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._hub import HubAuth
from mediagen_nb.classroom._ledger import DB_NAME
from mediagen_nb.classroom._rules import parse_group_limits
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import student, upstream_of

TOKEN = "tok-ann-5c1e9a"
GROUPS = parse_group_limits("teachers=unlimited,class-7b=images:1")


@contextmanager
def stand_in_hub(users: dict[str, tuple[str, list[str]]]) -> Iterator[str]:
    """JupyterHub's ``GET /hub/api/user`` on 127.0.0.1 (token -> name, groups); its API URL."""

    async def user(request: Request) -> JSONResponse:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme != "token" or token not in users:
            return JSONResponse({"status": 403, "message": "Forbidden"}, status_code=403)
        name, groups = users[token]
        return JSONResponse({"kind": "user", "name": name, "groups": groups})

    app = Starlette(routes=[Route("/hub/api/user", user)])
    server, thread, port = serve_in_thread(app, "127.0.0.1", 0, what="stand-in hub")
    try:
        yield f"http://127.0.0.1:{port}/hub/api"
    finally:
        server.should_exit = True
        thread.join(10)


def _ann_images_cap(rows: list[dict[str, object]]) -> object:
    (row,) = [r for r in rows if r["student"] == "ann"]
    limits = row["limits"]
    assert isinstance(limits, dict)
    return limits["images"]


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
async def test_a_restart_keeps_each_hub_students_group(
    store: str, tmp_path: Path, marker_emulator: EmulatorHandle, request: pytest.FixtureRequest
) -> None:
    ledger = request.getfixturevalue("postgres_dsn") if store == "postgresql" else None
    users = {TOKEN: ("ann", ["class-7b"])}

    def gateway(hub: HubAuth) -> ClassroomHandle:
        return start_classroom(
            limits=Limits(images=3),
            group_limits=GROUPS,
            jupyterhub=hub,
            ledger=ledger,
            upstream=upstream_of(marker_emulator),
            folder=tmp_path / "hub",
        )

    with stand_in_hub(users) as api_url:
        with gateway(HubAuth(api_url)) as room:
            async with student(room, TOKEN) as ann:
                await (await ann.images.create("nano-banana", prompt="one")).wait()
            assert _ann_images_cap(room.usage()) == 1

        restarted = HubAuth(api_url)
        with gateway(restarted) as room:
            assert _ann_images_cap(room.usage()) == 1  # class-7b's, not the class's 3
            assert restarted.lookups == 0  # from the ledger: the hub was not asked
            async with student(room, TOKEN) as ann:
                refused = await ann.images.create("nano-banana", prompt="two")
            assert refused.status == "failed"
            assert refused.error == "your class allows 1 image each; you have used 1"
            assert restarted.lookups == 1

        with gateway(HubAuth(api_url)) as room:
            assert _ann_images_cap(room.usage()) == 1
            users[TOKEN] = ("ann", ["teachers"])  # the hub moves ann to another group
            async with student(room, TOKEN) as ann:
                assert (await ann.classroom.me()).limits.images is None  # teachers: unlimited
            assert _ann_images_cap(room.usage()) is None

        with gateway(HubAuth(api_url)) as room:
            assert _ann_images_cap(room.usage()) is None  # the move was kept


def test_an_older_sqlite_ledger_gains_the_groups_column(tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as conn, conn:
        conn.execute(
            "CREATE TABLE students (name TEXT PRIMARY KEY, code TEXT, "
            "revoked INTEGER NOT NULL DEFAULT 0, enrolled REAL NOT NULL)"
        )
        conn.execute("INSERT INTO students VALUES ('ann', NULL, 0, 1.0), ('Bob', 'c0de', 0, 2.0)")
    ledger = SqliteClassLedger(tmp_path)
    try:
        assert ledger.hub_groups() == {}
        assert [s.name for s in ledger.load().students] == ["ann", "Bob"]
        ledger.save_hub_groups("ann", ["class-7b", "art"])
        ledger.save_hub_groups("Bob", [])
        ledger.save_student(Student("ann", None))  # a later save keeps the groups
        assert ledger.hub_groups() == {"ann": ("class-7b", "art"), "bob": ()}
    finally:
        ledger.close()
