"""The ledger's one fallback when its file cannot be used: an in-memory SQLite database.

It starts as a copy of whatever of the file is still readable and receives every event of
the session from then on; ``Ledger.problem`` says what happened and where.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from mediagen_nb import _env
from mediagen_nb.history._schema import migrate


class HistoryUnavailableWarning(UserWarning):
    """The history file could not be used; this session's history is kept in memory only."""


BROWSER_NOTICE = (
    "History is kept in memory in this browser tab and is lost when the page is reloaded "
    "(this browser's storage cannot be used here); Export in the History tab saves it as a "
    "file, Import brings it back."
)
"""The notice of a browser kernel's ledger when the browser's storage cannot be used
(``_browser.attach`` failed; ``Ledger.keep_in_memory``)."""


def describe(db_path: Path, exc: BaseException | str) -> str:
    """One sentence for the user: what went wrong with which file, and what follows."""
    why = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return (
        f"History cannot use its file {db_path} ({why}). This session's history is kept in "
        "memory only and is lost when the kernel stops; repair or move the file, or set "
        f"{_env.HOME} to a writable folder."
    )


def _copy_readable(db_path: Path, memory: sqlite3.Connection) -> None:
    """Copy the file into ``memory`` when it can still be read (read-only, newer writer).

    Read-only first; where even that needs a write beside the file (a WAL database in a
    folder we may not write), as an immutable file (SQLite then takes no locks).
    """
    if not db_path.is_file():
        return
    for mode in ("ro", "ro&immutable=1"):
        if _copy_with(f"{db_path.as_uri()}?mode={mode}", memory):
            return


def _copy_with(uri: str, memory: sqlite3.Connection) -> bool:
    try:
        source = sqlite3.connect(uri, uri=True, timeout=1.0)
    except sqlite3.Error:
        return False
    try:
        source.execute("SELECT count(*) FROM sqlite_master").fetchone()
        source.backup(memory)
    except sqlite3.Error:
        # Corrupt or truncated: start from an empty database rather than half a copy.
        for (name,) in memory.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            memory.execute(f'DROP TABLE IF EXISTS "{name}"')
        return False
    finally:
        source.close()
    return True


def open_memory(db_path: Path | None) -> sqlite3.Connection:
    """A migrated in-memory database, seeded from ``db_path`` where it is readable."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    if db_path is not None:
        _copy_readable(db_path, conn)
    try:
        migrate(conn)
    except (sqlite3.Error, RuntimeError):
        # The copy is of a schema we cannot write (a newer version): keep only this session.
        conn.close()
        conn = open_memory(None)
    return conn


@dataclass
class Handles:
    """The SQLite connections of one ledger: its file (opened by process ``pid``) and its
    in-memory fallback. :meth:`close` runs when the ledger is closed for good or collected,
    so no connection outlives its ledger (Python 3.13 warns about every unclosed one)."""

    pid: int
    file: sqlite3.Connection | None = None
    memory: sqlite3.Connection | None = None

    def close(self) -> None:
        """Close both (a file connection inherited through fork is left to its parent)."""
        if self.pid == os.getpid():
            close_quietly(self.file)
        close_quietly(self.memory)
        self.file = self.memory = None


def close_quietly(conn: sqlite3.Connection | None) -> None:
    """Close ``conn``, ignoring errors (it may belong to a broken file)."""
    if conn is not None:
        with contextlib.suppress(sqlite3.Error):
            conn.close()
