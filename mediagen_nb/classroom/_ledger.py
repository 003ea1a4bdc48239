"""The gateway's ledger: every student request and outcome, and the state a restart needs.

``ClassLedger`` is the interface the gateway writes through; ``SqliteClassLedger`` keeps it
in one SQLite file, as the history ledger does. No secret is written here.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, Protocol

from mediagen_nb._sqlite import immediate, open_ledger
from mediagen_nb.classroom._budget import (
    Claim,
    Reservation,
    model_name,
    needs_class_usage,
    refusal,
)
from mediagen_nb.classroom._chat_turns import INDEX as TURNS_INDEX
from mediagen_nb.classroom._chat_turns import SCHEMA as TURNS_SCHEMA
from mediagen_nb.classroom._chat_turns import ChatTurn, insert_turn, select_turns
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._hub_groups import SqliteHubGroups, add_sqlite_column
from mediagen_nb.classroom._rows import (
    Snapshot,
    TaskRecord,
    claim_json,
    event_from_row,
    event_json,
    reservation_from_row,
    settings_from_rows,
    students_from_rows,
    task_columns,
    task_from_data,
)
from mediagen_nb.classroom._rules import Rules, Usage
from mediagen_nb.classroom._sqlite_usage import INDEXES, usage_of

DB_NAME: Final = "classroom.sqlite3"
BUSY_TIMEOUT_S: Final = 10.0
"""Seconds a write waits for another writer's lock before SQLite reports it busy."""


