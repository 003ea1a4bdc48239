"""Where each cell of a plan sits in a two-axis grid (shared by the grid widget and the
contact sheet): column and row labels, and the cell indices of each grid position."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mediagen_nb.sweeps._plan import SweepPlan


@dataclass(frozen=True)
class Layout:
    """Labels of the columns and rows, and per position the cells it holds (other axes)."""

    x: str
    y: str | None
    columns: list[Any]
    rows: list[Any]
    positions: dict[tuple[int, int], list[int]]
    """``(row, column)`` -> indices of the cells there (several when more axes vary)."""


def _values(plan: SweepPlan, name: str) -> list[Any]:
    if name in plan.axes:
        return list(plan.axes[name])
    if name in plan.fixed:
        return [plan.fixed[name]]
    raise ValueError(f"{name}: not a parameter of this sweep (axes: {', '.join(plan.axes)})")


def layout(plan: SweepPlan, x: str, y: str | None) -> Layout:
    """The grid of ``plan`` with axis ``x`` across and ``y`` down (default: another axis)."""
    if y is None:
        y = next((name for name in plan.axes if name != x), None)
    columns = _values(plan, x)
    rows = _values(plan, y) if y is not None else [""]
    positions: dict[tuple[int, int], list[int]] = {}
    for cell in plan.cells:
        col = columns.index(cell.params.get(x))
        row = rows.index(cell.params.get(y)) if y is not None else 0
        positions.setdefault((row, col), []).append(cell.index)
    return Layout(x, y, columns, rows, positions)


def label(value: Any) -> str:
    """A grid label: the value as text (a list of references as their count)."""
    if isinstance(value, list | tuple):
        return f"{len(value)} items"
    return str(value)
