"""The emulator's state: its :class:`~mediagen_nb.emulator._runtime.Runtime` and both stores.

One :class:`EmulatorState` lives on ``app.state.emulator``; nothing below it imports it
(``tests/test_emulator_imports.py`` keeps it so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mediagen_nb.emulator._assets import AssetStore
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._runtime import Clock, Runtime
from mediagen_nb.emulator._tasks import TaskStore

__all__ = ["Clock", "EmulatorState"]


class EmulatorState(Runtime):
    """Everything one emulator app knows; shared by its routes and middleware.

    ``create_app`` makes one and keeps it as ``app.state.emulator``; a handle shows it as
    ``handle.state`` (its tasks, assets, counters and fault counts).

    Args:
        api_key: The key clients must send.
        speed: How many times faster than the real service it runs (default 1).
        faults: Faults to inject; None injects none.
        clock: Returns the current time in seconds; None: ``time.time``.
        seed: Seeds the generator of ids and timings; None: different every run.

    Raises:
        ValueError: ``api_key`` is empty or ``speed`` is not positive.
    """

    def __init__(
        self,
        *,
        api_key: str,
        speed: float = 1.0,
        faults: FaultConfig | None = None,
        clock: Clock | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__(api_key=api_key, speed=speed, faults=faults, clock=clock, seed=seed)
        self.assets = AssetStore(self)
        """Both asset libraries."""
        self.tasks = TaskStore(self, self.assets)
        """Image and video tasks (they fail when an asset they use is deleted)."""
        self.uploaded: Callable[[str], tuple[Any, bytes] | None] | None = None
        """The uploads' lookup by token (``_uploads.UploadStore.get``), set by the app; a
        video's first or last frame may be one of them (``_anchors``)."""
        self.public_origin: str | None = None
        """``scheme://host:port`` clients reach this emulator at, set by whoever serves it:
        result and upload URLs are built on it, and asset URLs on it are the emulator's own.
        None: the address the connection arrived at (the socket's, never the Host header)."""
