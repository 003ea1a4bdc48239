"""The gateway's ledger: every student request and outcome, and the state a restart needs.

``ClassLedger`` is the interface the gateway writes through; ``SqliteClassLedger`` keeps it
in one SQLite file (``classroom.sqlite3`` in the class folder) the way the history ledger
does: WAL mode, ``synchronous=NORMAL``, one ``BEGIN IMMEDIATE`` transaction per write, one
connection shared under a lock. ``events`` is append-only (one row per request and per
outcome); ``tasks``, ``students``, ``chats`` and ``settings`` hold the current state, so a
new gateway on the same folder knows the roster, the rules, every task (and resumes polling
those still in flight) and each student's usage.

Budgets are checked here: ``reserve`` reads what a student and the class use and hold and
keeps the claim in one transaction (``_budget``); ``settle`` turns it into a task or a chat
row and ``release`` drops it, each one transaction. Several gateways share one class through
``PostgresClassLedger`` (``_pg_ledger``), the same interface in PostgreSQL. No secret is
written here: the upstream key never reaches the ledger.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final, Protocol

from mediagen_nb._sqlite import immediate, open_ledger
from mediagen_nb.classroom._budget import (
    BudgetKind,
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
from mediagen_nb.classroom._rules import Rules, Usage
from mediagen_nb.classroom._sqlite_usage import INDEXES, usage_of

DB_NAME: Final = "classroom.sqlite3"
BUSY_TIMEOUT_S: Final = 10.0
"""Seconds a write waits for another writer's lock before SQLite reports it busy."""
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})


@dataclass
class TaskRecord:
    """One student task as the gateway knows it (its id is the service's task id)."""

    id: str
    student: str
    kind: str
    family: str
    model: str
    prompt: str
    status: str
    created: float
    updated: float
    error: str | None = None
    result: dict[str, Any] | None = None
    """The service's last result object, its media URL removed (never shown as is)."""
    media: str | None = None
    """File name of the stored result in the class's media folder."""
    hidden: bool = False
    approved: bool = False
    """The teacher approved it for the wall (read only while the class needs approval)."""
    refused: bool = False
    """True when the create was refused (by the gateway's rules, or by the service at once):
    no task runs and nothing counts against the student's limits."""
    upstream_polls: int = field(default=0, compare=False)
    student_polls: int = field(default=0, compare=False)

    @property
    def done(self) -> bool:
        """Terminal, with its media stored when it completed."""
        return self.status in TERMINAL


@dataclass(frozen=True)
class Snapshot:
    """Everything a gateway loads at start."""

    settings: dict[str, Any]
    students: list[Student]
    tasks: list[TaskRecord]
    chat_tokens: dict[str, int]


class ClassLedger(Protocol):
    """Where the gateway keeps its state; swap the implementation to share it."""

    def load(self) -> Snapshot:
        """The whole state, for a gateway starting on this ledger."""
        ...

    def save_setting(self, key: str, value: Any) -> None:
        """Store one setting (rules, class code, teacher token, ...) as JSON."""
        ...

    def save_student(self, student: Student) -> None:
        """Insert or update a student."""
        ...

    def save_task(self, record: TaskRecord) -> None:
        """Insert or update a task."""
        ...

    def reserve(self, rules: Rules, claim: Claim) -> Reservation | str:
        """Check ``claim`` under ``rules`` against what is used and held and keep it, in one
        transaction: the reservation, or the sentence that refuses it."""
        ...

    def settle(
        self,
        reservation: Reservation,
        *,
        task: TaskRecord | None = None,
        tokens: int = 0,
        outcome: str = "ok",
    ) -> None:
        """End a reservation with what was used, in one transaction: a task create stores
        ``task``; a chat stores its ``tokens`` and ``outcome``."""
        ...

    def release(self, reservation: Reservation) -> None:
        """End a reservation that used nothing (idempotent)."""
        ...

    def held(self) -> list[Reservation]:
        """The reservations still open."""
        ...

    def usage(self, student: str | None = None) -> Usage:
        """What a student (None: the class) uses and holds, as ``reserve`` counts it."""
        ...

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event (a request, a refusal, an outcome)."""
        ...

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest ``limit`` events, newest first."""
        ...

    def save_chat_turn(self, turn: ChatTurn) -> None:
        """Keep one ended chat turn for the teacher (prompt, answer excerpt, tokens)."""
        ...

    def chat_turns(self, student: str | None = None, limit: int = 200) -> list[ChatTurn]:
        """The newest ``limit`` chat turns of ``student`` (None: everyone), newest first."""
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
_TASK_FIELDS: Final = frozenset(f.name for f in fields(TaskRecord) if f.compare)
"""Stored fields (the poll counters are per run, not stored)."""


def task_data(record: TaskRecord) -> dict[str, Any]:
    """The stored fields of ``record`` (JSON-ready)."""
    return {k: v for k, v in asdict(record).items() if k in _TASK_FIELDS}


def _task_row(record: TaskRecord) -> tuple[Any, ...]:
    data = task_data(record)
    counted = not record.refused
    return (
        record.id,
        record.created,
        json.dumps(data),
        record.student.casefold(),
        record.kind,
        int(counted),
        int(counted and not record.done),
    )


class SqliteClassLedger(SqliteHubGroups):
    """``ClassLedger`` in one SQLite file (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_NAME
        self._lock = threading.Lock()
        self._conn, _mode = open_ledger(self.path, busy_timeout_s=BUSY_TIMEOUT_S)
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
                row = _task_row(TaskRecord(**json.loads(data)))
                conn.execute(
                    "UPDATE tasks SET who = ?, kind = ?, counted = ?, running = ? WHERE id = ?",
                    (*row[3:], row[0]),
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
        settings = {k: json.loads(v) for k, v in self._rows("SELECT key, value FROM settings")}
        students = [
            Student(name, code, bool(revoked))
            for name, code, revoked in self._rows(
                "SELECT name, code, revoked FROM students ORDER BY enrolled, rowid"
            )
        ]
        tasks = [
            TaskRecord(**json.loads(data))
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
            _task_row(record),
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
                    json.dumps(
                        {
                            "student": claim.student,
                            "model": model_name(claim.model),
                            "what": claim.what,
                        }
                    ),
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
        found = []
        for rid, kind, amount, created, raw in rows:
            data = json.loads(raw)
            kept: BudgetKind = kind
            claim = Claim(data["student"], kept, int(amount), data["model"], data["what"])
            found.append(Reservation(claim, id=rid, created=created))
        return found

    def usage(self, student: str | None = None) -> Usage:
        """Used and held (one read)."""
        with self._lock:
            return usage_of(self._conn, None if student is None else student.casefold())

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO events (ts, student, action, key, data) VALUES (?, ?, ?, ?, ?)",
                (time.time(), student, action, key, json.dumps(data, default=str)),
            )

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest events, newest first."""
        rows = self._rows(
            f"SELECT ts, student, action, key, data FROM events ORDER BY id DESC LIMIT {int(limit)}"
        )
        return [
            {"ts": ts, "student": s, "action": a, "key": k, **json.loads(d)}
            for ts, s, a, k, d in rows
        ]

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
