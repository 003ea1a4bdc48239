"""What a student or the class uses and holds, read from the SQLite ledger's tables.

Every query reads a covering index (``INDEXES``), never a task's JSON, so a budget check stays
cheap as the class's tasks and chats grow.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from mediagen_nb.classroom._rules import Usage

INDEXES: Final = (
    "CREATE INDEX IF NOT EXISTS tasks_who ON tasks (who, counted, kind, running)",
    "CREATE INDEX IF NOT EXISTS tasks_class ON tasks (counted, kind, running)",
    "CREATE INDEX IF NOT EXISTS chats_student ON chats (student COLLATE NOCASE, tokens)",
    "CREATE INDEX IF NOT EXISTS chats_tokens ON chats (tokens)",
)


def usage_of(conn: sqlite3.Connection, who: str | None, part: str = "all") -> Usage:
    """Used and held, of one student (casefolded name) or of the class (None); ``part``
    ``tasks`` or ``chat`` reads only what a claim of that kind is checked against."""
    where, args = ("AND who = ?", (who,)) if who is not None else ("", ())
    made = {"image": 0, "video": 0, "chat": 0}
    running = 0
    if part != "chat":
        for kind, count, live in conn.execute(
            f"SELECT kind, COUNT(*), SUM(running) FROM tasks WHERE counted = 1 {where} "
            "GROUP BY kind",
            args,
        ):
            made[kind] = made.get(kind, 0) + count
            running += live or 0
    for kind, count, amount in conn.execute(
        f"SELECT kind, COUNT(*), SUM(amount) FROM reservations WHERE 1 {where} GROUP BY kind",
        args,
    ):
        made[kind] = made.get(kind, 0) + (amount if kind == "chat" else count)
        running += count if kind != "chat" else 0
    if part != "tasks":
        chat_where = "WHERE student = ? COLLATE NOCASE" if who is not None else ""
        sql = f"SELECT COALESCE(SUM(tokens), 0) FROM chats {chat_where}"
        made["chat"] += int(conn.execute(sql, args).fetchone()[0])
    return Usage(made["image"], made["video"], running, made["chat"])
