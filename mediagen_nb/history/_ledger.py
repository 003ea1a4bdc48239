"""The history ledger: an append-only SQLite log of every task, chat turn and asset event.

``Ledger`` implements :class:`mediagen_nb._hooks.Recorder`. Each ``record`` is one
transaction; it never raises and never loses an event without a word.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import sqlite3
import threading
import time
import uuid
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from mediagen_nb._home import resolve_home
from mediagen_nb._hooks import EventKind, LedgerEvent
from mediagen_nb._platform import is_browser
from mediagen_nb._sqlite import open_ledger
from mediagen_nb.history._fallback import (
    BROWSER_NOTICE,
    Handles,
    close_quietly,
    describe,
    open_memory,
)
from mediagen_nb.history._media import find_media, media_file, media_path, write_atomic
from mediagen_nb.history._rows import Prepared, decode, event_ids, prepare, write
from mediagen_nb.history._schema import migrate

log = logging.getLogger("mediagen_nb.history")

DB_NAME = "history.sqlite3"
MEDIA_DIR = "media"
_BACKLOG_MAX = 10_000
"""Events waiting for the file beyond this move to the in-memory fallback (with a notice)."""
_FILE_RETRY_S = 30.0
"""While falling back, how often ``record`` tries the file again (``flush()`` always does)."""
_UNUSABLE = (sqlite3.Error, OSError, RuntimeError)
"""Errors that mean the file cannot be used now."""
_T = TypeVar("_T")
ProblemCallback = Callable[[str], None]


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


@dataclass
class _Pending:
    """An event waiting for the file; ``in_memory`` once the fallback database has it."""

    row: Prepared
    ts: float
    in_memory: bool = False


class Ledger:
    """SQLite history under one home folder; the client's default ``Recorder``.

    Args:
        home: The history folder; None: ``$MEDIAGEN_HOME`` (default ``~/.mediagen_nb``).
        clock: Unix seconds for each event (tests inject one).
        busy_timeout_s: How long SQLite waits for a lock before one retry.
        max_wait_s: How long one write keeps retrying while another process holds the lock.
        origin: The process id written with each event (tests play a previous kernel).
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
        self._handles = Handles(os.getpid())
        self._finalizer = weakref.finalize(self, self._handles.close)
        self._finalizer.atexit = False  # at exit, _flush_at_exit still needs the file
        self._inherited: list[sqlite3.Connection] = []
        self._backlog: deque[_Pending] = deque()
        self._next_file_try = 0.0
        self._memory_only = False
        self._on_problem: list[ProblemCallback] = []
        self._on_write: list[Callable[[], None]] = []
        self.problem: str | None = None
        """What keeps the history from its file, and where (None while all is well)."""
        self.problem_expected = False
        """Whether ``problem`` is this platform's normal state (a browser tab keeps history in
        memory), not a failure: the panels show it as information, not as an error."""
        self.retries = 0
        """How many times a statement was retried because another writer held the lock."""
        _LIVE.add(self)

    def __repr__(self) -> str:
        return f"Ledger(home={str(self.home)!r})"

    @property
    def _conn(self) -> sqlite3.Connection | None:
        return self._handles.file

    @_conn.setter
    def _conn(self, conn: sqlite3.Connection | None) -> None:
        self._handles.file = conn

    @property
    def _memory(self) -> sqlite3.Connection | None:
        return self._handles.memory

    @_memory.setter
    def _memory(self, conn: sqlite3.Connection | None) -> None:
        self._handles.memory = conn

    @property
    def _pid(self) -> int:
        """The process that opened the file connection (it alone may close it)."""
        return self._handles.pid

    @_pid.setter
    def _pid(self, pid: int) -> None:
        self._handles.pid = pid

    @property
    def origin(self) -> str:
        """What this ledger writes as ``origin``: the process token unless overridden."""
        return self._origin if self._origin is not None else process_token()

    def on_problem(self, callback: ProblemCallback, remove: bool = False) -> None:
        """Call ``callback(problem)`` when the history falls back to memory."""
        with self._lock:
            if remove:
                if callback in self._on_problem:
                    self._on_problem.remove(callback)
            elif callback not in self._on_problem:
                self._on_problem.append(callback)

    def on_write(self, callback: Callable[[], None], remove: bool = False) -> None:
        """Call ``callback()`` after every write (the browser's store saves then)."""
        if remove:
            if callback in self._on_write:
                self._on_write.remove(callback)
        elif callback not in self._on_write:
            self._on_write.append(callback)

    def _wrote(self) -> None:
        for callback in list(self._on_write):
            try:
                callback()
            except Exception:
                log.exception("history: a write callback failed")

    def memory_connection(self) -> sqlite3.Connection:
        """The in-memory database (``use_memory`` made it); RuntimeError before that."""
        if self._memory is None:
            raise RuntimeError("the history is not kept in memory")
        return self._memory

    def forget_everything(self) -> None:
        """Delete every event and row of the in-memory database (the browser's Clear)."""
        with self._lock:
            memory = self.memory_connection()
            memory.execute("DELETE FROM events")
            memory.execute("DELETE FROM items")
            self._backlog.clear()

    def check(self) -> str | None:
        """Open the file (falling back when it cannot be used); return ``problem``."""
        self._read("SELECT 1 FROM items LIMIT 1")
        return self.problem

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
        conn, mode = open_ledger(
            self.db_path, busy_timeout_s=self._busy_timeout_s, retry=self._retry
        )
        if mode != "wal":
            log.warning("history database is not in WAL mode (%s); writes may block", mode)
        conn.row_factory = sqlite3.Row
        try:
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

    def close(self) -> None:
        """Close this process's connection (a later call opens a new one)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                close_quietly(self._conn)
            self._conn = None

    # -- the fallback -------------------------------------------------------------------

    def use_memory(self, reason: str, *, expected: bool = False) -> None:
        """Keep this session's history in memory from now on (see ``_fallback``).

        Called when the file fails; callable directly where SQLite cannot use a file.
        ``expected``: the normal state of this platform (the browser), logged at INFO, as a
        warning would be drawn as an error box under the cell; the notice still shows, as
        information rather than an error (``problem_expected``).
        """
        with self._lock:
            if self._memory is None:
                self._memory = open_memory(self.db_path)
            self._next_file_try = time.monotonic() + _FILE_RETRY_S
            if self.problem == reason:
                return
            self.problem = reason
            self.problem_expected = expected
            callbacks = list(self._on_problem)
        log.log(logging.INFO if expected else logging.WARNING, "%s", reason)
        for callback in callbacks:
            try:
                callback(reason)
            except Exception:
                log.exception("history: a problem callback failed")

    def keep_in_memory(self, reason: str) -> None:
        """Use the in-memory database for good (the browser: a file there does not outlive
        the tab, or SQLite cannot use it); ``reason`` becomes the notice. Never tries the file
        again; ``mediagen_nb.export_history`` / ``import_history`` carry it across."""
        with self._lock:
            self._memory_only = True
        self.use_memory(reason, expected=True)

    def _fall_back(self, exc: BaseException) -> None:
        self.close()
        self.use_memory(describe(self.db_path, exc))

    def _leave_memory(self) -> None:
        """The file works again and holds everything: read from it from now on."""
        close_quietly(self._memory)
        self._memory = None
        self.problem = None
        self.problem_expected = False
        log.warning("history: the file %s is usable again", self.db_path)

    # -- writing ------------------------------------------------------------------------

    def record(self, event: LedgerEvent) -> None:
        """Append ``event`` and update its item row in one transaction; never raises."""
        row = prepare(event)
        with self._lock:
            self._backlog.append(_Pending(row, self._clock()))
            due = self._memory is None or time.monotonic() >= self._next_file_try
            self._flush_locked(to_file=due)
        self._wrote()

    def flush(self) -> int:
        """Try the file again for events not yet written there; return how many remain."""
        with self._lock:
            self._flush_locked(to_file=True)
            return len(self._backlog)

    def _flush_locked(self, *, to_file: bool) -> None:
        if to_file and not self._memory_only:
            self._flush_to_file()
        if len(self._backlog) >= _BACKLOG_MAX and self._memory is None:
            self.use_memory(
                describe(self.db_path, f"locked by another process; {len(self._backlog)} waiting")
            )
        if self._memory is not None:
            self._mirror()
            if self._memory_only:
                self._backlog.clear()  # in memory for good: nothing waits for the file
            while len(self._backlog) > _BACKLOG_MAX:
                self._backlog.popleft()  # in memory already; the file never gets it
                log.warning("history: an event kept only in memory (file unusable)")

    def _flush_to_file(self) -> None:
        while self._backlog:
            pending = self._backlog[0]
            try:
                self._retry(lambda: self._write_to_file(pending))  # noqa: B023 - called at once
            except _UNUSABLE as exc:
                if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                    log.warning("history: the file is locked; %d events wait", len(self._backlog))
                else:
                    self._fall_back(exc)
                return
            self._backlog.popleft()
        if self._memory is not None:
            self._leave_memory()

    def _write_to_file(self, pending: _Pending) -> None:
        write(self._connection(), pending.row, pending.ts, self.origin)

    def _mirror(self) -> None:
        """Write events the memory database does not have yet into it."""
        memory = self._memory
        assert memory is not None
        for pending in self._backlog:
            if pending.in_memory:
                continue
            write(memory, pending.row, pending.ts, self.origin)
            pending.in_memory = True

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
        """Path of a cached file for ``key`` that still exists inside the media folder (a
        path elsewhere, say from an imported history, is never returned), or None."""
        for item in self._read(
            "SELECT * FROM items WHERE key = ? AND local_file IS NOT NULL", (key,)
        ):
            if media_file(self.media_dir, item["local_file"]) is not None:
                return str(item["local_file"])
        found = find_media(self.media_dir, key)
        return str(found) if found is not None else None

    def _kinds_for(self, key: str) -> list[str]:
        rows = self._read("SELECT kind FROM items WHERE key = ?", (key,))
        return [str(row["kind"]) for row in rows]

    # -- reading ------------------------------------------------------------------------

    def _read(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        args = tuple(params)
        with self._lock:
            try:
                rows = self._retry(lambda: self._reader().execute(sql, args).fetchall())
            except _UNUSABLE as exc:
                if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                    log.warning("history: read failed (%s)", type(exc).__name__)
                    return []
                self._fall_back(exc)
                rows = self._reader().execute(sql, args).fetchall()
        return [decode(row) for row in rows]

    def _reader(self) -> sqlite3.Connection:
        return self._memory if self._memory is not None else self._connection()

    def items(
        self,
        kind: str | Iterable[str] | None = None,
        status: str | Iterable[str] | None = None,
        model: str | Iterable[str] | None = None,
        text: str | None = None,
        sweep_id: str | Iterable[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Item rows, newest first; filters match exactly, ``text`` is a case-insensitive
        substring of prompt, answer text, error, key or model."""
        where: list[str] = []
        params: list[Any] = []
        filters = (("kind", kind), ("status", status), ("model", model), ("sweep_id", sweep_id))
        for column, wanted in filters:
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

    def events(
        self, key: str | None = None, kind: str | None = None, *, sweep_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Raw events in insertion order (all, or those of one key, kind, or sweep: the events
        whose data names ``sweep_id``); ``data`` decoded."""
        where = [(f"{c} = ?", v) for c, v in (("key", key), ("kind", kind)) if v is not None]
        if sweep_id is not None:
            where.append(("json_extract(data, '$.sweep_id') = ?", sweep_id))
        sql = "SELECT * FROM events"
        if where:
            sql += " WHERE " + " AND ".join(c for c, _v in where)
        rows = self._read(sql + " ORDER BY id", [v for _c, v in where])
        for row in rows:
            row["data"] = json.loads(row["data"])
        return rows

    def restore(
        self, events: Iterable[tuple[LedgerEvent, float, str]], *, quiet: bool = False
    ) -> int:
        """Write ``(event, ts, origin)`` triples the ledger does not hold yet (same time,
        kind, action, key and origin); return how many were added (see ``_backup``).
        ``quiet``: do not call the ``on_write`` callbacks (the caller saves itself)."""
        with self._lock:
            self._flush_locked(to_file=not self._memory_only)
            if self._memory is None:
                self._read("SELECT 1 FROM events LIMIT 1")  # opens the file, or falls back
            conn = self._reader()
            have = event_ids(conn)
            added = 0
            for event, ts, origin in sorted(events, key=lambda item: item[1]):
                if (ts, event.kind, event.action, event.key, origin) in have:
                    continue
                write(conn, prepare(event), ts, origin)
                added += 1
        if added and not quiet:
            self._wrote()
        return added


_LIVE: weakref.WeakSet[Ledger] = weakref.WeakSet()


@atexit.register
def _flush_at_exit() -> None:
    """Write what still waits in any ledger's backlog before the interpreter ends."""
    for store in list(_LIVE):
        if store._backlog and store._pid == os.getpid():
            try:
                remaining = store.flush()
            except Exception:  # exit must go on
                remaining = len(store._backlog)
            if remaining:
                log.warning("history: %d events could not be written before exit", remaining)


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
            if current is not None and current.home != home:
                current.close()  # its file connection; whoever still holds it reopens it
            current = _default = Ledger(home)
            if is_browser():  # kept in the browser's IndexedDB, else in memory only
                from mediagen_nb.history._browser import attach

                if attach(current) is None:
                    current.keep_in_memory(BROWSER_NOTICE)
        return current
