"""What became of each cell of a run, and the DataFrame of them (one row per cell)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from mediagen_nb.client import Task
    from mediagen_nb.sweeps._plan import SweepPlan

COLUMNS = ("status", "task_id", "local_file", "elapsed", "error", "sweep_id")
CHAT_COLUMNS = ("text", "usage")
TERMINAL = frozenset({"completed", "failed", "cancelled", "invalid", "error", "unconfirmed"})
"""Outcomes of a cell: the service's task statuses, plus ``invalid`` (never sent),
``error`` (the request failed: refused, timed out, connection lost) and ``unconfirmed`` (a
create whose answer was lost; not sent again, to avoid paying twice)."""


@dataclass
class CellResult:
    """The state of one cell while and after the plan runs.

    Attributes:
        status: ``pending``, a task status, or ``invalid`` / ``error`` / ``unconfirmed``.
        task_id: The service's task id once the cell is created.
        local_file: The downloaded result in the media cache.
        elapsed: Seconds the cell took to reach its outcome.
        error: Why the cell failed, in one line.
        text: A chat cell's answer.
        usage: A chat cell's token usage, as the service reports it.
        task: The client task that followed the cell (not shown in the repr).
    """

    status: str = "pending"
    task_id: str | None = None
    local_file: str | None = None
    elapsed: float | None = None
    error: str | None = None
    text: str | None = None
    usage: dict[str, Any] | None = None
    task: Task | None = field(default=None, repr=False)

    @property
    def done(self) -> bool:
        """True once the cell has its outcome."""
        return self.status in TERMINAL


def rows(plan: SweepPlan) -> list[dict[str, Any]]:
    """One dict per cell: its axes, then the outcome columns."""
    out = []
    extra = CHAT_COLUMNS if plan.kind == "chat" else ()
    for cell in plan.cells:
        result = plan.results.get(cell.index) or CellResult()
        if not cell.valid:
            result = CellResult(status="invalid", error=cell.reason())
        row: dict[str, Any] = dict(cell.axes)
        for name in (*COLUMNS, *extra):
            row[name] = plan.sweep_id if name == "sweep_id" else getattr(result, name)
        out.append(row)
    return out


def frame(plan: SweepPlan) -> pd.DataFrame:
    """The plan's rows as a DataFrame (pandas is imported here only)."""
    import pandas as pd

    columns = [*plan.axes, *COLUMNS, *(CHAT_COLUMNS if plan.kind == "chat" else ())]
    return pd.DataFrame(rows(plan), columns=columns)
