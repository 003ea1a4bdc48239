"""Students' chat turns as the teacher reads them: prompt, an excerpt of the answer, tokens.

One row per forwarded chat that ended (``chat_turns`` in the SQLite ledger); the prompt is
the last user message and both texts are cut to ``TURN_EXCERPT`` characters, so a long
conversation costs the ledger little.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Any, Final

TURN_EXCERPT: Final = 300
SCHEMA: Final = """CREATE TABLE IF NOT EXISTS chat_turns (id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL, student TEXT NOT NULL, who TEXT NOT NULL, path TEXT NOT NULL,
    model TEXT NOT NULL, prompt TEXT NOT NULL, answer TEXT NOT NULL, tokens INTEGER NOT NULL,
    outcome TEXT NOT NULL)"""
INDEX: Final = "CREATE INDEX IF NOT EXISTS chat_turns_who ON chat_turns (who, id)"


@dataclass(frozen=True)
class ChatTurn:
    """One chat request and its reply, as kept for the teacher."""

    ts: float
    student: str
    path: str
    """``/v1/chat/completions`` or ``/v1/messages``."""
    model: str
    prompt: str
    """The last user message (an excerpt)."""
    answer: str
    """The reply's text (an excerpt; '' when it failed or had none)."""
    tokens: int
    outcome: str
    """``ok``, ``cut`` (the stream ended early) or ``error``."""

    def as_dict(self) -> dict[str, Any]:
        """The turn as a plain dict (the teacher's views)."""
        return asdict(self)


def answer_text(data: Any) -> str:
    """The reply text in one chat object or stream event (both protocols)."""
    if not isinstance(data, dict):
        return ""
    out: list[str] = []
    for choice in data.get("choices") or ():
        parts = (choice.get("message"), choice.get("delta")) if isinstance(choice, dict) else ()
        for part in parts:
            if isinstance(part, dict):
                out += [part[k] for k in ("content", "refusal") if isinstance(part.get(k), str)]
    blocks = data.get("content")
    for block in blocks if isinstance(blocks, list) else ():
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            out.append(block["text"])
    delta = data.get("delta")
    if isinstance(delta, dict) and delta.get("type") == "text_delta":
        out.append(str(delta.get("text", "")))
    return "".join(out)


TURN_COLUMNS: Final = "ts, student, who, path, model, prompt, answer, tokens, outcome"
"""The columns a turn is stored in, in the order of :func:`turn_values`."""


def turn_values(turn: ChatTurn) -> tuple[Any, ...]:
    """The row of ``turn`` (both ledgers store it the same way)."""
    return (
        turn.ts,
        turn.student,
        turn.student.casefold(),
        turn.path,
        turn.model,
        turn.prompt,
        turn.answer,
        turn.tokens,
        turn.outcome,
    )


def insert_turn(conn: sqlite3.Connection, turn: ChatTurn) -> None:
    """Store ``turn`` (inside the caller's transaction)."""
    conn.execute(
        f"INSERT INTO chat_turns ({TURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        turn_values(turn),
    )


def select_turns(conn: sqlite3.Connection, student: str | None, limit: int) -> list[ChatTurn]:
    """The newest ``limit`` turns of ``student`` (None: everyone), newest first."""
    columns = "ts, student, path, model, prompt, answer, tokens, outcome"
    if student is None:
        rows = conn.execute(
            f"SELECT {columns} FROM chat_turns ORDER BY id DESC LIMIT ?", (int(limit),)
        )
    else:
        rows = conn.execute(
            f"SELECT {columns} FROM chat_turns WHERE who = ? ORDER BY id DESC LIMIT ?",
            (student.casefold(), int(limit)),
        )
    return [ChatTurn(*row) for row in rows]
