"""Run a started server in the foreground until Ctrl-C or SIGTERM (``mediagen-nb serve`` and
``mediagen-nb classroom``)."""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Protocol

POLL_S = 0.5
"""How often the wait checks that the server is still running."""


class Server(Protocol):
    """What the wait needs of a handle (``EmulatorHandle``, ``ClassroomHandle``)."""

    @property
    def running(self) -> bool: ...

    def stop(self) -> None: ...


def run_until_stopped(handle: Server, command: str, what: str) -> int:
    """Wait for Ctrl-C or SIGTERM, then stop ``handle``: exit status 0, or 1 when the server
    stopped by itself first (said on stderr as "``command``: the ``what`` stopped")."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    print("Press Ctrl-C to stop.", flush=True)
    while not stop.wait(POLL_S):
        if not handle.running:
            print(f"{command}: the {what} stopped", file=sys.stderr)
            return 1
    handle.stop()
    print("stopped", flush=True)
    return 0
