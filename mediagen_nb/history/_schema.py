"""SQLite schema of the history ledger and the hook that migrates older files.

``items`` is materialised from the append-only ``events`` in the same transaction as each
insert, so the two never disagree; each entry of ``MIGRATIONS`` is one transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from mediagen_nb._sqlite import immediate

ITEM_COLUMNS: tuple[str, ...] = (
    "kind",
    "key",
    "created",
    "updated",
    "family",
    "model",
    "prompt",
    "params",
    "request",
    "path",
    "status",
    "elapsed",
    "polls",
    "remote_url",
    "url_expires",
    "local_file",
    "error",
    "text",
    "usage",
    "response",
    "service",
    "origin",
    "sweep_id",
    "parents",
)
"""Columns of ``items`` that the materialiser writes (``id`` is the row's insertion order)."""

JSON_COLUMNS = frozenset({"params", "request", "usage", "response", "parents"})
"""Item columns stored as JSON text."""


def _v1(conn: sqlite3.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ts REAL NOT NULL,
            kind TEXT NOT NULL,
            action TEXT NOT NULL,
            key TEXT NOT NULL,
            family TEXT,
            model TEXT,
            service TEXT,
            data TEXT NOT NULL DEFAULT '{}'
        )
        """
    )
    conn.execute("CREATE INDEX events_by_key ON events (kind, key)")
    conn.execute(
        """
        CREATE TABLE items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL,
            family TEXT,
            model TEXT,
            prompt TEXT,
            params TEXT,
            request TEXT,
            path TEXT,
            status TEXT,
            elapsed REAL,
            polls INTEGER NOT NULL DEFAULT 0,
            remote_url TEXT,
            url_expires REAL,
            local_file TEXT,
            error TEXT,
            text TEXT,
            usage TEXT,
            response TEXT,
            service TEXT,
            UNIQUE (kind, key)
        )
        """
    )
    conn.execute("CREATE INDEX items_by_status ON items (status)")
    conn.execute("CREATE INDEX items_by_created ON items (created)")
    conn.execute("CREATE INDEX items_by_key ON items (key)")


def _v2(conn: sqlite3.Connection) -> None:
    """Remember which process wrote each event, so resume leaves this process's tasks alone."""
    conn.execute("ALTER TABLE events ADD COLUMN origin TEXT")
    conn.execute("ALTER TABLE items ADD COLUMN origin TEXT")


def _v3(conn: sqlite3.Connection) -> None:
    """A sweep's cells share a ``sweep_id``; ``parents`` lists the ids an item was made from."""
    conn.execute("ALTER TABLE items ADD COLUMN sweep_id TEXT")
    conn.execute("ALTER TABLE items ADD COLUMN parents TEXT")
    conn.execute("CREATE INDEX items_by_sweep ON items (sweep_id)")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2, _v3)
"""``MIGRATIONS[n - 1]`` upgrades a file from version ``n - 1`` to ``n``; append, never edit."""

SCHEMA_VERSION = len(MIGRATIONS)


def current_version(conn: sqlite3.Connection) -> int:
    """Schema version of an open database (0 for a new, empty file)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the schema up to date inside one ``BEGIN IMMEDIATE`` transaction.

    The write lock is taken before the version is read, so two processes opening a new file
    at once cannot both run a migration. Returns the version now in the file. A file newer
    than this code is left alone (``RuntimeError``): guessing at a future schema would
    corrupt it.
    """
    with immediate(conn):
        version = current_version(conn)
        if version > SCHEMA_VERSION:
            msg = (
                f"history database has schema version {version}, newer than this "
                f"mediagen_nb understands ({SCHEMA_VERSION}); upgrade mediagen_nb"
            )
            raise RuntimeError(msg)
        if version == 0:
            conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            conn.execute("INSERT INTO schema_version (version) VALUES (0)")
        for step in range(version, SCHEMA_VERSION):
            MIGRATIONS[step](conn)
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    return SCHEMA_VERSION
