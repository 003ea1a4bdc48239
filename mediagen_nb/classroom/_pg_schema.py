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
    """CREATE TABLE IF NOT EXISTS chat_turns (id BIGSERIAL PRIMARY KEY, ts FLOAT8 NOT NULL,
        student TEXT NOT NULL, who TEXT NOT NULL, path TEXT NOT NULL, model TEXT NOT NULL,
        prompt TEXT NOT NULL, answer TEXT NOT NULL, tokens INTEGER NOT NULL,
        outcome TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS chat_turns_who ON chat_turns (who, id)",
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
    ``tasks`` or ``chat`` reads only what a claim of that kind is checked against.

    One statement, so one snapshot: a request settling meanwhile (its reservation gone, its
    task or chat in) is counted once, never zero times, as separate reads could."""
    where, args = ("AND who = %s", [who]) if who is not None else ("", [])
    parts = [
        "SELECT 'held', kind, COUNT(*), COALESCE(SUM(amount), 0) FROM reservations "
        f"WHERE true {where} GROUP BY kind"
    ]
    if part != "chat":
        parts.append(
            "SELECT 'task', kind, COUNT(*), COUNT(*) FILTER (WHERE running) FROM tasks "
            f"WHERE counted {where} GROUP BY kind"
        )
    if part != "tasks":
        parts.append(
            f"SELECT 'chat', 'chat', COALESCE(SUM(tokens), 0), 0 FROM chats WHERE true {where}"
        )
    made = {"image": 0, "video": 0, "chat": 0}
    running = 0
    rows = conn.execute(" UNION ALL ".join(parts), args * len(parts)).fetchall()
    for source, kind, count, other in rows:
        if source == "held":
            made[kind] += int(other if kind == "chat" else count)
            running += int(count) if kind != "chat" else 0
        else:
            made[kind] += int(count)
            running += int(other) if source == "task" else 0
    return Usage(made["image"], made["video"], running, made["chat"])