class ClassLedger(Protocol):
    """Where the gateway keeps its state; swap the implementation to share it.

    ``SqliteClassLedger`` keeps one gateway's class in a file; ``PostgresClassLedger``
    shares one class between several gateways (``start_classroom(ledger="postgresql://...")``).
    """

    def load(self) -> Snapshot:
        """The whole state, for a gateway starting on this ledger.

        Returns:
            Settings, students, tasks and each student's chat tokens.
        """
        ...

    def save_setting(self, key: str, value: Any) -> None:
        """Store one setting (rules, class code, teacher token, ...) as JSON.

        Args:
            key: The setting's name.
            value: Its value (JSON-ready).
        """
        ...

    def save_student(self, student: Student) -> None:
        """Insert or update a student (the enrolment time is kept from the first save).

        Args:
            student: The student as it is now.
        """
        ...

    def save_task(self, record: TaskRecord) -> None:
        """Insert or update a task.

        Args:
            record: The task as it is now.
        """
        ...

    def reserve(self, rules: Rules, claim: Claim) -> Reservation | str:
        """Check a claim against what is used and held and keep it, in one transaction.

        Args:
            rules: The rules in force.
            claim: What the request asks to hold.

        Returns:
            The reservation, or the sentence that refuses the claim.
        """
        ...

    def settle(
        self,
        reservation: Reservation,
        *,
        task: TaskRecord | None = None,
        tokens: int = 0,
        outcome: str = "ok",
    ) -> None:
        """End a reservation with what was used, in one transaction.

        Args:
            reservation: What ``reserve`` returned.
            task: For a task create, the task to store.
            tokens: For a chat, the tokens it used.
            outcome: For a chat, how it ended.
        """
        ...

    def release(self, reservation: Reservation) -> None:
        """End a reservation that used nothing; releasing twice does nothing.

        Args:
            reservation: What ``reserve`` returned.
        """
        ...

    def held(self) -> list[Reservation]:
        """The reservations still open, oldest first."""
        ...

    def usage(self, student: str | None = None) -> Usage:
        """What a student or the class uses and holds, as ``reserve`` counts it.

        Args:
            student: The student's name (any case); None: the whole class.

        Returns:
            Tasks made, tasks running and chat tokens, what is held included.
        """
        ...

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event (a request, a refusal, an outcome).

        Args:
            student: Who it concerns (``"teacher"`` for the teacher's actions).
            action: What happened (``refused``, ``revoke``, ``pause``...).
            key: What it happened to (a task id, a student's name...).
            **data: Details, stored as JSON (anything else as text).
        """
        ...

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest events, newest first.

        Args:
            limit: At most this many.

        Returns:
            One dict per event: ``ts``, ``student``, ``action``, ``key`` and its details.
        """
        ...

    def save_chat_turn(self, turn: ChatTurn) -> None:
        """Keep one ended chat turn for the teacher (prompt, answer excerpt, tokens).

        Args:
            turn: The turn.
        """
        ...

    def chat_turns(self, student: str | None = None, limit: int = 200) -> list[ChatTurn]:
        """The newest chat turns, newest first.

        Args:
            student: One student's turns (any case); None: everyone's.
            limit: At most this many.

        Returns:
            The turns.
        """
        ...

    def save_hub_groups(self, name: str, groups: Sequence[str]) -> None:
        """Keep the groups the hub gave student ``name`` (``_hub_groups``)."""
        ...

    def hub_groups(self) -> dict[str, tuple[str, ...]]:
        """Each hub student's last known groups, by casefolded name."""
        ...

    def close(self) -> None:
        """Release the store."""
        ...


_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts REAL NOT NULL, student TEXT NOT NULL, action TEXT NOT NULL, key TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}')""",
    """CREATE TABLE IF NOT EXISTS students (name TEXT PRIMARY KEY, code TEXT,
        revoked INTEGER NOT NULL DEFAULT 0, enrolled REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, created REAL NOT NULL,
        data TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, who TEXT NOT NULL,
        kind TEXT NOT NULL, amount INTEGER NOT NULL, created REAL NOT NULL,
        claim TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS chats (id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts REAL NOT NULL, student TEXT NOT NULL, path TEXT NOT NULL, model TEXT NOT NULL,
        tokens INTEGER NOT NULL, outcome TEXT NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    TURNS_SCHEMA,
    TURNS_INDEX,
)
_TASK_COLUMNS: Final = {
    "who": "TEXT NOT NULL DEFAULT ''",
    "kind": "TEXT NOT NULL DEFAULT ''",
    "counted": "INTEGER NOT NULL DEFAULT 0",
    "running": "INTEGER NOT NULL DEFAULT 0",
}
"""Columns of ``tasks`` the budget checks read (added to a ledger from an older version)."""


class SqliteClassLedger(SqliteHubGroups):
    """A ``ClassLedger`` in one SQLite file, ``classroom.sqlite3`` in the class folder.

    A new gateway on the same folder knows the roster, the rules, every task (and resumes
    polling those still in flight) and each student's usage.

    Args:
        folder: The class folder (made when missing).

    Raises:
        sqlite3.Error: The file cannot be opened or set up.
    """

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_NAME
        self._lock = threading.Lock()
        self._conn, _mode = open_ledger(self.path, busy_timeout_s=BUSY_TIMEOUT_S)
        # A ledger dropped without close() still closes its file (Python 3.13 warns otherwise).
        weakref.finalize(self, self._conn.close)
        try:
            with self._write() as conn:
                for statement in _SCHEMA:
                    conn.execute(statement)
                self._migrate(conn)
                add_sqlite_column(conn)
                for statement in INDEXES:
                    conn.execute(statement)
                # One gateway per SQLite ledger: what a previous run held belonged to requests
                # that ended with it.
                conn.execute("DELETE FROM reservations")
        except BaseException:
            self._conn.close()  # a file that cannot be set up leaves no connection open
            raise

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        """Add the budget columns to a ``tasks`` table written by an older version."""
        have = {row[1] for row in conn.execute("PRAGMA table_info(tasks)")}
        missing = [name for name in _TASK_COLUMNS if name not in have]
        for name in missing:
            conn.execute(f"ALTER TABLE tasks ADD COLUMN {name} {_TASK_COLUMNS[name]}")
        if missing:
            for (data,) in list(conn.execute("SELECT data FROM tasks")):
                row = task_columns(task_from_data(data))
                conn.execute(
                    "UPDATE tasks SET who = ?, kind = ?, counted = ?, running = ? WHERE id = ?",
                    (row.who, row.kind, row.counted, row.running, row.id),
                )

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, immediate(self._conn) as conn:
            yield conn

    def _rows(self, sql: str) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._conn.execute(sql))

    def load(self) -> Snapshot:
        """Read settings, students, tasks and chat usage."""
        settings = settings_from_rows(self._rows("SELECT key, value FROM settings"))
        students = students_from_rows(
            self._rows("SELECT name, code, revoked FROM students ORDER BY enrolled, rowid")
        )
        tasks = [
            task_from_data(data)
            for (data,) in self._rows("SELECT data FROM tasks ORDER BY created, rowid")
        ]
        tokens = dict(self._rows("SELECT student, SUM(tokens) FROM chats GROUP BY student"))
        return Snapshot(settings, students, tasks, {k: int(v) for k, v in tokens.items()})

    def save_setting(self, key: str, value: Any) -> None:
        """Store one setting."""
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                (key, json.dumps(value)),
            )

    def save_student(self, student: Student) -> None:
        """Insert or update a student (enrolment time kept from the first save)."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO students (name, code, revoked, enrolled) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET code=excluded.code, revoked=excluded.revoked",
                (student.name, student.code, int(student.revoked), time.time()),
            )

    def save_task(self, record: TaskRecord) -> None:
        """Insert or update a task."""
        with self._write() as conn:
            self._save_task(conn, record)

    @staticmethod
    def _save_task(conn: sqlite3.Connection, record: TaskRecord) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO tasks (id, created, data, who, kind, counted, running) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            task_columns(record)[:7],  # SQLite's tasks has no media column
        )

    def reserve(self, rules: Rules, claim: Claim) -> Reservation | str:
        """Check and keep ``claim`` in one ``BEGIN IMMEDIATE`` transaction."""
        with self._write() as conn:
            part = "chat" if claim.kind == "chat" else "tasks"
            mine = usage_of(conn, claim.student.casefold(), part)
            class_wide = needs_class_usage(rules, claim.kind)
            everyone = usage_of(conn, None, part) if class_wide else None
            refused = refusal(rules, claim, mine, everyone)
            if refused is not None:
                return refused
            held = Reservation(claim)
            conn.execute(
                "INSERT INTO reservations (id, who, kind, amount, created, claim) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    held.id,
                    claim.student.casefold(),
                    claim.kind,
                    claim.amount,
                    held.created,
                    claim_json(claim),
                ),
            )
            return held

    def settle(
        self,
        reservation: Reservation,
        *,
        task: TaskRecord | None = None,
        tokens: int = 0,
        outcome: str = "ok",
    ) -> None:
        """Store what the request used and drop its reservation, in one transaction."""
        claim = reservation.claim
        with self._write() as conn:
            conn.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))
            if task is not None:
                self._save_task(conn, task)
            elif claim.kind == "chat":
                conn.execute(
                    "INSERT INTO chats (ts, student, path, model, tokens, outcome) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        time.time(),
                        claim.student,
                        claim.what,
                        model_name(claim.model),
                        tokens,
                        outcome,
                    ),
                )

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation (nothing was used)."""
        with self._write() as conn:
            conn.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))

    def held(self) -> list[Reservation]:
        """Open reservations, oldest first."""
        rows = self._rows(
            "SELECT id, kind, amount, created, claim FROM reservations ORDER BY created, rowid"
        )
        return [reservation_from_row(row) for row in rows]

    def usage(self, student: str | None = None) -> Usage:
        """Used and held (one read)."""
        with self._lock:
            return usage_of(self._conn, None if student is None else student.casefold())

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO events (ts, student, action, key, data) VALUES (?, ?, ?, ?, ?)",
                (time.time(), student, action, key, event_json(data)),
            )

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest events, newest first."""
        rows = self._rows(
            f"SELECT ts, student, action, key, data FROM events ORDER BY id DESC LIMIT {int(limit)}"
        )
        return [event_from_row(row) for row in rows]

    def save_chat_turn(self, turn: ChatTurn) -> None:
        """Keep one chat turn."""
        with self._write() as conn:
            insert_turn(conn, turn)

    def chat_turns(self, student: str | None = None, limit: int = 200) -> list[ChatTurn]:
        """The newest chat turns, newest first."""
        with self._lock:
            return select_turns(self._conn, student, limit)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._conn.close()
