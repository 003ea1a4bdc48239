"""``SweepGrid``: a sweep's cells as a labelled table (columns one axis, rows another), live.

Python sends labels and one small entry per position (status, a short note, a thumbnail as a
data URL once the picture is kept); the front end (``static/sweep_grid.js``) draws a
semantic table. It knows nothing of sweeps: ``mediagen_nb.sweeps`` fills it.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anywidget
import traitlets as t

from mediagen_nb.widgets._frontend import STATIC
from mediagen_nb.widgets._preview import thumbnail

GRID_THUMB_PX = 192


class SweepGrid(anywidget.AnyWidget):
    """A grid of results: ``columns`` across, ``rows`` down, ``cells`` by position."""

    _esm = STATIC / "sweep_grid.js"
    _css = STATIC / "sweep_grid.css"
    x_label = t.Unicode("").tag(sync=True)
    """What the columns are (an axis name, e.g. "model")."""
    y_label = t.Unicode("").tag(sync=True)
    """What the rows are ("" for one row)."""
    columns = t.List(t.Unicode()).tag(sync=True)
    """Column labels."""
    rows = t.List(t.Unicode()).tag(sync=True)
    """Row labels."""
    cells = t.List(t.Dict()).tag(sync=True)
    """``{"row", "col", "status", "note", "src", "alt"}`` per position."""

    def set_cell(self, row: int, col: int, **entry: Any) -> None:
        """Replace the entry at ``(row, col)`` (the list is sent again: traits compare by
        value, so the trait gets a new list)."""
        cells = [c for c in self.cells if (c.get("row"), c.get("col")) != (row, col)]
        cells.append({"row": row, "col": col, **entry})
        self.cells = sorted(cells, key=lambda c: (c["row"], c["col"]))


def picture_src(path: str | None) -> str:
    """A small thumbnail of the picture at ``path`` as a data URL ("" when there is none)."""
    if not path or not Path(path).is_file():
        return ""
    try:
        data, mime = thumbnail(Path(path).read_bytes(), GRID_THUMB_PX)
    except (OSError, ValueError):
        return ""
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
