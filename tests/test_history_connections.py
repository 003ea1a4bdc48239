"""Every SQLite connection is closed by whoever opened it, on every Python.

Python 3.13 warns (``ResourceWarning``) about a connection collected while open, and pytest
turns that into a failure of whichever test runs at that moment; the same leak is a file
handle per history in a long kernel. These tests watch ``sqlite3.connect`` itself: every
connection the history, its backups and imports, and the classroom's ledger open must be
closed once what opened it is done (closed, replaced, collected, or failed to start).
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediagen_nb.history._ledger as ledger_module
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.classroom._ledger import DB_NAME, SqliteClassLedger
from mediagen_nb.history import Ledger, export_history, history_records, import_history, ledger

EVENT = LedgerEvent(kind="task", action="created", key="task_c1", data={"status": "queued"})


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[sqlite3.Connection]]:
    """Every connection ``sqlite3.connect`` makes while the test runs."""
    made: list[sqlite3.Connection] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = real(*args, **kwargs)
        made.append(conn)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield made
    for conn in made:  # whatever the test left, so the fixture itself leaks nothing
        conn.close()


def is_open(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return False
    return True


def test_a_ledger_dropped_without_close_closes_its_connections(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    store = Ledger(tmp_path / "a")
    store.record(EVENT)
    store.use_memory("a test: the file is set aside")  # the in-memory fallback, too
    store.record(EVENT)
    # the file, the fallback, and the read-only copy that seeds it (closed at once)
    assert [is_open(conn) for conn in opened] == [True, True, False]
    del store
    gc.collect()
    assert [is_open(conn) for conn in opened] == [False, False, False]


def test_the_default_ledger_closes_when_the_home_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: list[sqlite3.Connection]
) -> None:
    homes = [tmp_path / name for name in ("one", "two", "three")]
    for home in homes:
        monkeypatch.setenv("MEDIAGEN_HOME", str(home))
        ledger().record(EVENT)
    current = ledger()
    assert [is_open(conn) for conn in opened] == [False, False, True]
    assert current.home == homes[-1]
    assert len(current.items()) == 1  # the current one still works
    current.close()
    ledger_module._default = None


def test_backups_imports_and_reads_of_a_folder_leave_nothing_open(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    source = Ledger(tmp_path / "source")
    source.record(EVENT)
    source.close()
    saved = export_history(tmp_path / "h.json", home=tmp_path / "source")
    assert import_history(saved, home=tmp_path / "target") == 1
    assert len(history_records(home=tmp_path / "target")) == 1
    gc.collect()
    assert opened != []
    assert [conn for conn in opened if is_open(conn)] == []


def test_a_classroom_ledger_that_cannot_start_leaves_no_connection(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    (tmp_path / DB_NAME).write_bytes(b"not a database, " * 64)
    with pytest.raises(sqlite3.DatabaseError):
        SqliteClassLedger(tmp_path)
    assert len(opened) == 1
    assert not is_open(opened[0])
    working = SqliteClassLedger(tmp_path / "fresh")
    working.close()
    assert not is_open(opened[1])


def test_a_classroom_ledger_dropped_without_close_closes_its_file(
    tmp_path: Path, opened: list[sqlite3.Connection]
) -> None:
    SqliteClassLedger(tmp_path)  # dropped at once, never closed
    gc.collect()
    assert len(opened) == 1
    assert not is_open(opened[0])
