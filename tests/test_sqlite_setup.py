"""Both ledgers (the history's and the classroom's) open SQLite the same way (``_sqlite``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mediagen_nb._sqlite import immediate, open_ledger
from mediagen_nb.classroom import SqliteClassLedger
from mediagen_nb.history import Ledger


def _settings(conn: sqlite3.Connection) -> tuple[str, int, int]:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    sync = conn.execute("PRAGMA synchronous").fetchone()[0]
    busy = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    return str(mode), int(sync), int(busy)


def test_both_ledgers_use_wal_normal_sync_and_a_busy_timeout(tmp_path: Path) -> None:
    history = Ledger(tmp_path / "home", busy_timeout_s=2.5)
    try:
        assert _settings(history._connection()) == ("wal", 1, 2500)
    finally:
        history.close()
    classroom = SqliteClassLedger(tmp_path / "class")
    try:
        assert _settings(classroom._conn) == ("wal", 1, 10_000)
    finally:
        classroom._conn.close()


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    conn, mode = open_ledger(tmp_path / "db.sqlite3", busy_timeout_s=1.0)
    try:
        assert mode == "wal"
        with immediate(conn):
            conn.execute("CREATE TABLE t (x INTEGER)")

        def fails_halfway() -> None:
            with immediate(conn):
                conn.execute("INSERT INTO t VALUES (1)")
                raise ZeroDivisionError

        with pytest.raises(ZeroDivisionError):
            fails_halfway()
        assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
        assert not conn.in_transaction
        with immediate(conn):
            conn.execute("INSERT INTO t VALUES (2)")
        assert [r[0] for r in conn.execute("SELECT x FROM t")] == [2]
    finally:
        conn.close()


def test_a_second_writer_waits_then_reports_busy(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    first, _ = open_ledger(path, busy_timeout_s=1.0)
    second, _ = open_ledger(path, busy_timeout_s=0.05)
    try:
        with immediate(first):
            first.execute("CREATE TABLE t (x INTEGER)")
            with pytest.raises(sqlite3.OperationalError, match="locked"), immediate(second):
                pass  # pragma: no cover - BEGIN IMMEDIATE itself fails
        assert not second.in_transaction
    finally:
        first.close()
        second.close()
