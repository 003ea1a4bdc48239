"""What every panel shares: an error area, background tasks on the kernel's loop, throttling.

Errors from callbacks and background tasks are shown in the panel (an ``Output`` error area
filled with ``append_stderr``, never ``with output:`` from a task) and kept in
``panel.errors`` for tests. ``Throttle`` coalesces trait updates to at most a few per second
and sends each batch inside ``hold_sync()`` as one comm message.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

import ipywidgets as widgets

from mediagen_nb.widgets._session import Session, current_session

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

MAX_UPDATES_PER_S = 4.0


def describe_error(exc: BaseException) -> str:
    """One line for the error area: the exception type and its message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Panel(widgets.VBox):  # type: ignore[misc]
    """Base of the panels: ``VBox`` + error area + ``spawn`` + readable text fallback."""

    title = "mediagen panel"

    def __init__(self, *, session: Session | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session if session is not None else current_session()
        self.errors: list[str] = []
        """Every error shown in the error area, oldest first (for tests and the text repr)."""
        self.error_area = widgets.Output(layout=widgets.Layout(max_height="12em"))
        self.error_area.add_class("mediagen-errors")
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- errors -------------------------------------------------------------------------

    def show_error(self, error: BaseException | str, context: str = "") -> None:
        """Show an error in the panel (and remember it); never raises."""
        line = error if isinstance(error, str) else describe_error(error)
        if context:
            line = f"{context}: {line}"
        self.errors.append(line)
        self.error_area.append_stderr(line + "\n")

    def clear_errors(self) -> None:
        """Empty the error area."""
        self.errors.clear()
        self.error_area.clear_output()

    def guard(self, fn: Callable[P, R]) -> Callable[P, R | None]:
        """Wrap a widget callback so that its exceptions appear in the error area."""

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                self.show_error(exc)
                return None

        return wrapper

    # --- background work ------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Run ``coro`` as a task on the running loop; its exception goes to the error area.

        The panel keeps a reference until the task ends (asyncio keeps only weak ones).
        """
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            name = task.get_name()
            self.show_error(exc, context="" if name.startswith("Task-") else name)

    @property
    def running(self) -> tuple[asyncio.Task[Any], ...]:
        """Background tasks still running."""
        return tuple(t for t in self._tasks if not t.done())

    async def join(self) -> None:
        """Wait until every background task of the panel has ended (tests, scripts)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        """Cancel background tasks and close the widget with every widget inside it."""
        for task in list(self._tasks):
            task.cancel()
        for child in list(self.children):
            close_tree(child)
        super().close()

    # --- plain-text fallback -------------------------------------------------------------

    def text_summary(self) -> str:
        """Readable plain text shown where widgets cannot load; subclasses add lines."""
        lines = [f"{self.title} ({self.session.mode_text})"]
        lines += [f"error: {line}" for line in self.errors[-3:]]
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/plain"] = self.text_summary()
        return bundle

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.session.mode_text}>"


def close_tree(widget: widgets.Widget) -> None:
    """Close ``widget`` and its descendants, so no live container points at a closed one."""
    if isinstance(widget, Panel):
        widget.close()  # cancels its tasks, then closes its own subtree
        return
    for child in list(getattr(widget, "children", ())):
        close_tree(child)
    widget.close()


class Throttle:
    """Apply coalesced updates at most ``rate`` times per second, each inside ``hold_sync``.

    ``request()`` marks the state dirty; ``apply()`` (the callable given) pushes the latest
    state to the widget. The first request applies at once; later ones within the interval
    are folded into one deferred apply. ``flush()`` applies now; ``drain()`` awaits any
    deferred apply. Needs a running loop only when an apply must be deferred.
    """

    def __init__(
        self,
        widget: widgets.Widget,
        apply: Callable[[], None],
        rate: float = MAX_UPDATES_PER_S,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._widget = widget
        self._apply = apply
        self.interval = 1.0 / rate
        self._clock = clock
        self._last: float | None = None
        self._pending: asyncio.TimerHandle | None = None
        self._done: asyncio.Event | None = None
        self.applied = 0
        """How many applies (comm batches) were sent, for tests."""

    def _now(self) -> float:
        if self._clock is not None:
            return self._clock()
        return asyncio.get_running_loop().time()

    def request(self) -> None:
        """Ask for an update; applied now, or once the interval since the last one passed."""
        if self._pending is not None:
            return
        try:
            now = self._now()
        except RuntimeError:  # no loop (plain script): nothing can be deferred
            self._run()
            return
        wait = 0.0 if self._last is None else self._last + self.interval - now
        if wait <= 0:
            self._run(now)
            return
        loop = asyncio.get_running_loop()
        self._done = asyncio.Event()
        self._pending = loop.call_later(wait, self._deferred)

    def _deferred(self) -> None:
        self._pending = None
        self._run()
        if self._done is not None:
            self._done.set()

    def _run(self, now: float | None = None) -> None:
        with self._widget.hold_sync():
            self._apply()
        self.applied += 1
        try:
            self._last = now if now is not None else self._now()
        except RuntimeError:
            self._last = None

    def flush(self) -> None:
        """Apply now, cancelling a deferred apply."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
            if self._done is not None:
                self._done.set()
        self._run()

    async def drain(self) -> None:
        """Wait until a deferred apply (if any) has been sent."""
        if self._pending is not None and self._done is not None:
            await self._done.wait()
