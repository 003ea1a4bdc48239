"""``plan.contact_sheet(path)``: the sweep's pictures as one labelled PNG; a cell without a
picture is a grey tile saying its status. Pillow draws it; without Pillow (the browser) the
pure-Python PNG path does (``_png`` decodes PNG results, ``_png_text`` draws the labels).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from mediagen_nb.sweeps._layout import Layout, label, layout

if TYPE_CHECKING:
    from PIL import Image as PILImage

    from mediagen_nb.sweeps._plan import SweepPlan

TILE = 256
GAP = 8
HEAD = 28
"""Height of the column labels; the row labels get ``SIDE`` pixels on the left."""
SIDE = 160
GREY = (224, 224, 224)


def _tiles(plan: SweepPlan, grid: Layout) -> dict[tuple[int, int], tuple[str | None, str]]:
    """Per grid position: the picture file (if any) and the status to write instead."""
    out = {}
    for (row, col), cells in grid.positions.items():
        cell = plan.cells[cells[0]]
        result = plan.results.get(cell.index)
        note = "invalid" if not cell.valid else (result.status if result else "pending")
        out[(row, col)] = (result.local_file if result and cell.valid else None, note)
    return out


def _size(grid: Layout) -> tuple[int, int]:
    return SIDE + len(grid.columns) * (TILE + GAP), HEAD + len(grid.rows) * (TILE + GAP)


def _pillow_tile(path: str | None, note: str) -> PILImage.Image:
    from PIL import Image, ImageDraw

    if path and Path(path).is_file():
        with Image.open(path) as picture:
            picture.thumbnail((TILE, TILE))
            tile = Image.new("RGB", (TILE, TILE), "white")
            tile.paste(picture.convert("RGB"), ((TILE - picture.width) // 2, 0))
            return tile
    tile = Image.new("RGB", (TILE, TILE), GREY)
    ImageDraw.Draw(tile).text((12, TILE // 2 - 6), note, fill=(40, 40, 40))
    return tile


def _pillow_sheet(plan: SweepPlan, grid: Layout) -> bytes:
    from io import BytesIO

    from PIL import Image, ImageDraw

    sheet = Image.new("RGB", _size(grid), "white")
    draw = ImageDraw.Draw(sheet)
    for col, value in enumerate(grid.columns):
        draw.text((SIDE + col * (TILE + GAP) + 4, 8), label(value)[:40], fill="black")
    for row, value in enumerate(grid.rows):
        draw.text((4, HEAD + row * (TILE + GAP) + TILE // 2), label(value)[:24], fill="black")
    for (row, col), (path, note) in _tiles(plan, grid).items():
        sheet.paste(
            _pillow_tile(path, note), (SIDE + col * (TILE + GAP), HEAD + row * (TILE + GAP))
        )
    out = BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue()


def _picture_rows(path: str | None) -> list[bytes] | None:
    """A PNG result shrunk to fit a tile, as RGB rows; None when there is none to show."""
    from mediagen_nb import _png

    if not path or not Path(path).is_file():
        return None
    try:
        picture = _png.shrink(_png.decode(Path(path).read_bytes()), TILE)
    except ValueError:  # not a PNG our decoder reads (a JPEG or WebP from the real service)
        return None
    if picture.channels == 3:
        return picture.rows
    rgb = []
    for row in picture.rows:  # RGBA: drop the alpha byte of each pixel
        out = bytearray(picture.width * 3)
        for channel in range(3):
            out[channel::3] = row[channel::4]
        rgb.append(bytes(out))
    return rgb


def _pure_sheet(plan: SweepPlan, grid: Layout) -> bytes:
    """The same sheet with the stdlib only (``_png``, ``_png_text``)."""
    from mediagen_nb import _png
    from mediagen_nb._png_text import Canvas, ascii_text

    width, height = _size(grid)
    canvas = Canvas(width, [b"\xff" * (width * 3)] * height)
    ink = bytes((0, 0, 0))
    for (row, col), (path, note) in _tiles(plan, grid).items():
        left, top = SIDE + col * (TILE + GAP), HEAD + row * (TILE + GAP)
        rows = _picture_rows(path)
        for y in range(TILE):
            line = canvas.rows[top + y]
            if not isinstance(line, bytearray):
                line = canvas.rows[top + y] = bytearray(line)
            if rows is None:
                line[left * 3 : (left + TILE) * 3] = bytes(GREY) * TILE
            elif y < len(rows):
                start = left + (TILE - len(rows[y]) // 3) // 2
                line[start * 3 : start * 3 + len(rows[y])] = rows[y]
        if rows is None:
            canvas.text(left + 12, top + TILE // 2 - 6, ascii_text(note), 1, bytes((40, 40, 40)))
    for col, value in enumerate(grid.columns):
        canvas.text(SIDE + col * (TILE + GAP) + 4, 8, ascii_text(label(value))[:40], 1, ink)
    for row, value in enumerate(grid.rows):
        top = HEAD + row * (TILE + GAP) + TILE // 2
        canvas.text(4, top, ascii_text(label(value))[:24], 1, ink)
    return _png.encode_rgb(width, height, canvas.rows)


def has_pillow() -> bool:
    """Whether Pillow can be imported here (not in a browser kernel)."""
    return importlib.util.find_spec("PIL") is not None


def contact_sheet(plan: SweepPlan, path: str, x: str, y: str | None) -> str:
    """Write the grid of ``plan`` (``x`` across, ``y`` down) to ``path`` as a PNG.

    Args:
        plan: a sweep whose cells have run (or are running: unfinished cells say so).
        path: the PNG file to write.
        x: the axis across.
        y: the axis down (default: another axis).

    Returns:
        The path written.
    """
    grid = layout(plan, x, y)
    data = _pillow_sheet(plan, grid) if has_pillow() else _pure_sheet(plan, grid)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return str(target)
