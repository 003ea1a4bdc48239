"""The history ledger: an append-only SQLite log of every task, chat turn and asset event.

``Ledger`` implements :class:`mediagen_nb._hooks.Recorder`. Each ``record`` is one
``BEGIN IMMEDIATE`` transaction that appends to ``events`` and updates the matching
``items`` row, so a crash leaves either both or neither. The file is
``$MEDIAGEN_HOME/history.sqlite3`` (default ``~/.mediagen_nb``) in WAL mode with
``synchronous=NORMAL``: readers never block the writer, and two kernels may write at once
(SQLite's busy timeout, then our own retry loop with jittered backoff on
``database is locked``). Within a process one connection is shared under a lock; a forked
child opens its own. ``record`` never raises for I/O trouble: an event that cannot be
written is logged and kept in memory, and written before the next one.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sqlite3
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from mediagen_nb._home import resolve_home
from mediagen_nb._hooks import EventKind, LedgerEvent
from mediagen_nb.history._materialise import apply_event
from mediagen_nb.history._media import find_media, media_path, write_atomic
from mediagen_nb.history._redact import redact, scrub_text
from mediagen_nb.history._schema import ITEM_COLUMNS, JSON_COLUMNS, migrate

log = logging.getLogger("mediagen_nb.history")

DB_NAME = "history.sqlite3"
MEDIA_DIR = "media"
_BACKLOG_MAX = 10_000
_T = TypeVar("_T")


def url_lifetime(family_id: str | None) -> float | None:
    """The catalog's result-URL lifetime of a family, or None when unknown.

    Imported lazily so the ledger works (without expiry times) before the catalog exists
    or for families it does not know.
    """
    if not family_id:
        return None
    try:
        from mediagen_nb.catalog import family

        lifetime = family(family_id).url_lifetime_s
    except (ImportError, LookupError, AttributeError, ValueError):
        return None
    return float(lifetime) if lifetime is not None else None


_token_lock = threading.Lock()
_token: tuple[int, str] | None = None


def process_token() -> str:
    """An id of this process, new after a fork: the ``origin`` of the events it writes."""
    global _token  # noqa: PLW0603 - per-process value by design
    with _token_lock:
        if _token is None or _token[0] != os.getpid():
            _token = (os.getpid(), f"{os.getpid()}-{uuid.uuid4().hex[:12]}")
        return _token[1]


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _encode(item: Mapping[str, Any]) -> list[Any]:
    return [
        json.dumps(item[c], default=str, ensure_ascii=False)
        if c in JSON_COLUMNS and item[c] is not None
        else item[c]
        for c in ITEM_COLUMNS
    ]


def _decode(row: sqlite3.Row) -> dict[str, Any]:
    item = {k: row[k] for k in row.keys()}  # noqa: SIM118 - sqlite3.Row is not a Mapping
    for column in JSON_COLUMNS:
        if item.get(column) is not None:
            item[column] = json.loads(item[column])
    return item


class Ledger:
    """SQLite history under one home folder; the client's default ``Recorder``.

    ``clock`` (Unix seconds) is injectable for tests; ``max_wait_s`` bounds how long one
    write keeps retrying while another process holds the lock. ``origin`` overrides the
    process id written with each event (tests use it to play a previous kernel).
    """

    def __init__(
        self,
        home: Path | str | None = None,
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout_s: float = 5.0,
        max_wait_s: float = 60.0,
        origin: str | None = None,
    ) -> None:
        self.home = resolve_home(home)
        self.db_path = self.home / DB_NAME
        self.media_dir = self.home / MEDIA_DIR
        self._clock = clock
        self._origin = origin
        self._busy_timeout_s = busy_timeout_s
        self._max_wait_s = max_wait_s
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._inherited: list[sqlite3.Connection] = []
        self._backlog: deque[tuple[LedgerEvent, float]] = deque(maxlen=_BACKLOG_MAX)
        self.retries = 0
        """How many times a statement was retried because another writer held the lock."""

    def __repr__(self) -> str:
        return f"Ledger(home={str(self.home)!r})"

    @property
    def origin(self) -> str:
        """What this ledger writes as ``origin``: the process token unless overridden."""
        return self._origin if self._origin is not None else process_token()

    # -- connection ---------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        if self._conn is not None:
            # Inherited through fork: never touch (or close) the parent's handle.
            self._inherited.append(self._conn)
            self._conn = None
        self._pid = os.getpid()
        self.home.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.db_path,
            timeout=self._busy_timeout_s,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        try:
            mode = self._retry(lambda: conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
            if str(mode).lower() != "wal":
                log.warning("history database is not in WAL mode (%s); writes may block", mode)
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_s * 1000)}")
            self._retry(lambda: migrate(conn))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _retry(self, op: Callable[[], _T]) -> _T:
        """Run ``op`` again while SQLite reports the database locked, up to ``max_wait_s``."""
        deadline = time.monotonic() + self._max_wait_s
        delay = 0.005
        while True:
            try:
                return op()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or time.monotonic() >= deadline:
                    raise
            self.retries += 1
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.25)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        """Close this process's connection (a later call opens a new one)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # -- writing ------------------------------------------------------------------------

    def record(self, event: LedgerEvent) -> None:
        """Append ``event`` and update its item row in one transaction; never raises for I/O."""
        with self._lock:
            self._backlog.append((event, self._clock()))
            self._flush_locked()

    def flush(self) -> int:
        """Try again to write events kept in memory after a failure; return how many remain."""
        with self._lock:
            self._flush_locked()
            return len(self._backlog)

    def _flush_locked(self) -> None:
        while self._backlog:
            event, ts = self._backlog[0]
            try:
                self._retry(lambda: self._write(event, ts))  # noqa: B023 - called at once
            except (sqlite3.Error, OSError, RuntimeError) as exc:
                log.warning(
                    "history: could not record %s %s for %s (%s); kept in memory (%d pending)",
                    event.kind,
                    event.action,
                    scrub_text(event.key),
                    type(exc).__name__,
                    len(self._backlog),
                )
                return
            self._backlog.popleft()

    def _write(self, event: LedgerEvent, ts: float) -> None:
        data = redact(dict(event.data))
        key = scrub_text(event.key)
        family, model, service = (
            scrub_text(v) if v is not None else None
            for v in (event.family, event.model, event.service)
        )
        origin = self.origin
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO events (ts, kind, action, key, family, model, service, data, origin)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    ts,
                    event.kind,
                    event.action,
                    key,
                    family,
                    model,
                    service,
                    json.dumps(data, default=str, ensure_ascii=False),
                    origin,
                ),
            )
            row = conn.execute(
                "SELECT * FROM items WHERE kind = ? AND key = ?", (event.kind, key)
            ).fetchone()
            item = apply_event(
                _decode(row) if row is not None else None,
                kind=event.kind,
                action=event.action,
                key=key,
                ts=ts,
                data=data,
                family=family,
                model=model,
                service=service,
                url_lifetime=url_lifetime,
            )
            if item is None:
                return
            item["origin"] = origin
            columns = ", ".join(ITEM_COLUMNS)
            marks = ", ".join("?" for _ in ITEM_COLUMNS)
            updates = ", ".join(f"{c} = excluded.{c}" for c in ITEM_COLUMNS[2:])
            conn.execute(
                f"INSERT INTO items ({columns}) VALUES ({marks})"
                f" ON CONFLICT (kind, key) DO UPDATE SET {updates}",
                _encode(item),
            )

    # -- media --------------------------------------------------------------------------

    def store_media(self, key: str, data: bytes, suffix: str) -> str:
        """Write a result's bytes atomically into the media cache; note it on the item row.

        Returns the absolute path. The file is written even if the database is unavailable.
        """
        path = write_atomic(media_path(self.media_dir, key, suffix), data)
        kinds = self._kinds_for(key) or ["task"]
        for kind in kinds:
            event = LedgerEvent(
                kind=cast(EventKind, kind), action="stored", key=key, data={"local_file": str(path)}
            )
            self.record(event)
        return str(path)

    def cached_media(self, key: str) -> str | None:
        """Path of a cached file for ``key`` that still exists, or None."""
        for item in self._read(
            "SELECT * FROM items WHERE key = ? AND local_file IS NOT NULL", (key,)
        ):
            if Path(item["local_file"]).is_file():
                return str(item["local_file"])
        found = find_media(self.media_dir, key)
        return str(found) if found is not None else None

    def _kinds_for(self, key: str) -> list[str]:
        rows = self._read("SELECT kind FROM items WHERE key = ?", (key,))
        return [str(row["kind"]) for row in rows]

    # -- reading ------------------------------------------------------------------------

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        args = tuple(params)
        try:
            with self._lock:
                conn = self._connection()
                rows = self._retry(lambda: conn.execute(sql, args).fetchall())
        except (sqlite3.Error, OSError, RuntimeError) as exc:
            log.warning("history: read failed (%s)", type(exc).__name__)
            return []
        return [_decode(row) for row in rows]

    def items(
        self,
        kind: str | Iterable[str] | None = None,
        status: str | Iterable[str] | None = None,
        model: str | Iterable[str] | None = None,
        text: str | None = None,
    ) -> list[dict[str, Any]]:
        """Item rows, newest first; filters match exactly, ``text`` is a case-insensitive
        substring of prompt, answer text, error, key or model."""
        where: list[str] = []
        params: list[Any] = []
        for column, wanted in (("kind", kind), ("status", status), ("model", model)):
            if wanted is None:
                continue
            values = [wanted] if isinstance(wanted, str) else list(wanted)
            where.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
        sql = "SELECT * FROM items"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._read(sql + " ORDER BY created DESC, id DESC", params)
        if text:
            needle = text.casefold()
            rows = [
                r
                for r in rows
                if any(
                    needle in str(r.get(c) or "").casefold()
                    for c in ("prompt", "text", "error", "key", "model")
                )
            ]
        return rows

    def item(self, kind: str, key: str) -> dict[str, Any] | None:
        """One item row, or None."""
        rows = self._read("SELECT * FROM items WHERE kind = ? AND key = ?", (kind, key))
        return rows[0] if rows else None

    def keys_of(self, origin: str | None = None) -> set[tuple[str, str]]:
        """``(kind, key)`` of every item a process wrote an event for (default: this one).

        The History panel's "this session": what this kernel created, polled or resumed.
        """
        sql = "SELECT DISTINCT kind, key FROM events WHERE origin = ?"
        rows = self._read(sql, (self.origin if origin is None else origin,))
        return {(str(row["kind"]), str(row["key"])) for row in rows}

    def events(self, key: str | None = None) -> list[dict[str, Any]]:
        """Raw events in insertion order (all, or those of one key); ``data`` decoded."""
        sql = "SELECT * FROM events" + (" WHERE key = ?" if key is not None else "")
        rows = self._read(sql + " ORDER BY id", () if key is None else (key,))
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows


_default_lock = threading.Lock()
_default: Ledger | None = None


def ledger() -> Ledger:
    """This process's default ledger for the current ``$MEDIAGEN_HOME``.

    A new one is made when the variable changes (tests point it at temporary folders) or
    after a fork.
    """
    global _default  # noqa: PLW0603 - per-process singleton by design
    home = resolve_home()
    with _default_lock:
        current = _default
        if current is None or current.home != home or current._pid != os.getpid():
            current = _default = Ledger(home)
        return current
