"""Who gives a video's frame where PyAV is missing (the browser), late-bound like ``_hooks``.

Known frames: ``set_known_frames`` names a lookup (the emulator's stock clips ship theirs).
Front ends: a panel on the page ``add_drawer``s itself once drawn; ``draw`` asks the newest
one (a ``<video>`` drawn onto a ``<canvas>``) and waits at most ``TIMEOUT_S``. Stdlib only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Literal

Which = Literal["first", "last"]
FrameDrawer = Callable[[bytes, str, Which], Awaitable[bytes]]
"""``(video bytes, its MIME type, which frame) -> PNG bytes``, drawn by a front end."""
KnownFrames = Callable[[bytes, Which], "bytes | None"]
TIMEOUT_S = 20.0
"""How long a front end has to draw a frame (decoding a few seconds of video)."""
NO_FRONT_END = (
    "reading a video frame here needs PyAV (pip install av), which a browser kernel lacks, "
    "or a panel on the page to draw it: show mg.studio() (or a Videos panel) and try again"
)
BLOCKED_HINT = (
    "JupyterLite answers one message at a time, so a cell that waits blocks the page's "
    "answer: start it with `frame = asyncio.ensure_future(task.last_frame())` and read "
    "`frame.result()` in the next cell, or use the card's Continue from last frame"
)

_drawers: list[FrameDrawer] = []
_known: list[KnownFrames | None] = [None]


class FrameUnavailableError(RuntimeError):
    """No way to read a video's frame here (no PyAV, no front end answered)."""


def add_drawer(drawer: FrameDrawer) -> None:
    """Offer ``drawer`` (the newest is asked first)."""
    remove_drawer(drawer)
    _drawers.append(drawer)


def remove_drawer(drawer: FrameDrawer) -> None:
    """Stop offering ``drawer`` (no error when it was not offered)."""
    if drawer in _drawers:
        _drawers.remove(drawer)


def drawers() -> tuple[FrameDrawer, ...]:
    """The front ends offered, oldest first."""
    return tuple(_drawers)


def set_known_frames(lookup: KnownFrames | None) -> None:
    """Name the lookup of frames known without decoding (None: none)."""
    _known[0] = lookup


def known_frame(data: bytes, which: Which) -> bytes | None:
    """The frame's PNG when the video is one whose frames ship with the package."""
    lookup = _known[0]
    return lookup(data, which) if lookup is not None else None


async def draw(
    data: bytes,
    which: Which,
    *,
    mime: str = "video/mp4",
    drawer: FrameDrawer | None = None,
    wait_s: float | None = None,
) -> bytes:
    """Have a front end draw the video's first or last frame.

    Args:
        data: The video file's bytes.
        which: ``"first"`` or ``"last"``.
        mime: The video's MIME type (the browser's ``<video>`` needs it).
        drawer: The front end to ask; by default the newest one offered.
        wait_s: Seconds to wait for the answer (``TIMEOUT_S`` by default).

    Returns:
        The frame as PNG bytes.

    Raises:
        FrameUnavailableError: No front end is shown, or none answered in time.
    """
    chosen = drawer if drawer is not None else (_drawers[-1] if _drawers else None)
    if chosen is None:
        raise FrameUnavailableError(NO_FRONT_END)
    timeout = TIMEOUT_S if wait_s is None else wait_s
    try:
        return await asyncio.wait_for(chosen(data, mime, which), timeout)
    except TimeoutError:
        raise FrameUnavailableError(
            f"no panel on the page drew the video's {which} frame within {timeout:g} s. "
            + BLOCKED_HINT
        ) from None
