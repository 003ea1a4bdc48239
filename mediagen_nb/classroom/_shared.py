"""What a ledger several gateways share adds: changes to catch up on, and task leases.

Each gateway keeps a short-lived copy of the class it refreshes from ``changes`` (budgets
never come from the copy). A task in flight is followed by the gateway holding its lease.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._ledger import ClassLedger
from mediagen_nb.classroom._rows import TaskRecord

LEASE_S: Final = 10.0
"""Default lease of a task in flight: its holder renews it at each poll (and at least every
third of it while waiting); another gateway takes the task over once it has expired."""
SYNC_S: Final = 0.5
"""How often a gateway catches up on what the other gateways changed."""


class StaleWriteError(Exception):
    """A write the shared ledger dropped: another gateway already stored this task's result
    (a follower that lost its lease mid-download); read the task again."""


@dataclass(frozen=True)
class Changes:
    """What changed in the shared store since a gateway last looked."""

    at: float
    """The store's clock when it was read (pass it back as ``since``)."""
    settings: dict[str, Any]
    students: list[Student]
    tasks: list[TaskRecord]
    chat_tokens: dict[str, int]
    """Every student's chat tokens (whole, not a change)."""


@runtime_checkable
class SharedLedger(ClassLedger, Protocol):
    """A ``ClassLedger`` several gateways share (PostgreSQL)."""

    holder: str
    """This gateway's id (leases and reservations name it)."""
    lease_s: float

    def changes(self, since: float | None) -> Changes:
        """What changed since ``since`` (None: everything)."""
        ...

    def find_task(self, task_id: str | None = None, media: str | None = None) -> TaskRecord | None:
        """One task by id or by its stored media file's name."""
        ...

    def claim_leases(self, limit: int = 100) -> list[TaskRecord]:
        """Take over tasks whose lease expired (their holder died): the tasks now held here."""
        ...

    def renew_lease(self, task_id: str) -> bool:
        """Extend this gateway's lease on ``task_id``; False when another gateway holds it."""
        ...

    def release_leases(self) -> None:
        """Give up every lease this gateway holds (it is stopping): others take them now."""
        ...
