"""Counting widget comm messages: a patch of ``ipywidgets.Widget._send`` for the benches.

Every message a widget sends to the front end goes through ``Widget._send``; the recorder
keeps (time, widget, message, buffers) for each, so a bench can count messages per second
and rebuild the state a browser would hold (``front_state``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import ipywidgets


@dataclass
class Sent:
    """One comm message."""

    at: float
    model_id: str
    msg: dict[str, Any]
    buffers: list[Any] | None


@dataclass
class CommRecorder:
    """Every comm message sent while ``record()`` is active."""

    sent: list[Sent] = field(default_factory=list)

    def of(self, widget: Any) -> list[Sent]:
        """Messages of one widget."""
        model_id = widget.comm.comm_id if widget.comm is not None else None
        return [s for s in self.sent if s.model_id == model_id]

    def max_per_window(self, widget: Any, window: float = 1.0) -> int:
        """Most messages of ``widget`` in any half-open window of ``window`` seconds."""
        times = [s.at for s in self.of(widget)]
        best = start = 0
        for end, at in enumerate(times):
            while at - times[start] >= window:
                start += 1
            best = max(best, end - start + 1)
        return best

    def front_state(self, widget: Any) -> dict[str, Any]:
        """The widget's state as a front end applying every update in order would hold it."""
        state: dict[str, Any] = {}
        for sent in self.of(widget):
            if sent.msg.get("method") in ("update", "echo_update"):
                state.update(sent.msg.get("state", {}))
        return state

    @contextmanager
    def record(self) -> Iterator[CommRecorder]:
        """Patch ``Widget._send`` for the duration of the block."""
        original = ipywidgets.Widget._send
        recorder = self

        def send(widget: Any, msg: dict[str, Any], buffers: list[Any] | None = None) -> None:
            if widget.comm is not None:  # a closed widget sends nothing
                model_id = widget.comm.comm_id
                recorder.sent.append(Sent(time.perf_counter(), model_id, msg, buffers))
            original(widget, msg, buffers)

        ipywidgets.Widget._send = send
        try:
            yield self
        finally:
            ipywidgets.Widget._send = original
