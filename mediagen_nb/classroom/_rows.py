"""The class ledger's records and how they map to table rows, for SQLite and PostgreSQL alike.

Both ledgers store the same columns and read them back through these functions, so a field
added to a record is stored and loaded the same way in either database.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Final, NamedTuple

from mediagen_nb.classroom._budget import BudgetKind, Claim, Reservation, model_name
from mediagen_nb.classroom._codes import Student

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})


@dataclass
class TaskRecord:
    """One student's image or video task as the gateway knows it.

    The teacher sees these in ``ClassroomHandle.tasks()`` and the panel; the gateway keeps
    them in its ledger, so a restarted gateway knows every task.

    Attributes:
        id: The service's task id (``refused-...`` for a create the gateway refused).
        student: The student's name as shown on the wall.
        kind: ``"image"`` or ``"video"``.
        family: The model family's id (``"banana"``, ``"sora"``...).
        model: The model the student asked for.
        prompt: The student's prompt.
        status: The service's status word (``queued``, ``processing``, ``completed``,
            ``failed``, ``cancelled``).
        created: When the task was created (Unix seconds).
        updated: When its status last changed (Unix seconds).
        error: The sentence saying why it failed or was refused, else None.
        result: The service's last result object, its media URL removed (never shown as is).
        media: File name of the stored result in the class's media folder.
        hidden: The teacher hid it from the wall.
        approved: The teacher approved it for the wall (read only while the class needs
            approval).
        refused: The create was refused (by the gateway's rules, or by the service at once):
            no task runs and nothing counts against the student's limits.
        upstream_polls: Polls the gateway sent upstream for it in this run (not stored).
        student_polls: Polls students sent for it in this run (not stored).
    """

    id: str
    student: str
    kind: str
    family: str
    model: str
    prompt: str
    status: str
    created: float
    updated: float
    error: str | None = None
    result: dict[str, Any] | None = None
    media: str | None = None
    hidden: bool = False
    approved: bool = False
    refused: bool = False
    upstream_polls: int = field(default=0, compare=False)
    student_polls: int = field(default=0, compare=False)

    @property
    def done(self) -> bool:
        """Terminal, with its media stored when it completed."""
        return self.status in TERMINAL


@dataclass(frozen=True)
class Snapshot:
    """Everything a gateway loads at start."""

    settings: dict[str, Any]
    students: list[Student]
    tasks: list[TaskRecord]
    chat_tokens: dict[str, int]


_TASK_FIELDS: Final = frozenset(f.name for f in fields(TaskRecord) if f.compare)
"""Stored fields (the poll counters are per run, not stored)."""


def task_data(record: TaskRecord) -> dict[str, Any]:
    """The stored fields of ``record`` (JSON-ready)."""
    return {k: v for k, v in asdict(record).items() if k in _TASK_FIELDS}


class TaskColumns(NamedTuple):
    """A task's row in ``tasks``: its JSON and the columns the budget checks read."""

    id: str
    created: float
    data: str
    who: str
    """The student's name casefolded (budgets compare names case-insensitively)."""
    kind: str
    counted: bool
    """It counts against the limits (a refused create does not)."""
    running: bool
    """Counted and not finished: it holds a running slot."""
    media: str | None


def task_columns(record: TaskRecord) -> TaskColumns:
    """The row that stores ``record``."""
    counted = not record.refused
    return TaskColumns(
        record.id,
        record.created,
        json.dumps(task_data(record)),
        record.student.casefold(),
        record.kind,
        counted,
        counted and not record.done,
        record.media,
    )


def task_from_data(data: str) -> TaskRecord:
    """The task stored as ``data`` (the ``tasks.data`` column)."""
    return TaskRecord(**json.loads(data))


def students_from_rows(rows: Iterable[tuple[Any, ...]]) -> list[Student]:
    """Students from ``(name, code, revoked)`` rows."""
    return [Student(name, code, bool(revoked)) for name, code, revoked in rows]


def settings_from_rows(rows: Iterable[tuple[Any, ...]]) -> dict[str, Any]:
    """Settings from ``(key, value)`` rows, each value JSON."""
    return {key: json.loads(value) for key, value in rows}


def claim_json(claim: Claim) -> str:
    """What ``reservations.claim`` keeps of ``claim`` (its kind and amount are columns)."""
    kept = {"student": claim.student, "model": model_name(claim.model), "what": claim.what}
    return json.dumps(kept)


def reservation_from_row(row: tuple[Any, ...]) -> Reservation:
    """A reservation from an ``(id, kind, amount, created, claim)`` row."""
    rid, kind, amount, created, raw = row
    data = json.loads(raw)
    kept: BudgetKind = kind
    claim = Claim(data["student"], kept, int(amount), data["model"], data["what"])
    return Reservation(claim, id=rid, created=created)


def event_json(data: dict[str, Any]) -> str:
    """What ``events.data`` keeps of an event's details (anything else as text)."""
    return json.dumps(data, default=str)


def event_from_row(row: tuple[Any, ...]) -> dict[str, Any]:
    """An event from a ``(ts, student, action, key, data)`` row."""
    ts, student, action, key, data = row
    return {"ts": ts, "student": student, "action": action, "key": key, **json.loads(data)}
