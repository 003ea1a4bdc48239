"""The PostgreSQL ledger's tables, and what a student or the class uses and holds in them.

Times are seconds since the epoch from the server's clock (``NOW``), so every gateway
compares leases and changes on one clock. Usage queries read indexes, never a task's JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from mediagen_nb.classroom._rules import Usage

if TYPE_CHECKING:
    import psycopg

NOW: Final = "extract(epoch from clock_timestamp())::float8"
SCHEMA_LOCK: Final = 0x6D6763_6C617373
"""Advisory lock id held while a gateway creates the tables (gateways may start at once)."""
SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS events (id BIGSERIAL PRIMARY KEY, ts FLOAT8 NOT NULL,
        student TEXT NOT NULL, action TEXT NOT NULL, key TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}')""",
    """CREATE TABLE IF NOT EXISTS students (name TEXT PRIMARY KEY, code TEXT,
        revoked BOOLEAN NOT NULL DEFAULT false, enrolled FLOAT8 NOT NULL,
        changed FLOAT8 NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, created FLOAT8 NOT NULL,
        data TEXT NOT NULL, who TEXT NOT NULL, kind TEXT NOT NULL, counted BOOLEAN NOT NULL,
        running BOOLEAN NOT NULL, media TEXT, changed FLOAT8 NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, who TEXT NOT NULL,
        kind TEXT NOT NULL, amount INTEGER NOT NULL, created FLOAT8 NOT NULL,
        claim TEXT NOT NULL, holder TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS chats (id BIGSERIAL PRIMARY KEY, ts FLOAT8 NOT NULL,
        student TEXT NOT NULL, who TEXT NOT NULL, path TEXT NOT NULL, model TEXT NOT NULL,
        tokens INTEGER NOT NULL, outcome TEXT NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS usage_locks (who TEXT PRIMARY KEY)",
    "INSERT INTO usage_locks (who) VALUES ('') ON CONFLICT DO NOTHING",
    """CREATE TABLE IF NOT EXISTS leases (task_id TEXT PRIMARY KEY, holder TEXT NOT NULL,
        expires FLOAT8 NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS gateways (holder TEXT PRIMARY KEY, seen FLOAT8 NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tasks_who ON tasks (who, counted, kind, running)",
    "CREATE INDEX IF NOT EXISTS tasks_class ON tasks (counted, kind, running)",
    "CREATE INDEX IF NOT EXISTS tasks_changed ON tasks (changed)",
    "CREATE INDEX IF NOT EXISTS tasks_media ON tasks (media)",
    "CREATE INDEX IF NOT EXISTS students_changed ON students (changed)",
    "CREATE INDEX IF NOT EXISTS reservations_who ON reservations (who, kind, amount)",
    "CREATE INDEX IF NOT EXISTS chats_who ON chats (who, tokens)",
    "CREATE INDEX IF NOT EXISTS leases_expires ON leases (expires)",
)


def usage_of(
    conn: psycopg.Connection[tuple[Any, ...]], who: str | None, part: str = "all"
) -> Usage:
    """Used and held, of one student (casefolded name) or of the class (None); ``part``
    ``tasks`` or ``chat`` reads only what a claim of that kind is checked against."""
    where, args = ("AND who = %s", (who,)) if who is not None else ("", ())
    made = {"image": 0, "video": 0, "chat": 0}
    running = 0
    if part != "chat":
        for kind, count, live in conn.execute(
            "SELECT kind, COUNT(*), COUNT(*) FILTER (WHERE running) FROM tasks "
            f"WHERE counted {where} GROUP BY kind",
            args,
        ):
            made[kind] = made.get(kind, 0) + int(count)
            running += int(live)
    for kind, count, amount in conn.execute(
        f"SELECT kind, COUNT(*), SUM(amount) FROM reservations WHERE true {where} GROUP BY kind",
        args,
    ):
        made[kind] = made.get(kind, 0) + int(amount if kind == "chat" else count)
        running += int(count) if kind != "chat" else 0
    if part != "tasks":
        chat_where = "WHERE who = %s" if who is not None else ""
        row = conn.execute(f"SELECT COALESCE(SUM(tokens), 0) FROM chats {chat_where}", args)
        made["chat"] += int((row.fetchone() or (0,))[0])
    return Usage(made["image"], made["video"], running, made["chat"])
