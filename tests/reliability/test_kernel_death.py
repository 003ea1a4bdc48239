"""Row 3: the kernel dies mid-poll (SIGKILL); a new one re-attaches every task; nothing is lost.

Three processes, as in real life: the emulator runs in its own process (``python -m
mediagen_nb.cli serve``), a child "kernel" (``_kernel.py``) configured only through
``MEDIAGEN_*`` variables creates tasks of every family and polls them, and is killed with
``SIGKILL`` right after one of its polls saw a result (others still running: the worst
moment, between recording the completion and keeping the media). The test process then plays
the restarted kernel: it opens the same history, lists what is unfinished and calls
``resume(..., wait=True)``. Pass when every task the dead kernel created is in the history,
every unfinished one was re-attached and finished there, and every completed result has its
media file in the cache (valid PNG / MP4).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb.client import AsyncClient
from mediagen_nb.history import Ledger, resume, unfinished
from tests._support import KEY
from tests.reliability._reliability import (
    HERE,
    ServedEmulator,
    child_env,
    is_mp4,
    is_png,
    report,
    scale,
    serve_emulator,
)

TASKS = scale("kernel_tasks", 22)
SPEED = 40.0
"""Videos take 3-12 s here (polled every 0.75 s); images finish in about a second."""
STARTUP_LIMIT_S = 60.0


def _run_until_mid_poll(served: ServedEmulator, home: Path) -> tuple[list[str], str]:
    """Start the kernel, wait for the first poll that saw a result, SIGKILL it at once.

    Returns the ids it reported as created and the line it was killed after.
    """
    env = child_env(
        home,
        MEDIAGEN_API_KEY=served.api_key,
        MEDIAGEN_BASE_URL=served.base_url,
        MEDIAGEN_TEXT_BASE_URL=served.text_base_url,
    )
    kernel = subprocess.Popen(
        [sys.executable, str(HERE / "_kernel.py"), "--tasks", str(TASKS), "--prefix", "dying"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert kernel.stdout is not None
    created: list[str] = []
    last = ""
    deadline = time.monotonic() + STARTUP_LIMIT_S
    try:
        while time.monotonic() < deadline:
            line = kernel.stdout.readline().strip()
            if not line:
                break
            if line.startswith("created "):
                created.append(line.split()[1])
            if line.startswith("polled ") and line.split()[2] == "completed":
                # the worst moment: a result was seen but not yet kept (others still run)
                last = line
                break
    finally:
        os.kill(kernel.pid, signal.SIGKILL)
        kernel.wait(timeout=30)
        kernel.stdout.close()
    assert kernel.returncode == -signal.SIGKILL
    assert last, "the kernel never reported a poll of a running task"
    return created, last


@dataclass(frozen=True)
class Aftermath:
    """What the dead kernel left and what the restarted one made of it."""

    created: list[str]
    killed_after: str
    integrity: str
    at_death: dict[str, dict[str, Any]]
    pending: list[str]
    resumed: list[str]
    rows: dict[str, dict[str, Any]]
    unfinished_after: int


@pytest.fixture(scope="module")
def aftermath(tmp_path_factory: pytest.TempPathFactory) -> Aftermath:
    """Run the kernel, kill it just after a poll saw a result, resume in this process."""
    home = tmp_path_factory.mktemp("kernel_death") / "home"
    served = serve_emulator(KEY, SPEED, "--seed", "17")
    try:
        created, last = _run_until_mid_poll(served, home)
        integrity = _integrity(home)
        pending = [p.task_id for p in unfinished(home)]
        store = Ledger(home)
        at_death = {row["key"]: row for row in store.items(kind="task")}

        async def restart() -> list[str]:
            async with AsyncClient(
                served.api_key, served.base_url, served.text_base_url, recorder=store
            ) as client:
                return [t.id for t in await resume(client, home=home, wait=True)]

        resumed = asyncio.run(restart())
        rows = {row["key"]: row for row in store.items(kind="task")}
        store.close()
    finally:
        served.stop()
    result = Aftermath(
        created=created,
        killed_after=last,
        integrity=integrity,
        at_death=at_death,
        pending=pending,
        resumed=resumed,
        rows=rows,
        unfinished_after=len(unfinished(home)),
    )
    report(
        "row 3 kernel death",
        tasks=TASKS,
        killed_after=" ".join(last.split()[::2]),
        unfinished_at_death=len(pending),
        completed_at_death=len(_completed(at_death)),
        completed_at_death_without_media=len(_without_media(at_death)),
        resumed=len(resumed),
        final=dict(Counter(row["status"] for row in rows.values())),
        completed_without_media_after_resume=len(_without_media(rows)),
        integrity=integrity,
    )
    return result


def test_every_task_survives_the_kill(aftermath: Aftermath) -> None:
    assert aftermath.integrity == "ok"
    assert len(aftermath.created) == TASKS
    # nothing lost at the moment of death: every created task has its row
    assert set(aftermath.created) <= set(aftermath.at_death)
    assert aftermath.pending, "no task was left running: the kill came too late"
    running = {k for k, r in aftermath.at_death.items() if r["status"] in UNFINISHED}
    assert set(aftermath.pending) == running


def test_resume_finishes_every_unfinished_task(aftermath: Aftermath) -> None:
    # unfinished tasks, plus completed ones whose result the dead kernel had not yet stored
    assert set(aftermath.resumed) == set(aftermath.pending) | set(
        _without_media(aftermath.at_death)
    )
    assert set(aftermath.rows) == set(aftermath.created)
    assert all(row["status"] in ("completed", "failed") for row in aftermath.rows.values())
    assert aftermath.unfinished_after == 0
    # every task the new kernel finished has its result in the media cache
    resumed = {k: r for k, r in aftermath.rows.items() if k in set(aftermath.resumed)}
    assert _completed(resumed)
    assert not _without_media(resumed)


def test_results_seen_just_before_death_are_kept(aftermath: Aftermath) -> None:
    unkept = _without_media(aftermath.at_death)
    if not unkept:
        pytest.skip("the kernel kept every result before it died; nothing to check")
    assert not _without_media({k: aftermath.rows[k] for k in unkept})


def _completed(rows: dict[str, dict[str, Any]]) -> list[str]:
    return [k for k, r in rows.items() if r["status"] == "completed"]


def _without_media(rows: dict[str, dict[str, Any]]) -> list[str]:
    """Completed tasks whose media file is missing or not a valid PNG / MP4."""
    bad: list[str] = []
    for key in _completed(rows):
        local = rows[key].get("local_file")
        path = Path(str(local)) if local else None
        if path is None or not path.is_file():
            bad.append(key)
            continue
        data = path.read_bytes()
        if not (is_png(data) if key.startswith("img_") else is_mp4(data)):
            bad.append(key)
    return bad


UNFINISHED = ("queued", "processing")


def _integrity(home: Path) -> str:
    conn = sqlite3.connect(home / "history.sqlite3")
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()
