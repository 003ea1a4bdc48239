"""Row 8: two kernels writing the same history at once lose and corrupt nothing.

Two child processes (``_kernel.py``), each a full client configured from ``MEDIAGEN_*`` and
recording into the same ``MEDIAGEN_HOME``, run against one emulator on loopback: each creates
tasks of every family and streams chat turns. The second starts once the first is polling and
first calls ``resume`` (as ``Studio`` does): it must leave the first one's running tasks to
the first (a live kernel polling them; a second poller would double the requests). Both
write to one database at the same time. Pass when the database is intact, every task and
chat turn of both has exactly one row with its final status and text, each task has exactly
one ``created`` event, and every completed result has its media.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import IO, Any

import pytest

from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.history import Ledger
from tests._support import KEY
from tests.reliability._reliability import HERE, child_env, is_mp4, is_png, report, scale

TASKS = scale("kernel_tasks", 22)
CHATS = scale("kernel_chats", 4)
RUN_LIMIT_S = 180.0


pytestmark = [
    pytest.mark.usefixtures("fast_render"),
    pytest.mark.emulator(speed=60.0, api_key=KEY, seed=29),
]


def _kernel(
    emulator: EmulatorHandle, home: Path, prefix: str, *extra: str
) -> subprocess.Popen[str]:
    env = child_env(
        home,
        MEDIAGEN_API_KEY=emulator.api_key,
        MEDIAGEN_BASE_URL=emulator.base_url,
        MEDIAGEN_TEXT_BASE_URL=emulator.text_base_url,
    )
    command = [sys.executable, str(HERE / "_kernel.py"), "--tasks", str(TASKS)]
    command += ["--chats", str(CHATS), "--prefix", prefix, *extra]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _read_until(stream: IO[str], prefix: str, limit: float) -> list[str]:
    lines: list[str] = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith(prefix):
            return lines
    raise AssertionError(f"no {prefix!r} line; got {lines[-5:]}")


def _finish(kernel: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = kernel.communicate(timeout=RUN_LIMIT_S)
    assert kernel.returncode == 0, err[-3000:]
    done = [line for line in out.splitlines() if line.startswith("done ")]
    assert done, out[-2000:]
    result: dict[str, Any] = json.loads(done[-1][len("done ") :])
    return result


def test_two_kernels_share_one_history(emulator: EmulatorHandle, tmp_path: Path) -> None:
    home = tmp_path / "shared_home"
    first = _kernel(emulator, home, "kernel-a")
    assert first.stdout is not None
    _read_until(first.stdout, "polling", RUN_LIMIT_S)
    second = _kernel(emulator, home, "kernel-b", "--resume")
    b = _finish(second)
    a = _finish(first)

    integrity, events, created_events = _database_facts(home)
    store = Ledger(home)
    tasks = {row["key"]: row for row in store.items(kind="task")}
    chats = {row["key"]: row for row in store.items(kind="chat")}
    store.close()
    expected_tasks = {**a["tasks"], **b["tasks"]}
    expected_chats = {**a["chats"], **b["chats"]}
    unkept = _without_media(tasks)
    report(
        "row 8 two kernels",
        kernels=2,
        tasks=len(expected_tasks),
        chats=len(expected_chats),
        resumed_by_second=len(b["resumed"]),
        task_rows=len(tasks),
        chat_rows=len(chats),
        events=events,
        task_statuses=dict(Counter(r["status"] for r in tasks.values())),
        ledger_busy_retries=a["ledger_retries"] + b["ledger_retries"],
        poll_too_fast=emulator.state.counters["poll_too_fast"],
        completed_without_media=len(unkept),
        integrity=integrity,
    )
    assert integrity == "ok"
    assert len(expected_tasks) == 2 * TASKS
    assert len(expected_chats) == 2 * CHATS
    assert not b["resumed"], "the second kernel polled tasks the live first one was polling"
    # exactly one row per task and per chat turn, with the final status the kernel saw
    assert set(tasks) == set(expected_tasks)
    assert {k: r["status"] for k, r in tasks.items()} == expected_tasks
    assert set(chats) == set(expected_chats)
    assert {k: r["status"] for k, r in chats.items()} == expected_chats
    assert all(r["text"] for r in chats.values())
    assert created_events == dict.fromkeys(expected_tasks, 1)
    assert not unkept, unkept


def _database_facts(home: Path) -> tuple[str, int, dict[str, int]]:
    """Integrity check, number of events, and ``created`` events per task."""
    conn = sqlite3.connect(home / "history.sqlite3")
    try:
        integrity = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
        events = int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        created = dict(
            conn.execute(
                "SELECT key, COUNT(*) FROM events WHERE kind = 'task' AND action = 'created'"
                " GROUP BY key"
            ).fetchall()
        )
    finally:
        conn.close()
    return integrity, events, created


def _without_media(rows: dict[str, dict[str, Any]]) -> list[str]:
    bad: list[str] = []
    for key, row in rows.items():
        if row["status"] != "completed":
            continue
        local = row.get("local_file")
        path = Path(str(local)) if local else None
        if path is None or not path.is_file():
            bad.append(key)
            continue
        data = path.read_bytes()
        if not (is_png(data) if key.startswith("img_") else is_mp4(data)):
            bad.append(key)
    return bad
