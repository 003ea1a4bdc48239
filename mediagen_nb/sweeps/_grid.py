"""``plan.grid(x, y)``: a :class:`~mediagen_nb.widgets.SweepGrid` that follows the plan's run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mediagen_nb.sweeps._layout import Layout, label, layout

if TYPE_CHECKING:
    from mediagen_nb.sweeps._plan import SweepPlan
    from mediagen_nb.widgets import SweepGrid


def _entry(plan: SweepPlan, indices: list[int]) -> dict[str, Any]:
    """What a position shows: its first cell's status, note and picture."""
    from mediagen_nb.widgets._sweep_grid import picture_src

    cell = plan.cells[indices[0]]
    if not cell.valid:
        return {"status": "invalid", "note": cell.reason(), "src": "", "alt": ""}
    result = plan.results.get(cell.index)
    status = result.status if result is not None else "pending"
    note = (result.error or status) if result is not None else status
    if result is not None and result.text:
        note = result.text[:280]
    src = picture_src(result.local_file) if result is not None and status == "completed" else ""
    alt = f"{cell.model}: {cell.params.get('prompt', '')}"
    return {"status": status, "note": note, "src": src, "alt": alt}


def grid_for(plan: SweepPlan, x: str, y: str | None) -> SweepGrid:
    """A grid widget of ``plan`` (see :meth:`SweepPlan.grid`), updated on every change."""
    from mediagen_nb.widgets import SweepGrid

    where = layout(plan, x, y)
    widget = SweepGrid(
        x_label=where.x,
        y_label=where.y or "",
        columns=[label(v) for v in where.columns],
        rows=[label(v) for v in where.rows],
        cells=[
            {"row": r, "col": c, **_entry(plan, cells)}
            for (r, c), cells in sorted(where.positions.items())
        ],
    )
    plan.on_change(_follower(plan, widget, where))
    return widget


def _follower(plan: SweepPlan, widget: SweepGrid, where: Layout) -> Any:
    place = {i: pos for pos, cells in where.positions.items() for i in cells[:1]}

    def changed(index: int) -> None:
        pos = place.get(index)
        if pos is not None:
            widget.set_cell(*pos, **_entry(plan, where.positions[pos]))

    return changed
