"""``PostgresClassLedger``: the whole class in PostgreSQL, shared by several gateways.

A budget check is one transaction holding the class's and the student's usage rows; an
expired lease goes to one gateway (``SKIP LOCKED``). Needs psycopg 3 (the postgres extra).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from mediagen_nb.classroom._budget import (
    Claim,
    Reservation,
    model_name,
    needs_class_usage,
    refusal,
)
from mediagen_nb.classroom._chat_turns import TURN_COLUMNS, ChatTurn, turn_values
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._hub_groups import PG_COLUMN, PostgresHubGroups
from mediagen_nb.classroom._pg_schema import NOW, SCHEMA, SCHEMA_LOCK, usage_of
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
from mediagen_nb.classroom._shared import LEASE_S, Changes, StaleWriteError

if TYPE_CHECKING:
    import psycopg

SCHEMES: Final = ("postgresql://", "postgres://")
CATCH_UP_MARGIN_S: Final = 2.0
"""``changes`` re-reads rows changed this long before ``since``: a write whose transaction
committed after the last look (its timestamp is older than the commit) is never missed."""
DEAD_AFTER_LEASES: Final = 3
"""A gateway silent for this many leases is dead: its reservations are dropped."""


def is_postgres_url(url: object) -> bool:
    """Whether ``url`` names a PostgreSQL database."""
    return isinstance(url, str) and url.startswith(SCHEMES)


def _connect(dsn: str) -> psycopg.Connection[tuple[Any, ...]]:
    try:
        import psycopg
    except ImportError:
        raise RuntimeError(
            "ledger postgresql://... needs psycopg 3: pip install 'mediagen_nb[postgres]'"
        ) from None
    return psycopg.connect(dsn, autocommit=True)


class PostgresClassLedger(PostgresHubGroups):
    """``ClassLedger`` and ``SharedLedger`` in PostgreSQL.

    The same tables as the SQLite ledger, plus ``usage_locks`` (a row per student and one,
    ``''``, for the class), ``leases`` (which gateway follows each task in flight, until
    when) and ``gateways`` (each one's last sign of life). ``reserve`` reads the stored
    rules, locks the class's row (when a class-wide limit applies) then the student's
    (``SELECT ... FOR UPDATE``, always in that order) and counts what is used and held in
    one statement, so two gateways never both spend a student's last image. Times come
    from the server's clock, so every gateway compares leases on one clock.

    Args:
        dsn: ``postgresql://user@host:port/database`` (libpq's variables such as
            ``PGPASSWORD`` apply).
        lease_s: Seconds a gateway holds a task in flight without renewing it.
        holder: This gateway's id in leases and reservations (default: a fresh one).

    Raises:
        ValueError: ``lease_s`` is not above 0.
        RuntimeError: psycopg is not installed.
    """

    def __init__(self, dsn: str, *, lease_s: float = LEASE_S, holder: str | None = None) -> None:
        if lease_s <= 0:
            raise ValueError(f"lease must be a number of seconds > 0, not {lease_s}")
        self.holder = holder or "gw-" + secrets.token_hex(6)
        self.lease_s = float(lease_s)
        self._lock = threading.Lock()
        self._conn = _connect(dsn)
        self._read_lock = threading.Lock()
        self._reader = _connect(dsn)
        """Reads (catching up, look-ups, events) on a connection of their own: a long read
        in the gateway's background thread never holds up a budget check or a renewal."""
        with self._tx() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            for statement in (*SCHEMA, PG_COLUMN):
                conn.execute(statement)
            self._heartbeat(conn)

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        with self._lock, self._conn.transaction():
            yield self._conn

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._read_lock:
            return self._reader.execute(sql, args).fetchall()

    # --- the class's state ---------------------------------------------------------------------

    def load(self) -> Snapshot:
        """Read settings, students, tasks and chat usage."""
        found = self.changes(None)
        return Snapshot(found.settings, found.students, found.tasks, found.chat_tokens)

    def changes(self, since: float | None) -> Changes:
        """Settings, students and tasks changed since ``since`` (all when None), and every
        student's chat tokens, in one consistent read."""
        after = -1.0 if since is None else since - CATCH_UP_MARGIN_S
        with self._read_lock, self._reader.transaction():
            conn = self._reader
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            (at,) = conn.execute(f"SELECT {NOW}").fetchone() or (0.0,)
            settings = settings_from_rows(conn.execute("SELECT key, value FROM settings"))
            students = students_from_rows(
                conn.execute(
                    "SELECT name, code, revoked FROM students WHERE changed > %s "
                    "ORDER BY enrolled, name",
                    (after,),
                )
            )
            tasks = [
                task_from_data(data)
                for (data,) in conn.execute(
                    "SELECT data FROM tasks WHERE changed > %s ORDER BY created, id", (after,)
                )
            ]
            tokens = {
                str(student): int(total)
                for student, total in conn.execute(
                    "SELECT student, SUM(tokens) FROM chats GROUP BY student"
                )
            }
        return Changes(float(at), settings, students, tasks, tokens)

    def find_task(self, task_id: str | None = None, media: str | None = None) -> TaskRecord | None:
        """One task by id or by its media file's name (None when unknown)."""
        column, value = ("id", task_id) if task_id is not None else ("media", media)
        rows = self._rows(f"SELECT data FROM tasks WHERE {column} = %s", (value,))
        return task_from_data(rows[0][0]) if rows else None

    def save_setting(self, key: str, value: Any) -> None:
        """Store one setting."""
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (key, json.dumps(value)),
            )

    def save_student(self, student: Student) -> None:
        """Insert or update a student (enrolment time kept from the first save)."""
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO students (name, code, revoked, enrolled, changed) "
                f"VALUES (%s, %s, %s, {NOW}, {NOW}) ON CONFLICT (name) DO UPDATE SET "
                "code = EXCLUDED.code, revoked = EXCLUDED.revoked, changed = EXCLUDED.changed",
                (student.name, student.code, student.revoked),
            )

    def save_task(self, record: TaskRecord) -> None:
        """Insert or update a task (and its lease: taken by this gateway while it runs).

        Raises:
            StaleWriteError: the task already has another result (nothing was written).
        """
        with self._tx() as conn:
            self._save_task(conn, record)

    def _save_task(self, conn: psycopg.Connection[tuple[Any, ...]], record: TaskRecord) -> None:
        """Upsert; the first stored result wins (StaleWriteError for a write replacing it)."""
        row = task_columns(record)
        written = conn.execute(
            "INSERT INTO tasks (id, created, data, who, kind, counted, running, media, changed) "
            f"VALUES (%s, %s, %s, %s, %s, %s, %s, %s, {NOW}) ON CONFLICT (id) DO UPDATE SET "
            "data = EXCLUDED.data, who = EXCLUDED.who, kind = EXCLUDED.kind, "
            "counted = EXCLUDED.counted, running = EXCLUDED.running, media = EXCLUDED.media, "
            "changed = EXCLUDED.changed "
            "WHERE tasks.media IS NULL OR tasks.media IS NOT DISTINCT FROM EXCLUDED.media",
            row,
        )
        if written.rowcount == 0:
            raise StaleWriteError(f"task {record.id} already has its result")
        if row.running:
            conn.execute(
                "INSERT INTO leases (task_id, holder, expires) "
                f"VALUES (%s, %s, {NOW} + %s) ON CONFLICT (task_id) DO NOTHING",
                (record.id, self.holder, self.lease_s),
            )
        else:
            conn.execute("DELETE FROM leases WHERE task_id = %s", (record.id,))

    # --- budgets -------------------------------------------------------------------------------

    def _rules_now(self, conn: psycopg.Connection[tuple[Any, ...]], given: Rules) -> Rules:
        """The rules as stored (another gateway's teacher may have changed them)."""
        from mediagen_nb.classroom._state import rules_from_json

        row = conn.execute("SELECT value FROM settings WHERE key = 'rules'").fetchone()
        return rules_from_json(json.loads(row[0])) if row else given

    def reserve(self, rules: Rules, claim: Claim) -> Reservation | str:
        """Check and keep ``claim`` in one transaction holding the class's and the
        student's usage rows (``FOR UPDATE``)."""
        who = claim.student.casefold()
        part = "chat" if claim.kind == "chat" else "tasks"
        with self._tx() as conn:
            rules = self._rules_now(conn, rules)
            class_wide = needs_class_usage(rules, claim.kind)
            if class_wide:
                conn.execute("SELECT who FROM usage_locks WHERE who = '' FOR UPDATE")
            conn.execute(
                "INSERT INTO usage_locks (who) VALUES (%s) "
                "ON CONFLICT (who) DO UPDATE SET who = EXCLUDED.who",
                (who,),
            )
            mine = usage_of(conn, who, part)
            everyone = usage_of(conn, None, part) if class_wide else None
            refused = refusal(rules, claim, mine, everyone)
            if refused is not None:
                return refused
            held = Reservation(claim)
            conn.execute(
                "INSERT INTO reservations (id, who, kind, amount, created, claim, holder) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    held.id,
                    who,
                    claim.kind,
                    claim.amount,
                    held.created,
                    claim_json(claim),
                    self.holder,
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
        with self._tx() as conn:
            conn.execute("DELETE FROM reservations WHERE id = %s", (reservation.id,))
            if task is not None:
                self._save_task(conn, task)
            elif claim.kind == "chat":
                conn.execute(
                    "INSERT INTO chats (ts, student, who, path, model, tokens, outcome) "
                    f"VALUES ({NOW}, %s, %s, %s, %s, %s, %s)",
                    (
                        claim.student,
                        claim.student.casefold(),
                        claim.what,
                        model_name(claim.model),
                        tokens,
                        outcome,
                    ),
                )

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation (nothing was used)."""
        with self._tx() as conn:
            conn.execute("DELETE FROM reservations WHERE id = %s", (reservation.id,))

    def held(self) -> list[Reservation]:
        """Open reservations of every gateway, oldest first."""
        rows = self._rows(
            "SELECT id, kind, amount, created, claim FROM reservations ORDER BY created, id"
        )
        return [reservation_from_row(row) for row in rows]

    def usage(self, student: str | None = None) -> Usage:
        """Used and held, by every gateway (one read)."""
        with self._read_lock:
            return usage_of(self._reader, None if student is None else student.casefold())

    # --- leases --------------------------------------------------------------------------------

    def _heartbeat(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        conn.execute(
            f"INSERT INTO gateways (holder, seen) VALUES (%s, {NOW}) "
            "ON CONFLICT (holder) DO UPDATE SET seen = EXCLUDED.seen",
            (self.holder,),
        )

    def claim_leases(self, limit: int = 100) -> list[TaskRecord]:
        """Take over expired leases (``FOR UPDATE SKIP LOCKED``: one gateway each), mark
        this gateway alive, and drop the reservations of gateways long silent."""
        with self._tx() as conn:
            self._heartbeat(conn)
            conn.execute(
                "DELETE FROM reservations r WHERE NOT EXISTS (SELECT 1 FROM gateways g "
                f"WHERE g.holder = r.holder AND g.seen > {NOW} - %s)",
                (DEAD_AFTER_LEASES * self.lease_s,),
            )
            ids = [
                task_id
                for (task_id,) in conn.execute(
                    f"SELECT task_id FROM leases WHERE expires < {NOW} ORDER BY expires "
                    "LIMIT %s FOR UPDATE SKIP LOCKED",
                    (limit,),
                )
            ]
            if not ids:
                return []
            conn.execute(
                f"UPDATE leases SET holder = %s, expires = {NOW} + %s WHERE task_id = ANY(%s)",
                (self.holder, self.lease_s, ids),
            )
            rows = conn.execute("SELECT data FROM tasks WHERE id = ANY(%s)", (ids,)).fetchall()
        return [task_from_data(data) for (data,) in rows]

    def renew_lease(self, task_id: str) -> bool:
        """Extend this gateway's lease; False when another gateway holds it (or none does)."""
        with self._tx() as conn:
            done = conn.execute(
                f"UPDATE leases SET expires = {NOW} + %s WHERE task_id = %s AND holder = %s",
                (self.lease_s, task_id, self.holder),
            )
            return done.rowcount == 1

    def release_leases(self) -> None:
        """Let every task this gateway follows go (expired now: the next claim takes it)."""
        with self._tx() as conn:
            conn.execute("UPDATE leases SET expires = 0 WHERE holder = %s", (self.holder,))

    # --- events --------------------------------------------------------------------------------

    def log(self, student: str, action: str, key: str, **data: Any) -> None:
        """Append one event."""
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO events (ts, student, action, key, data) "
                f"VALUES ({NOW}, %s, %s, %s, %s)",
                (student, action, key, event_json(data)),
            )

    def events(self, limit: int = 1000) -> list[dict[str, Any]]:
        """The newest events of the class, newest first."""
        rows = self._rows(
            "SELECT ts, student, action, key, data FROM events ORDER BY id DESC LIMIT %s",
            (int(limit),),
        )
        return [event_from_row(row) for row in rows]

    def save_chat_turn(self, turn: ChatTurn) -> None:
        """Keep one chat turn."""
        with self._tx() as conn:
            conn.execute(
                f"INSERT INTO chat_turns ({TURN_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                turn_values(turn),
            )

    def chat_turns(self, student: str | None = None, limit: int = 200) -> list[ChatTurn]:
        """The newest chat turns of the class (or of ``student``), newest first."""
        columns = "ts, student, path, model, prompt, answer, tokens, outcome"
        where, args = ("WHERE who = %s", (student.casefold(),)) if student is not None else ("", ())
        rows = self._rows(
            f"SELECT {columns} FROM chat_turns {where} ORDER BY id DESC LIMIT %s",
            (*args, int(limit)),
        )
        return [ChatTurn(*row) for row in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock, self._read_lock:
            self._conn.close()
            self._reader.close()
