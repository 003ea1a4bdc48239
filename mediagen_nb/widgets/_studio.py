"""``Studio``: every panel in tabs, a mode line with a connect form, and automatic resume.

Tabs (ipywidgets ``Tab``): Chat · Images · Videos · Assets · History, all sharing one
``Session``. Above them the ``StudioBar`` (one anywidget) says "demo mode (built-in
emulator)" or "connected to <host>" and holds the connect form; the key reaches the kernel
in one custom message, never in widget state (a saved notebook stores widget state), and
lives only in the session's memory. On open, tasks a previous kernel left running are
re-attached (``mediagen_nb.history.resume``) and shown as cards in the gallery of the Images
or Videos panel, marked "re-attached"; the bar says how many.

Decisions: Connect with an empty key returns to demo mode; base URLs come from the form,
else ``MEDIAGEN_BASE_URL`` / ``MEDIAGEN_TEXT_BASE_URL``; a refused configuration is shown in
the bar and leaves the session in demo mode. Re-attached cards follow the
handle's state (the resume poller is the only one polling) and refresh at most 4 times a
second with the rest of their gallery; the Assets tab re-checks known assets the first time
it is opened.

The Videos, Assets and History panels are built when their tab is first selected (or the
``videos`` / ``assets`` / ``history`` attribute is first read) and then take the place of a
one-line placeholder: together they are most of the Studio's widgets, and every widget's
state is saved in the notebook, so a notebook that never opens them stays small and opens
faster. A saved notebook viewed without a kernel shows the placeholder for those tabs.
"""

from __future__ import annotations

import asyncio
import html
import weakref
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._base import Panel
from mediagen_nb.widgets._chat_panel import ChatPanel
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._studio_bar import StudioBar

if TYPE_CHECKING:
    from mediagen_nb.client import Task

TAB_TITLES = ("Chat", "Images", "Videos", "Assets", "History")
LAZY_TABS = ("Videos", "Assets", "History")
"""Tabs whose panel is built on first use (see the module docstring)."""


