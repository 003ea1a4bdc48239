"""The history never stops recording: odd text, poison events, a broken file, a long lock.

Each test states a property a user relies on: every event of the session shows in
``history()``; when the file cannot be used the user is told what happened and where (the
warning of ``history()``, the History panel's notice, the Studio bar); nothing is dropped
without a word.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history import HistoryUnavailableWarning, Ledger, history, ledger
from mediagen_nb.history import _ledger as ledger_module
from mediagen_nb.widgets import HistoryPanel, Studio
from mediagen_nb.widgets._session import Session


def turn(key: str, action: str = "completed", text: str = "hello") -> LedgerEvent:
    """A chat turn event whose answer is ``text``."""
    return LedgerEvent(kind="chat", action=action, key=key, model="m", data={"text": text})


class Unprintable:
    """Data no JSON encoder can turn into text."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")

    __repr__ = __str__


def keys(store: Ledger) -> set[str]:
    return {str(row["key"]) for row in store.items()}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Ledger]:
    led = Ledger(tmp_path / "home")
    yield led
    led.close()


# -- row 6: one odd character or one bad event never jams the history -------------------------


def test_lone_surrogate_is_recorded_and_later_events_follow(store: Ledger) -> None:
    store.record(turn("t1", text="half an emoji \ud83d"))
    store.record(turn("t2", text="after"))
    assert store.flush() == 0
    assert keys(store) == {"t1", "t2"}
    row = store.item("chat", "t1")
    assert row is not None
    assert row["text"].startswith("half an emoji ")
    assert "\ud83d" not in row["text"]
    assert store.problem is None


def test_surrogate_pair_becomes_its_character(store: Ledger) -> None:
    store.record(turn("pair", text="\ud83d\ude00"))
    row = store.item("chat", "pair")
    assert row is not None
    assert row["text"] == "\U0001f600"


def test_poison_event_is_visible_and_never_blocks_later_ones(store: Ledger) -> None:
    store.record(turn("ok1", action="started"))
    bad = LedgerEvent(kind="chat", action="completed", key="ok1", data={"text": Unprintable()})
    store.record(bad)
    store.record(turn("ok2"))
    assert store.flush() == 0
    assert keys(store) == {"ok1", "ok2"}
    actions = [event["action"] for event in store.events("ok1")]
    assert actions == ["started", "error"]
    row = store.item("chat", "ok1")
    assert row is not None
    assert "could not be recorded" in str(row["error"])


def test_backlog_is_written_at_interpreter_exit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    script = textwrap.dedent(
        f"""
        import sqlite3
        from mediagen_nb._hooks import LedgerEvent
        from mediagen_nb.history import Ledger
        led = Ledger({str(home)!r}, busy_timeout_s=0.01, max_wait_s=0.05)
        led.items()
        holder = sqlite3.connect({str(home / "history.sqlite3")!r}, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        led.record(LedgerEvent(kind="chat", action="completed", key="late", data={{}}))
        assert led.flush() == 1, "the lock should have kept the event waiting"
        holder.execute("COMMIT")
        holder.close()
        """
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=120)
    after = Ledger(home)
    assert keys(after) == {"late"}
    after.close()


# -- row 10: a file that cannot be used is said, and the session's rows stay visible ----------


def corrupt(db: Path) -> None:
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"this is not a database, just some bytes " * 200)


def truncate(db: Path) -> None:
    first = Ledger(db.parent)
    for n in range(200):
        first.record(turn(f"old{n}", text="x" * 500))
    first.close()
    for side in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        side.unlink(missing_ok=True)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])


def block_wal(db: Path) -> None:
    """SQLite cannot write beside the file: the WAL's name is taken by a folder."""
    db.parent.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(db).close()
    (db.parent / (db.name + "-wal")).mkdir()


def missing_dir(db: Path) -> None:
    """The home folder cannot be made: a file has its name."""
    db.parent.parent.mkdir(parents=True, exist_ok=True)
    db.parent.write_text("a file where the history folder should be")


BREAKERS: dict[str, Callable[[Path], None]] = {
    "corrupt": corrupt,
    "truncated": truncate,
    "unwritable": block_wal,
    "missing-dir": missing_dir,
}


@pytest.mark.parametrize("breaker", sorted(BREAKERS))
def test_broken_file_keeps_session_rows_and_says_where(breaker: str) -> None:
    home = Path(os.environ["MEDIAGEN_HOME"])
    BREAKERS[breaker](home / "history.sqlite3")
    store = ledger()
    store.record(turn("mine-1"))
    store.record(turn("mine-2"))
    with pytest.warns(HistoryUnavailableWarning, match="history.sqlite3") as caught:
        frame = history()
    assert {"mine-1", "mine-2"} <= set(frame["task_id"])
    assert str(home) in str(caught[0].message)
    assert frame.attrs["problem"] == store.problem


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """Make ``folder`` and its files read-only for this process, then writable again.

    Permission bits do not stop root (CI runs as root), so as root the files and the folder
    are made immutable (``chattr +i``), which stops root too.
    """
    paths = [*folder.iterdir(), folder]
    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a file read-only for root")
    subprocess.run(["chattr", "+i", *map(str, paths)], check=True)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=True)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_file_keeps_old_and_new_rows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = Ledger(home)
    first.record(turn("old"))
    first.close()
    with read_only(home):
        store = Ledger(home)
        store.record(turn("new"))
        assert keys(store) == {"old", "new"}
        assert store.problem is not None
        store.close()


def test_history_panel_and_studio_show_the_problem() -> None:
    home = Path(os.environ["MEDIAGEN_HOME"])
    corrupt(home / "history.sqlite3")
    ledger().record(turn("seen"))
    panel = HistoryPanel()
    panel.set_values(scope="all")
    assert "history.sqlite3" in panel.notice
    assert panel.notice_kind == "error"  # a real failure: an alert, not information
    assert ledger().problem_expected is False
    assert panel.frame is not None
    assert list(panel.frame["task_id"]) == ["seen"]
    studio = Studio(session=Session(), resume=False)
    assert "history.sqlite3" in studio.notice
    assert studio.notice_kind == "error"


def test_full_backlog_moves_to_memory_with_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger_module, "_BACKLOG_MAX", 5)
    store = Ledger(tmp_path / "home", busy_timeout_s=0.01, max_wait_s=0.02)
    store.items()
    holder = sqlite3.connect(store.db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        for n in range(8):
            store.record(turn(f"t{n}"))
        assert keys(store) == {f"t{n}" for n in range(8)}
        assert store.problem is not None
        assert "locked" in store.problem
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()


def test_file_usable_again_ends_the_fallback(tmp_path: Path) -> None:
    blocker = tmp_path / "home"
    blocker.write_text("not a folder")
    store = Ledger(blocker)
    store.record(turn("early"))
    assert store.problem is not None
    blocker.unlink()
    assert store.flush() == 0
    assert store.problem is None
    reread = Ledger(blocker)
    assert keys(reread) == {"early"}
    reread.close()
    store.close()
