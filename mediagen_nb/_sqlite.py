"""One SQLite setup for the history's and the classroom's ledgers: a connection in WAL mode
with ``synchronous=NORMAL`` and a busy timeout, and writes as ``BEGIN IMMEDIATE`` transactions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def _once(op: Callable[[], Any]) -> Any:
    return op()


def open_ledger(
    path: Path | str,
    *,
    busy_timeout_s: float,
    retry: Callable[[Callable[[], Any]], Any] = _once,
) -> tuple[sqlite3.Connection, str]:
    """A connection to the ledger file at ``path``, set up the way both ledgers need it.

    Autocommit (transactions are explicit, see :func:`immediate`), usable from any thread
    (callers hold their own lock), WAL journal, ``synchronous=NORMAL``, and SQLite waiting up
    to ``busy_timeout_s`` for another writer's lock.

    Args:
        path: The database file.
        busy_timeout_s: Seconds SQLite waits for a lock before reporting it busy.
        retry: Runs the switch to WAL (which needs a moment without readers), e.g. again
            while the file is locked; once by default.

    Returns:
        The connection and the journal mode SQLite reports ("wal" unless the file system
        cannot share memory between processes).

    Raises:
        sqlite3.Error: The file cannot be opened or set up (the connection is closed).
    """
    conn = sqlite3.connect(
        path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
    )
    try:
        mode = retry(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
    except BaseException:
        conn.close()
        raise
    return conn, str(mode).lower()


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction that takes the write lock first (``BEGIN IMMEDIATE``).

    Taking the lock before reading means two writers never both read and then collide;
    an exception rolls everything back and propagates.

    Args:
        conn: An autocommit connection (from :func:`open_ledger`).

    Yields:
        ``conn``, inside the transaction.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