class Studio(Panel):
    """All panels in one place. ``Studio(resume=False)`` skips re-attaching old tasks.

    Attributes: ``chat``, ``images``, ``videos``, ``assets``, ``history`` (the panels; the
    last three are built when first read or when their tab is first selected),
    ``tabs``, ``banner`` (the ``StudioBar``: mode, connect form, resume line), ``resumed``
    (the gallery ``Result`` of each re-attached task).
    """

    title = "mediagen Studio"

    def __init__(self, *, session: Session | None = None, resume: bool = True) -> None:
        super().__init__(session=session)
        self.add_class("mediagen-studio")
        self.banner = StudioBar(session=self.session, on_connect=self._connect_from_bar)
        self.chat = ChatPanel(session=self.session)
        self.images = ImagePanel(session=self.session, show_banner=False)
        self._videos: VideoPanel | None = None
        self._assets: AssetPanel | None = None
        self._history: HistoryPanel | None = None
        self.tabs = widgets.Tab(
            children=[self.chat, self.images, *(_placeholder(title) for title in LAZY_TABS)],
            titles=TAB_TITLES,
        )
        self.tabs.add_class("mediagen-tabs")
        self.resumed: list[Result] = []
        self.tabs.layout = widgets.Layout(min_width="0")
        self.children = [self.banner, self.tabs, self.error_area]
        self._assets_listed = False
        self.tabs.observe(self.guard(self._tab_changed), names="selected_index")
        self._watch_history()
        if resume:
            self.resume()

    def _watch_history(self) -> None:
        """Show in the bar when the history cannot use its file (now or later)."""
        from mediagen_nb.history import ledger

        store = ledger()
        bar = weakref.ref(self.banner)

        def show(problem: str) -> None:
            banner = bar()
            if banner is None:
                store.on_problem(show, remove=True)
            else:
                banner.show_error(problem)

        store.on_problem(show)
        problem = store.check()
        if problem is not None:
            show(problem)

    # --- connection -------------------------------------------------------------------------

    def _connect_from_bar(
        self, key: str | None, base_url: str | None, text_base_url: str | None
    ) -> None:
        try:
            self.connect(key, base_url=base_url, text_base_url=text_base_url)
        except Exception as exc:  # shown in the bar, next to the form the user just used
            self.banner.show_error(exc)

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
        are re-attached.
        """
        self.session.set_api_key(key, base_url=base_url, text_base_url=text_base_url)
        try:
            self.session.client  # noqa: B018 - made now so a bad configuration shows here
        except Exception:
            self.session.set_api_key(None)  # back to demo mode rather than half-connected
            raise
        self.resume()

    # --- tabs and forms ---------------------------------------------------------------------

    @property
    def videos(self) -> VideoPanel:
        """The Videos panel (built on first use)."""
        if self._videos is None:
            self._videos = VideoPanel(session=self.session, show_banner=False)
            self._place("Videos", self._videos)
        return self._videos

    @property
    def assets(self) -> AssetPanel:
        """The Assets panel (built on first use)."""
        if self._assets is None:
            self._assets = AssetPanel(session=self.session)
            self._place("Assets", self._assets)
        return self._assets

    @property
    def history(self) -> HistoryPanel:
        """The History panel (built on first use)."""
        if self._history is None:
            self._history = HistoryPanel(session=self.session)
            self._history.on_reopen(self.guard(self._open))
            self._place("History", self._history)
        return self._history

    def _place(self, title: str, panel: Panel) -> None:
        """Put ``panel`` in its tab instead of the placeholder, and close the placeholder."""
        index = TAB_TITLES.index(title)
        children = list(self.tabs.children)
        placeholder = children[index]
        children[index] = panel
        self.tabs.children = children
        if placeholder is not panel:
            placeholder.close()

    def _built(self) -> tuple[Panel, ...]:
        """The panels built so far (never builds one)."""
        lazy = (self._videos, self._assets, self._history)
        return (self.chat, self.images, *(panel for panel in lazy if panel is not None))

    def _tab_changed(self, change: dict[str, Any]) -> None:
        title = TAB_TITLES[change["new"]] if change["new"] is not None else ""
        if title == "Videos":
            self.videos  # noqa: B018 - builds the panel into its tab
        elif title == "History":
            self.history.refresh()
        elif title == "Assets":
            assets = self.assets
            if not self._assets_listed and _loop_running():
                self._assets_listed = True
                assets.refresh()

    def _open(self, kind: str, family: str | None, body: dict[str, Any]) -> None:
        """History "open in form": fill the matching panel and show its tab."""
        if kind == "chat":
            self.chat.load(body)
            self.tabs.selected_index = TAB_TITLES.index("Chat")
        elif kind == "image":
            self.images.load(body, family)
            self.tabs.selected_index = TAB_TITLES.index("Images")
        else:
            self.videos.load(body, family)
            self.tabs.selected_index = TAB_TITLES.index("Videos")

    # --- resume -----------------------------------------------------------------------------

    def resume(self) -> asyncio.Task[list[Task]] | None:
        """Re-attach tasks a previous kernel left running (background; None without a loop)."""
        if not _loop_running():
            self.banner.resume_text = (
                "Tasks left running by an earlier kernel are re-attached when the Studio "
                "opens inside a running event loop; call studio.resume() from a cell."
            )
            return None
        return self.spawn(self._resume(), name="resume")

    async def _resume(self) -> list[Task]:
        from mediagen_nb.history import resume

        tasks = await resume(self.session.client, on_task=self._show_resumed)
        count = len(self.resumed)
        self.banner.resume_text = (
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

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/html"] = (
                "<pre class='mediagen-fallback'>" + html.escape(self.text_summary()) + "</pre>"
            )
        return bundle


def _placeholder(title: str) -> widgets.HTML:
    """What a lazily built tab shows until it is first selected."""
    note = widgets.HTML(f"<i>Loading the {title} panel… (it needs a running kernel)</i>")
    note.add_class("mediagen-tab-placeholder")
    return note


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
