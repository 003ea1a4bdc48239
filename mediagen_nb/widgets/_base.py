"""What every panel shares: errors shown in the panel, background tasks, throttling.

``WidgetPanel`` is the base of every panel (each one ``anywidget.AnyWidget``); ``Throttle``
coalesces trait updates into a few comm messages per second."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Literal, ParamSpec, TypeVar

import anywidget
import ipywidgets as widgets
import traitlets as t

from mediagen_nb.widgets._session import Session, current_session

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

MAX_UPDATES_PER_S = 4.0
ActionHandler = Callable[[dict[str, Any]], Any]
NoticeKind = Literal["error", "info"]
NOTICE_KINDS: tuple[NoticeKind, ...] = ("error", "info")


def describe_error(exc: BaseException) -> str:
    """One line for the panel: the exception type and its message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _PanelCore:
    """Errors, guarded callbacks and background tasks (mixed into ``WidgetPanel``)."""

    title = "mediagen panel"
    session: Session
    errors: list[str]
    _tasks: set[asyncio.Task[Any]]

    def _setup_core(self, session: Session | None) -> None:
        self.session = session if session is not None else current_session()
        self.errors = []
        """Every error shown in the panel, oldest first (for tests and the text repr)."""
        self._tasks = set()

    def _display_error(self, line: str) -> None:
        raise NotImplementedError

    def _clear_display(self) -> None:
        raise NotImplementedError

    # --- errors -------------------------------------------------------------------------

    def show_error(self, error: BaseException | str, context: str = "") -> None:
        """Show an error in the panel (and remember it); never raises."""
        line = error if isinstance(error, str) else describe_error(error)
        if context:
            line = f"{context}: {line}"
        self.errors.append(line)
        self._display_error(line)

    def clear_errors(self) -> None:
        """Forget and hide the errors shown."""
        self.errors.clear()
        self._clear_display()

    def guard(self, fn: Callable[P, R]) -> Callable[P, R | None]:
        """Wrap a callback so that its exceptions appear in the panel."""

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
        """Run ``coro`` as a task on the running loop; its exception goes to the panel.

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
        return tuple(task for task in self._tasks if not task.done())

    async def join(self) -> None:
        """Wait until every background task of the panel has ended (tests, scripts)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    # --- plain-text fallback -------------------------------------------------------------

    def text_summary(self) -> str:
        """Readable plain text shown where widgets cannot load; subclasses add lines."""
        lines = [f"{self.title} ({self.session.mode_text})"]
        lines += [f"error: {line}" for line in self.errors[-3:]]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.session.mode_text}>"


class WidgetPanel(_PanelCore, anywidget.AnyWidget):
    """Base of the one-anywidget panels: ``notice``, ``mode``, actions from the front end.

    A subclass sets ``_esm = esm("x.js")`` / ``_css = css("x.css")`` and registers its
    actions: ``self.on_action("generate", lambda msg: self.generate())``.
    """

    notice = t.Unicode("").tag(sync=True)
    """The last error (or information, see ``notice_kind``) as one readable line ("" when none
    is shown)."""
    notice_kind = t.Enum(NOTICE_KINDS, default_value="error").tag(sync=True)
    """How the front end draws ``notice``: ``"error"`` as an alert in the error colour,
    ``"info"`` as a polite status in the text colour."""
    mode = t.Unicode("").tag(sync=True)
    """The session's mode text ("demo mode (built-in emulator)" or "connected to ...")."""
    demo = t.Bool(True).tag(sync=True)
    """Whether the session talks to the built-in emulator."""
    show_mode = t.Bool(True).tag(sync=True)
    """Whether the panel says the mode itself (off inside the Studio, whose bar says it once)."""

    def __init__(self, *, session: Session | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._setup_core(session)
        self._actions: dict[str, ActionHandler] = {"dismiss": lambda _msg: self.clear_errors()}
        self.on_msg(self._on_custom_msg)
        self._on_session = self.guard(self._session_changed)
        self.session.on_change(self._on_session)
        self._session_changed(self.session)

    def _session_changed(self, session: Session) -> None:
        self.mode = session.mode_text
        self.demo = session.demo

    def _display_error(self, line: str) -> None:
        with self.hold_sync():
            self.notice_kind = "error"
            self.notice = line

    def _clear_display(self) -> None:
        with self.hold_sync():
            self.notice = ""
            self.notice_kind = "error"

    def show_info(self, line: str) -> None:
        """Say ``line`` in the notice as information (a normal state, not a failure); an
        error still shown stays (it matters more) and ``errors`` is not touched."""
        if self.notice and self.notice_kind == "error":
            return
        with self.hold_sync():
            self.notice_kind = "info"
            self.notice = line

    def on_action(self, name: str, handler: ActionHandler) -> None:
        """Call ``handler(message)`` when the front end sends ``{"action": name, ...}``."""
        self._actions[name] = handler

    def handle_action(self, content: dict[str, Any]) -> None:
        """Dispatch one front-end message (also the headless way to press a button)."""
        name = content.get("action")
        handler = self._actions.get(name) if isinstance(name, str) else None
        if handler is None:
            self.show_error(f"unknown action {name!r}")
            return
        try:
            handler(content)
        except Exception as exc:  # a click never shows a traceback: it becomes the notice
            self.show_error(exc)

    def _on_custom_msg(self, _widget: Any, content: Any, buffers: Any) -> None:
        if isinstance(content, dict):
            if buffers:  # a file from the browser (a dropped saved result) travels as bytes
                content = {**content, "buffers": [bytes(b) for b in buffers]}
            self.handle_action(content)

    def close(self) -> None:
        """Cancel background tasks, stop following the session and close the widget."""
        self._cancel_tasks()
        self.session.on_change(self._on_session, remove=True)
        super().close()

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[Any, Any], dict[Any, Any]] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:  # (data, metadata): readable text where widgets cannot load
            bundle[0]["text/plain"] = self.text_summary()
        return bundle


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
