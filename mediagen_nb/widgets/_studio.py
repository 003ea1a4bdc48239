"""``Studio``: every panel in tabs, a mode line with a connect form, and automatic resume.

One anywidget (``static/studio.js``) that draws each panel inside its tab through anywidget's
widget composition; the Videos, Assets and History panels are built when first shown."""

from __future__ import annotations

import asyncio
import html
import os
import sys
import weakref
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets as t

from mediagen_nb import _env
from mediagen_nb._frame_sources import FrameUnavailableError
from mediagen_nb._platform import off_loop
from mediagen_nb.catalog import FAMILIES
from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._card_actions import Target
from mediagen_nb.widgets._card_use import use_result
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._generate_panel import GeneratePanel, ImagePanel, VideoPanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._reopen_refs import restore_references
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._studio_links import StudioLinks

if TYPE_CHECKING:
    from mediagen_nb.client import Task

TAB_TITLES = ("Chat", "Images", "Videos", "Assets", "History")
LAZY_TABS = ("Videos", "Assets", "History")
"""Tabs whose panel is built on first use (see the module docstring)."""
FIRST_TAB = "Images"
"""The tab a new Studio shows: the playground's first prompt to try is an image."""


class Studio(StudioLinks, WidgetPanel):
    """All panels in one place. ``Studio(resume=False)`` skips re-attaching old tasks.

    ``lazy`` (default: True except under marimo) builds the Videos, Assets and History panels
    only when first used. Attributes: ``chat``, ``images``, ``videos``, ``assets``,
    ``history`` (the panels; the last three are built when first read or when their tab is
    first selected, when lazy), ``tab`` (the
    selected tab's title), ``resume_text`` (the line about re-attached tasks), ``resumed``
    (the gallery ``Result`` of each re-attached task).

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        resume: Re-attach the tasks a previous kernel left running, as cards.
        lazy: Build the Videos, Assets and History panels only when first used; None: yes,
            except under marimo (which can open a widget only while a cell runs).
    """

    _esm = esm("studio.js")
    _css = css("studio.css")

    titles = t.List(t.Unicode(), default_value=list(TAB_TITLES)).tag(sync=True)
    """The tab titles, in order."""
    tab = t.Enum(TAB_TITLES, default_value=FIRST_TAB).tag(sync=True)
    """The selected tab's title (the front end sets it on a click or an arrow key)."""
    panel_chat = anywidget.WidgetTrait().tag(sync=True)
    """The Chat panel (an ``anywidget:<model_id>`` reference on the wire)."""
    panel_images = anywidget.WidgetTrait().tag(sync=True)
    """The Images panel."""
    panel_videos = anywidget.WidgetTrait().tag(sync=True)
    """The Videos panel, None until built."""
    panel_assets = anywidget.WidgetTrait().tag(sync=True)
    """The Assets panel, None until built."""
    panel_history = anywidget.WidgetTrait().tag(sync=True)
    """The History panel, None until built."""
    resume_text = t.Unicode("").tag(sync=True)
    """One line about re-attached tasks ("" when there is nothing to say)."""
    base_url_hint = t.Unicode("").tag(sync=True)
    """Placeholder of the base URL field (``MEDIAGEN_BASE_URL``)."""
    text_url_hint = t.Unicode("").tag(sync=True)
    """Placeholder of the text base URL field (``MEDIAGEN_TEXT_BASE_URL``)."""
    busy = t.Bool(False).tag(sync=True)
    """Whether a task or chat reply of this session is under way, or a write is not yet in
    the browser's storage: leaving the page then asks first."""
    class_line = t.Unicode("").tag(sync=True)
    """Connected to a classroom gateway: what is left ("2 of 5 images left · 1,200 chat
    tokens left"), beside the mode; "" otherwise."""

    def __init__(
        self, *, session: Session | None = None, resume: bool = True, lazy: bool | None = None
    ) -> None:
        super().__init__(
            session=session,
            base_url_hint=os.environ.get(_env.BASE_URL, ""),
            text_url_hint=os.environ.get(_env.TEXT_BASE_URL, ""),
        )
        self.title = "mediagen Studio"
        self.chat = ChatPanel(session=self.session, show_mode=False)  # the bar says the mode
        self.images = ImagePanel(session=self.session, show_banner=False)
        self.images.use_handler = self.use
        self.images.can_use = True
        self.panel_chat = self.chat
        self.panel_images = self.images
        self._videos: VideoPanel | None = None
        self._assets: AssetPanel | None = None
        self._history: HistoryPanel | None = None
        self.resumed: list[Result] = []
        self._assets_listed = False
        self.on_action("connect", self._connect_action)
        self.on_action("demo", self._demo_action)
        self.on_action("prefill", lambda m: self.prefill(str(m.get("query") or "")))
        self._me_task: asyncio.Task[None] | None = None
        self._me_again = False
        self.session.on_classroom(self.guard(self._show_classroom))
        self.session.on_use(self.guard(self._used))
        self.observe(self.guard(self._on_tab_selected), names="tab")
        self._watch_history()
        if not (_widgets_can_open_later() if lazy is None else lazy):
            self._build_all()
        if resume:
            self.resume()
        if not self.session.demo and _loop_running():
            self.refresh_classroom()  # e.g. a JupyterHub server whose environment names one

    def _watch_history(self) -> None:
        """Show in the Studio's notice when the history cannot use its file (now or later):
        a failure as an error, a browser tab keeping it in memory as information."""
        from mediagen_nb.history import ledger

        store = ledger()
        studio = weakref.ref(self)

        def show(problem: str) -> None:
            alive = studio()
            if alive is None:
                store.on_problem(show, remove=True)
            elif store.problem_expected and store.problem == problem:
                alive.show_info(problem)
            else:
                alive.show_error(problem)

        store.on_problem(show)
        problem = store.check()
        if problem is not None:
            show(problem)

        def writes() -> None:
            alive = studio()
            if alive is None:
                store.on_write(writes, remove=True)
            else:
                alive.guard(alive.update_busy)()

        store.on_write(writes)
        from mediagen_nb.history._browser import browser_store

        kept = browser_store()
        if kept is not None and kept.ledger is store:
            kept.on_change(writes)

    # --- connection -------------------------------------------------------------------------

    def _connect_action(self, message: dict[str, Any]) -> None:
        def text(name: str) -> str | None:
            value = message.get(name)
            return value.strip() or None if isinstance(value, str) else None

        self.clear_errors()
        self.connect(text("key"), base_url=text("base_url"), text_base_url=text("text_base_url"))

    def _demo_action(self, _message: dict[str, Any]) -> None:
        self.clear_errors()
        self.connect(None)

    def connect(
        self,
        key: str | None,
        *,
        base_url: str | None = None,
        text_base_url: str | None = None,
    ) -> None:
        """Switch the session to the real service with ``key``; None or "" means demo mode.

        The key stays only in the session's memory. Base URLs default to
        ``MEDIAGEN_BASE_URL`` / ``MEDIAGEN_TEXT_BASE_URL``. A configuration the client refuses
        (no base URL) returns to demo mode and raises. Unfinished tasks of the new service
        are re-attached. The chat starts a new conversation (turns made elsewhere are not
        sent to the new service), and a classroom gateway's models and budget are fetched.
        """
        self.session.set_api_key(key, base_url=base_url, text_base_url=text_base_url)
        try:
            self.session.client  # noqa: B018 - made now so a bad configuration shows here
        except Exception:
            self.session.set_api_key(None)  # back to demo mode rather than half-connected
            raise
        self.chat.clear()
        self.resume()
        if not self.session.demo:
            self.refresh_classroom()

    # --- classroom --------------------------------------------------------------------------

    def refresh_classroom(self) -> asyncio.Task[None] | None:
        """Ask the service whether it is a classroom gateway and what is left (background;
        one request at a time, a request asked for meanwhile follows). None without a loop
        or in demo mode."""
        if self.session.demo or not _loop_running():
            return None
        if self._me_task is not None and not self._me_task.done():
            self._me_again = True
            return self._me_task
        self._me_task = self.spawn(self._fetch_classroom(), name="classroom")
        return self._me_task

    async def _fetch_classroom(self) -> None:
        from mediagen_nb.client import APIError

        while True:
            self._me_again = False
            try:
                me = await self.session.client.classroom.me()
            except APIError as error:
                if error.status_code not in (401, 403, 404):
                    raise
                me = None  # not a classroom gateway (or not this key's): nothing to show
            self.session.set_classroom(me)
            if not self._me_again:
                return

    def _used(self, _session: Session) -> None:
        self.refresh_classroom()

    def _show_classroom(self, session: Session) -> None:
        me = session.classroom
        self.class_line = me.left_text() if me is not None else ""

    # --- tabs and forms ---------------------------------------------------------------------

    def select(self, title: str) -> None:
        """Show the tab ``title`` (as a click on it does), building its panel if needed."""
        self.tab = title

    @property
    def videos(self) -> VideoPanel:
        """The Videos panel (built on first use)."""
        if self._videos is None:
            self._videos = VideoPanel(session=self.session, show_banner=False)
            self._videos.use_handler = self.use
            self._videos.can_use = True
            self.panel_videos = self._videos
        return self._videos

    @property
    def assets(self) -> AssetPanel:
        """The Assets panel (built on first use)."""
        if self._assets is None:
            self._assets = AssetPanel(session=self.session, show_mode=False)
            self.panel_assets = self._assets
        return self._assets

    @property
    def history(self) -> HistoryPanel:
        """The History panel (built on first use)."""
        if self._history is None:
            # the history's notice is the Studio's own (``_watch_history``): not twice
            self._history = HistoryPanel(session=self.session, history_notice=False)
            self._history.on_reopen(self.guard(self._open))
            self.panel_history = self._history
        return self._history

    def _build_all(self) -> None:
        self.videos  # noqa: B018 - each property builds its panel into its tab
        self.assets  # noqa: B018
        self.history  # noqa: B018

    def _built(self) -> tuple[WidgetPanel, ...]:
        """The panels built so far (never builds one)."""
        lazy = (self._videos, self._assets, self._history)
        return (self.chat, self.images, *(panel for panel in lazy if panel is not None))

    def _on_tab_selected(self, change: dict[str, Any]) -> None:
        title = change["new"]
        if title == "Videos":
            self.videos  # noqa: B018 - builds the panel into its tab
        elif title == "History":
            self.history.refresh()
        elif title == "Assets":
            assets = self.assets
            if not self._assets_listed and _loop_running():
                self._assets_listed = True
                assets.refresh()

    def use(
        self, source: GeneratePanel, result_id: str, action: str, family: str | None = None
    ) -> asyncio.Task[Target | None]:
        """Carry out a card action of ``source``'s card: fill the target form, show its tab.

        Args:
            source: The panel whose card it is (its notice shows what went wrong).
            result_id: The card's id.
            action: ``animate``, ``reference``, ``first_frame``, ``last_frame``, ``continue``.
            family: The family to open (default: the first that takes the picture).

        Returns:
            The background task (its result: the target family and slot; None when the
            action does not apply, the panel's notice saying why).
        """

        def panel(kind: str) -> GeneratePanel:
            return self.images if kind == "image" else self.videos

        async def run() -> Target | None:
            try:
                target = await use_result(source, panel, result_id, action, family)
            except (ValueError, FrameUnavailableError) as exc:  # say why, in plain words
                source.show_error(str(exc))
                return None
            self.select("Images" if FAMILIES[target.family].kind == "image" else "Videos")
            return target

        return source.spawn(run(), name=f"use {result_id} ({action})")

    def _open(self, kind: str, family: str | None, body: dict[str, Any]) -> None:
        """History "open in form": fill the matching panel and show its tab."""
        if kind == "chat":
            self.chat.load(body)
            self.select("Chat")
        else:
            panel: GeneratePanel = self.images if kind == "image" else self.videos
            panel.load(body, family)
            self.select("Images" if kind == "image" else "Videos")
            if _loop_running() and self._history is not None:
                home = self._history.home
                panel.spawn(self._restore(panel, body, family, home), name="restore refs")

    async def _restore(
        self,
        panel: GeneratePanel,
        body: dict[str, Any],
        family: str | None,
        home: Any,
    ) -> None:
        """Reopen restores the references (``_reopen_refs``): expired ones hosted again."""
        from mediagen_nb.history import history_records

        records = await off_loop(history_records, kind="task", home=home, warn=False)
        restored = await restore_references(self.session.client, body, records)
        if restored is not body:
            panel.load(restored, family)

    # --- resume -----------------------------------------------------------------------------

    def resume(self) -> asyncio.Task[list[Task]] | None:
        """Re-attach tasks a previous kernel left running (background; None without a loop)."""
        if not _loop_running():
            self.resume_text = (
                "Tasks left running by an earlier kernel are re-attached when the Studio "
                "opens inside a running event loop; call studio.resume() from a cell."
            )
            return None
        return self.spawn(self._resume(), name="resume")

    async def _resume(self) -> list[Task]:
        from mediagen_nb.history import resume

        tasks = await resume(self.session.client, on_task=self._show_resumed)
        count = len(self.resumed)
        self.resume_text = (
            f"Re-attached {count} unfinished task(s) from an earlier kernel." if count else ""
        )
        return tasks

    def _show_resumed(self, task: Task) -> None:
        panel = self.images if task.family_info.kind == "image" else self.videos
        self.resumed.append(panel.follow(task))

    async def join(self) -> None:
        """Wait for the Studio's own tasks, then for every built panel's (re-attached cards)."""
        await super().join()
        for panel in self._built():
            await panel.join()

    def close(self) -> None:
        """Stop every panel's background work and close the Studio."""
        for panel in self._built():  # a panel never opened was never built: nothing to close
            panel.close()
        super().close()

    # --- fallback ---------------------------------------------------------------------------

    def text_summary(self) -> str:
        """Mode, tabs and re-attached tasks as plain text (where widgets cannot load)."""
        lines = [
            f"mediagen Studio: {self.session.mode_text}",
            "tabs: " + " · ".join(TAB_TITLES),
            *(f"re-attached: {r.title} · {r.task_id} · {r.status}" for r in self.resumed),
            *(f"error: {line}" for line in self.errors[-3:]),
            "(interactive panels need a running Jupyter kernel with ipywidgets)",
        ]
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[Any, Any], dict[Any, Any]] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:  # shown where widgets cannot load (a static viewer, GitHub)
            summary = html.escape(self.text_summary())
            bundle[0]["text/html"] = f"<pre class='mediagen-fallback'>{summary}</pre>"
        return bundle


def _widgets_can_open_later() -> bool:
    """False inside a marimo app or notebook, where a widget made outside a cell run fails."""
    marimo = sys.modules.get("marimo")
    running_in_notebook = getattr(marimo, "running_in_notebook", None)
    return not (callable(running_in_notebook) and running_in_notebook())


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
