"""A large run keeps its live objects out of Python's full garbage collections.

A sweep of thousands of cells holds each cell's task, coroutine and replies until it ends;
each full collection scans them all (pauses of 300 ms at 10,000 cells, bench figure 12).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

LARGE_RUN = 1_000
"""Cells from which a run settles its survivors (smaller runs leave the collector alone)."""

_lock = threading.Lock()
_runs = 0


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    """Right after a full collection every tracked object is a survivor: move them all to the
    permanent generation (``gc.freeze``), so the next full collection scans only newer ones."""
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


@contextmanager
def settled_survivors(cells: int) -> Iterator[bool]:
    """While a run of ``cells`` cells is under way, objects that survive a full collection
    are frozen; when the last such run ends they are given back (``gc.unfreeze``), so cyclic
    garbage among them is collected as before (objects freed by their last reference are
    freed at once either way).

    Args:
        cells: How many cells the run sends; below ``LARGE_RUN`` nothing changes.

    Yields:
        Whether the collector was changed for this run: not for a small run, nor when
        something else had frozen objects already (unfreezing would undo its choice).
    """
    global _runs  # noqa: PLW0603 - one collector per process
    with _lock:
        used = cells >= LARGE_RUN and (_runs > 0 or gc.get_freeze_count() == 0)
        if used:
            _runs += 1
            if _runs == 1:
                gc.callbacks.append(_after_collection)
    try:
        yield used
    finally:
        if used:
            with _lock:
                _runs -= 1
                if _runs == 0:
                    gc.callbacks.remove(_after_collection)
                    gc.unfreeze()
