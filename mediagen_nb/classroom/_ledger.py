"""The gateway's ledger: every student request and outcome, and the state a restart needs.

``ClassLedger`` is the interface the gateway writes through; ``SqliteClassLedger`` keeps it
in one SQLite file (``classroom.sqlite3`` in the class folder) the way the history ledger
does: WAL mode, ``synchronous=NORMAL``, one ``BEGIN IMMEDIATE`` transaction per write, one
connection shared under a lock. ``events`` is append-only (one row per request and per
outcome); ``tasks``, ``students``, ``chats`` and ``settings`` hold the current state, so a
new gateway on the same folder knows the roster, the rules, every task (and resumes polling
those still in flight) and each student's usage.

Several gateways behind one address would share one ledger through a server-backed store
(PostgreSQL, for example) implementing the same interface; see the README's classroom
section. No secret is written here: the upstream key never reaches the ledger.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final, Protocol

from mediagen_nb.classroom._codes import Student

DB_NAME: Final = "classroom.sqlite3"
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

    def add_chat(self, student: str, path: str, model: str, tokens: int, outcome: str) -> None:
        """Record one chat request's outcome and the tokens it used."""
        ...

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event (a request, a refusal, an outcome)."""
        ...

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest ``limit`` events, newest first."""
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
    """CREATE TABLE IF NOT EXISTS chats (id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts REAL NOT NULL, student TEXT NOT NULL, path TEXT NOT NULL, model TEXT NOT NULL,
        tokens INTEGER NOT NULL, outcome TEXT NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_TASK_FIELDS: Final = frozenset(f.name for f in fields(TaskRecord) if f.compare)
"""Stored fields (the poll counters are per run, not stored)."""


class SqliteClassLedger:
    """``ClassLedger`` in one SQLite file (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_NAME
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            with self._write() as conn:
                for statement in _SCHEMA:
                    conn.execute(statement)
        except BaseException:
            self._conn.close()  # a file that cannot be set up leaves no connection open
            raise

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

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
        data = {k: v for k, v in asdict(record).items() if k in _TASK_FIELDS}
        with self._write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO tasks (id, created, data) VALUES (?, ?, ?)",
                (record.id, record.created, json.dumps(data)),
            )

    def add_chat(self, student: str, path: str, model: str, tokens: int, outcome: str) -> None:
        """Record one chat request."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO chats (ts, student, path, model, tokens, outcome) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (time.time(), student, path, model, tokens, outcome),
            )

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

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._conn.close()
