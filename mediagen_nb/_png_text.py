"""Text on PNG rows in pure Python: the 6x11 bitmap font (``_font``) drawn at any whole scale.

Shared by the emulator's pictures without Pillow (``emulator._png_scene``) and a sweep's
contact sheet without Pillow (``sweeps._sheet``). Characters outside printable ASCII are
drawn as their closest ASCII form (accents dropped) or ``?``. Stdlib only.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Final

from mediagen_nb import _font

_SUBSTITUTES: Final = {"…": "...", "·": "-", "×": "x", "—": "-", "–": "-", "’": "'", "“": '"'}


def ascii_text(text: str) -> str:
    """``text`` in printable ASCII (what the font can draw)."""
    for char, plain in _SUBSTITUTES.items():
        text = text.replace(char, plain)
    text = unicodedata.normalize("NFKD", text)
    kept = (ch for ch in text if not unicodedata.combining(ch))
    return "".join(ch if " " <= ch <= "~" else "?" for ch in kept)


@cache
def _runs(char: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per glyph row, the (start, stop) columns of lit pixels."""
    code = ord(char) - 32
    hexrows = _font.GLYPHS[code if 0 <= code < len(_font.GLYPHS) else ord("?") - 32]
    rows = []
    for y in range(_font.HEIGHT):
        bits = int(hexrows[2 * y : 2 * y + 2], 16)
        runs, start = [], None
        for x in range(_font.WIDTH + 1):
            lit = x < _font.WIDTH and bits >> (_font.WIDTH - 1 - x) & 1
            if lit and start is None:
                start = x
            elif not lit and start is not None:
                runs.append((start, x))
                start = None
        rows.append(tuple(runs))
    return tuple(rows)


class Canvas:
    """RGB rows of a picture; a row is copied (bytearray) the first time text touches it."""

    def __init__(self, width: int, rows: list[bytes]) -> None:
        self.width = width
        self.rows: list[bytes | bytearray] = list(rows)

    def text(self, x: int, y: int, line: str, scale: int, ink: bytes) -> None:
        """Draw ``line`` (printable ASCII) with its top left at ``(x, y)``, ``scale`` px a dot."""
        for gy in range(_font.HEIGHT):
            spans = [
                (x + (i * _font.WIDTH + a) * scale, x + (i * _font.WIDTH + b) * scale)
                for i, char in enumerate(line)
                for a, b in _runs(char)[gy]
            ]
            if not spans:
                continue
            for py in range(y + gy * scale, min(len(self.rows), y + (gy + 1) * scale)):
                row = self.rows[py]
                if not isinstance(row, bytearray):
                    row = self.rows[py] = bytearray(row)
                for start, end in spans:
                    stop = min(end, self.width)
                    if start < stop:
                        row[start * 3 : stop * 3] = ink * (stop - start)
