"""``plan.contact_sheet(path)``: the sweep's pictures as one labelled PNG (Pillow draws it);
a cell without a picture is a grey tile saying its status."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mediagen_nb.sweeps._layout import label, layout

if TYPE_CHECKING:
    from PIL import Image as PILImage

    from mediagen_nb.sweeps._plan import SweepPlan

TILE = 256
GAP = 8
HEAD = 28
"""Height of the column labels; the row labels get ``SIDE`` pixels on the left."""
SIDE = 160


def _tile(path: str | None, note: str) -> PILImage.Image:
    from PIL import Image, ImageDraw

    if path and Path(path).is_file():
        with Image.open(path) as picture:
            picture.thumbnail((TILE, TILE))
            tile = Image.new("RGB", (TILE, TILE), "white")
            tile.paste(picture.convert("RGB"), ((TILE - picture.width) // 2, 0))
            return tile
    tile = Image.new("RGB", (TILE, TILE), (224, 224, 224))
    ImageDraw.Draw(tile).text((12, TILE // 2 - 6), note, fill=(40, 40, 40))
    return tile


def contact_sheet(plan: SweepPlan, path: str, x: str, y: str | None) -> str:
    """Write the grid of ``plan`` (``x`` across, ``y`` down) to ``path`` as a PNG.

    Args:
        plan: a sweep whose cells have run (or are running: unfinished cells say so).
        path: the PNG file to write.
        x: the axis across.
        y: the axis down (default: another axis).

    Returns:
        The path written.

    Raises:
        ImportError: without Pillow (a browser kernel).
    """
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:
        raise ImportError("plan.contact_sheet() needs Pillow (pip install pillow)") from exc
    grid = layout(plan, x, y)
    width = SIDE + len(grid.columns) * (TILE + GAP)
    height = HEAD + len(grid.rows) * (TILE + GAP)
    sheet = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(sheet)
    for col, value in enumerate(grid.columns):
        draw.text((SIDE + col * (TILE + GAP) + 4, 8), label(value)[:40], fill="black")
    for row, value in enumerate(grid.rows):
        top = HEAD + row * (TILE + GAP)
        draw.text((4, top + TILE // 2), label(value)[:24], fill="black")
        for col in range(len(grid.columns)):
            cells = grid.positions.get((row, col), [])
            index = cells[0] if cells else None
            result = plan.results.get(index) if index is not None else None
            cell = plan.cells[index] if index is not None else None
            note = "invalid" if cell is not None and not cell.valid else "pending"
            note = result.status if result is not None and cell and cell.valid else note
            tile = _tile(result.local_file if result else None, note)
            sheet.paste(tile, (SIDE + col * (TILE + GAP), top))
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(target, format="PNG")
    return str(target)
