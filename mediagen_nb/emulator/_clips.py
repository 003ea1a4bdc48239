"""Stock demo clips for where video cannot be encoded (no av: the browser).

Three 4 s H.264 MP4s in ``clips/`` (landscape, portrait, square), each with its first and
last frames as PNGs beside it; a video task's result is the clip of its orientation.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Final

CLIPS: Final = {"landscape": (480, 270), "portrait": (270, 480), "square": (360, 360)}
"""Clip name -> (width, height)."""


def clip_name(width: int, height: int) -> str:
    """The clip whose orientation matches ``width`` x ``height``."""
    if width >= height * 1.2:
        return "landscape"
    if height >= width * 1.2:
        return "portrait"
    return "square"


@cache
def _read(name: str) -> bytes:
    return resources.files("mediagen_nb.emulator").joinpath("clips", f"{name}.mp4").read_bytes()


def stock_clip(width: int, height: int) -> bytes:
    """The MP4 bytes of the stock clip for a video of ``width`` x ``height``."""
    return _read(clip_name(width, height))


@cache
def _frame(name: str, which: str) -> bytes:
    path = resources.files("mediagen_nb.emulator").joinpath("clips", f"{name}.{which}.png")
    return path.read_bytes()


def stock_frame(data: bytes, which: str) -> bytes | None:
    """The shipped ``first`` or ``last`` frame (PNG) when ``data`` is a stock clip, else None."""
    for name in CLIPS:
        if data == _read(name):
            return _frame(name, which)
    return None
