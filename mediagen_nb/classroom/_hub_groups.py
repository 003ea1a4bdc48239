"""JupyterHub groups kept in the class ledger, so a restarted gateway still knows each hub
student's group (and so their limits) before they sign in again.

The hub says a student's groups at each request; ``students.hub_groups`` keeps the last answer
(a JSON list; NULL for students who never came through the hub).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Final, Protocol

from mediagen_nb.classroom._codes import Roster, Student

if TYPE_CHECKING:
    import psycopg

PG_COLUMN: Final = "ALTER TABLE students ADD COLUMN IF NOT EXISTS hub_groups TEXT"
"""The PostgreSQL ledger's migration (run with its schema, under its advisory lock)."""
_SELECT: Final = "SELECT name, hub_groups FROM students WHERE hub_groups IS NOT NULL"


class GroupStore(Protocol):
    """The two ledger methods this module adds."""

    def save_hub_groups(self, name: str, groups: Sequence[str]) -> None:
        """Keep the groups the hub gave student ``name``."""
        ...

    def hub_groups(self) -> dict[str, tuple[str, ...]]:
        """Each hub student's last known groups, by casefolded name."""
        ...


def add_sqlite_column(conn: sqlite3.Connection) -> None:
    """Give a ``students`` table written by an older version its ``hub_groups`` column."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(students)")}
    if "hub_groups" not in have:
        conn.execute("ALTER TABLE students ADD COLUMN hub_groups TEXT")


def _by_name(rows: Sequence[tuple[Any, ...]]) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for name, text in rows:
        groups = json.loads(text)
        if isinstance(groups, list):
            found[str(name).casefold()] = tuple(g for g in groups if isinstance(g, str))
    return found


class SqliteHubGroups:
    """``GroupStore`` for ``SqliteClassLedger`` (mixed in)."""

    if TYPE_CHECKING:

        def _write(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def _rows(self, sql: str) -> list[tuple[Any, ...]]: ...

    def save_hub_groups(self, name: str, groups: Sequence[str]) -> None:
        """Keep the groups the hub gave student ``name`` (an enrolled student)."""
        with self._write() as conn:
            text = json.dumps(list(groups))
            conn.execute("UPDATE students SET hub_groups = ? WHERE name = ?", (text, name))

    def hub_groups(self) -> dict[str, tuple[str, ...]]:
        """Each hub student's last known groups, by casefolded name."""
        return _by_name(self._rows(_SELECT))


class PostgresHubGroups:
    """``GroupStore`` for ``PostgresClassLedger`` (mixed in)."""

    if TYPE_CHECKING:

        def _tx(self) -> AbstractContextManager[psycopg.Connection[tuple[Any, ...]]]: ...

        def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...

    def save_hub_groups(self, name: str, groups: Sequence[str]) -> None:
        """Keep the groups the hub gave student ``name`` (an enrolled student)."""
        with self._tx() as conn:
            conn.execute(
                "UPDATE students SET hub_groups = %s WHERE name = %s",
                (json.dumps(list(groups)), name),
            )

    def hub_groups(self) -> dict[str, tuple[str, ...]]:
        """Each hub student's last known groups, by casefolded name."""
        return _by_name(self._rows(_SELECT))


class GroupKeeper:
    """The gateway's side: groups read back at start, and saved when the hub's answer for a
    student differs from what the ledger holds (so not at every request)."""

    def __init__(self, ledger: GroupStore, roster: Roster) -> None:
        self._ledger = ledger
        self._roster = roster
        self._stored: dict[str, tuple[str, ...]] = {}

    def load(self) -> None:
        """Give each saved hub student the groups the ledger kept."""
        self._stored = self._ledger.hub_groups()
        for student in self._roster.students():
            student.groups = self._stored.get(student.name.casefold(), student.groups)

    def keep(self, student: Student) -> None:
        """Save ``student``'s groups (as the hub just said them) if they changed."""
        key = student.name.casefold()
        if self._stored.get(key) != student.groups:
            self._ledger.save_hub_groups(student.name, student.groups)
            self._stored[key] = student.groups
