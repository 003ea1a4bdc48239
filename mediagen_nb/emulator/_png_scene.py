"""The emulator's pictures without Pillow: a soft background and the prompt, in pure Python.

Used where Pillow is missing (the browser, Pyodide); the same picture idea as ``_media``,
computed on a coarse grid so it stays cheap.
"""

from __future__ import annotations

import colorsys
import hashlib
from collections.abc import Callable, Sequence
from typing import Final

from mediagen_nb import _font, _png
from mediagen_nb._png_text import Canvas as _Canvas
from mediagen_nb._png_text import ascii_text as _ascii

__all__ = ["palette", "render_png"]

GRID: Final = 160
"""Background cells along the long edge (a 1024 px picture: 7 px blocks)."""
_RGB = tuple[int, int, int]
_SHADE: Final = 0.55
_TITLE_INK: Final = bytes((255, 255, 255))
_LINE_INK: Final = bytes((225, 232, 240))


def palette(seed: bytes) -> list[_RGB]:
    """Five harmonious colours from a hash: a base hue and its neighbours, soft and mid-dark."""
    base = seed[0] / 255
    spread = 0.08 + seed[1] / 255 * 0.25
    colors: list[_RGB] = []
    for i in range(5):
        hue = (base + spread * (i - 2) + (0.5 if i == 4 else 0.0)) % 1.0
        sat = 0.35 + seed[2 + i] / 255 * 0.35
        val = 0.45 + seed[7 + i] / 255 * 0.4
        r, g, b = colorsys.hsv_to_rgb(hue, sat, val)
        colors.append((int(r * 255), int(g * 255), int(b * 255)))
    return colors


def _grid(cols: int, rows: int, seed: bytes) -> list[list[_RGB]]:
    """Cell colours: a vertical gradient, then four blobs blended in with a smooth falloff."""
    colors = palette(seed)
    top, bottom = colors[0], colors[1]
    blobs = []
    for i in range(4):
        cx, cy = seed[12 + i] / 255 * cols, seed[16 + i] / 255 * rows
        radius = (0.25 + seed[20 + i] / 255 * 0.4) * max(cols, rows)
        blobs.append((cx, cy, radius * radius, colors[2 + i % 3]))
    grid: list[list[_RGB]] = []
    for gy in range(rows):
        t = gy / max(1, rows - 1)
        base = [top[k] + (bottom[k] - top[k]) * t for k in range(3)]
        row: list[_RGB] = []
        for gx in range(cols):
            r, g, b = base
            for cx, cy, r2, (br, bg, bb) in blobs:
                d2 = ((gx - cx) ** 2 + (gy - cy) ** 2) / r2
                if d2 < 1.0:
                    w = (1.0 - d2) ** 2 * 0.8
                    r, g, b = r + (br - r) * w, g + (bg - g) * w, b + (bb - b) * w
            row.append((int(r), int(g), int(b)))
        grid.append(row)
    return grid


def _row_bytes(cells: list[_RGB], cell: int, width: int, dark: tuple[int, int] | None) -> bytes:
    """One pixel row from a grid row; cells in ``dark`` (start, stop) are shaded."""
    parts = []
    keep = 1 - _SHADE
    for i, rgb in enumerate(cells):
        shaded = dark is not None and dark[0] <= i < dark[1]
        parts.append(bytes(int(v * keep) for v in rgb) * cell if shaded else bytes(rgb) * cell)
    return b"".join(parts)[: width * 3]


def wrap_words(
    text: str, width: Callable[[str], float], max_width: float, cut: Callable[[str], int]
) -> list[str]:
    """Greedy word wrap of each paragraph of ``text``: a line takes words while its
    ``width`` stays within ``max_width``; a word wider than a line is split after
    ``cut(word)`` characters. Both renderers (this one and Pillow's in ``_media``) use it."""
    out: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for token in paragraph.split():
            word = token
            while width(word) > max_width and len(word) > 1:
                at = cut(word)
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:at])
                word = word[at:]
            trial = f"{line} {word}".strip()
            if line and width(trial) > max_width:
                out.append(line)
                line = word
            else:
                line = trial
        out.append(line)
    return out


def _wrap(text: str, per_line: int, max_lines: int) -> list[str]:
    """Greedy word wrap by character count; the last kept line ends in ``...`` if cut."""
    per_line = max(1, per_line)
    out = wrap_words(_ascii(text), len, per_line, lambda _word: per_line)
    if len(out) > max_lines:
        out = out[: max(1, max_lines)]
        out[-1] = out[-1][: max(0, per_line - 4)].rstrip() + " ..."
    return out


def render_png(width: int, height: int, *, title: str, lines: Sequence[str]) -> bytes:
    """A PNG of exactly ``width`` x ``height`` showing ``title`` (the prompt) and ``lines``."""
    if width < 1 or height < 1:
        raise ValueError(f"bad image size {width}x{height}")
    seed = hashlib.sha256(title.encode("utf-8")).digest()
    cell = max(1, -(-max(width, height) // GRID))
    cols, grid_rows = -(-width // cell), -(-height // cell)
    grid = _grid(cols, grid_rows, seed)
    base = min(width, height)
    margin = max(4, base // 24)
    title_scale = max(1, round(base / 16 / _font.HEIGHT))
    line_scale = max(1, round(base / 30 / _font.HEIGHT))
    text_width = width - 4 * margin
    title_h, line_h = int(_font.HEIGHT * title_scale * 1.25), int(_font.HEIGHT * line_scale * 1.35)
    top = max(2, base // 24)
    avail = height - top - 2 * margin
    title_rows = _wrap(
        title, text_width // (_font.WIDTH * title_scale), max(1, avail // 2 // title_h)
    )
    per_line = text_width // (_font.WIDTH * line_scale)
    detail = [row for text in lines for row in _wrap(text, per_line, 2)]
    detail = detail[: max(0, (avail - len(title_rows) * title_h) // line_h)]
    bottom = top + len(title_rows) * title_h + len(detail) * line_h + 2 * margin
    dark = (margin // cell, -(-(width - margin) // cell))
    plain: dict[int, bytes] = {}
    shaded: dict[int, bytes] = {}
    rows: list[bytes] = []
    for y in range(height):
        gy = y // cell
        if top <= y < bottom:
            if gy not in shaded:
                shaded[gy] = _row_bytes(grid[gy], cell, width, dark)
            rows.append(shaded[gy])
        else:
            if gy not in plain:
                plain[gy] = _row_bytes(grid[gy], cell, width, None)
            rows.append(plain[gy])
    canvas = _Canvas(width, rows)
    y = top + margin
    for row in title_rows:
        canvas.text(2 * margin, y, row, title_scale, _TITLE_INK)
        y += title_h
    for row in detail:
        canvas.text(2 * margin, y, row, line_scale, _LINE_INK)
        y += line_h
    return _png.encode_rgb(width, height, canvas.rows)
