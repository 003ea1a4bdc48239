"""``HistoryPanel``: one anywidget showing the history a page at a time, with filters, export,
and reopening a row's request in its panel (front end: ``static/history.js``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import traitlets

from mediagen_nb._home import resolve_home
from mediagen_nb._platform import is_browser
from mediagen_nb.catalog import family as family_of
from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._history_keep import HistoryKeep
from mediagen_nb.widgets._history_rows import (
    Thumbnails,
    front_end_row,
    model_label,
    preview,
    status_label,
)
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._where import export_note

if TYPE_CHECKING:
    from collections.abc import Hashable, Mapping

    import pandas as pd

    from mediagen_nb.history._records import HistoryRecords

Record = dict[str, Any]

ReopenCallback = Callable[[str, str | None, dict[str, Any]], None]
"""``callback(kind, family, body)``: kind ``image``, ``video`` or ``chat``."""

PAGE_SIZE = 25
EXPORT_DIR = "exports"
DEFAULT_FILTERS: dict[str, str] = {
    "scope": "session",
    "kind": "",
    "status": "",
    "model": "",
    "text": "",
    "sweep": "",
}


def filter_options(records: list[Record]) -> dict[str, list[dict[str, str]]]:
    """The ``status`` and ``model`` filter options of the rows, sorted by label."""
    statuses = {str(r["status"]) for r in records if r["status"]}
    models: dict[str, str] = {}
    for kind, model in ((r["kind"], r["model"]) for r in records):
        if isinstance(model, str) and model:
            models.setdefault(model, model_label(str(kind), model))

    def option(value: str, label: str) -> dict[str, str]:
        return {"value": value, "label": label, "title": value}

    return {
        "status": sorted((option(s, status_label(s)) for s in statuses), key=_by_label),
        "model": sorted((option(m, t) for m, t in models.items()), key=_by_label),
        "sweep": sweep_options(records),
    }


def sweep_options(records: list[Record]) -> list[dict[str, str]]:
    """One option per comparison (sweep) of the rows, newest first: its prompt and size."""
    found: dict[str, list[Record]] = {}
    for r in records:
        if r.get("sweep_id"):
            found.setdefault(str(r["sweep_id"]), []).append(r)
    out = []
    for sweep_id, rows in found.items():
        prompt = str(rows[0].get("prompt") or "")[:40] or sweep_id
        out.append({"value": sweep_id, "label": f"{prompt} · {len(rows)}", "title": sweep_id})
    return out


def grouped(records: list[Record]) -> list[Record]:
    """The rows with each comparison's rows together, where its newest row is."""
    first: dict[str, int] = {}
    keyed = []
    for i, r in enumerate(records):
        group = first.setdefault(str(r["sweep_id"]), i) if r.get("sweep_id") else i
        keyed.append((group, i, r))
    return [r for _g, _i, r in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _by_label(option: dict[str, str]) -> tuple[str, str]:
    return option["label"].casefold(), option["value"]


class HistoryPanel(WidgetPanel, HistoryKeep):
    """Every task, chat turn and asset of the history: a page at a time, filterable,
    reopenable in its panel, exportable.

    Programmatic use: ``values`` (filters), ``next_page()`` / ``prev_page()``, ``records``
    (the rows matching the filters, as dicts; ``frame``: the same as a DataFrame),
    ``reopen(task_id)``, ``export()``, ``download()``.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        home: The history folder to show; None: ``$MEDIAGEN_HOME``.
        page_size: Rows per page.
        history_notice: Say so in the panel when the history file cannot be used.
    """

    title = "History"
    _esm = esm("history.js")
    _css = css("history.css")

    values = traitlets.Dict(dict(DEFAULT_FILTERS)).tag(sync=True)
    """Filters: ``scope`` (``session`` / ``all``), ``kind``, ``status``, ``model``, ``text``."""
    page = traitlets.Int(0).tag(sync=True)
    """Current page, from 0."""
    page_size = traitlets.Int(PAGE_SIZE).tag(sync=True)
    pages = traitlets.Int(1).tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    """Rows matching the filters (every page)."""
    everything = traitlets.Int(0).tag(sync=True)
    """Rows in the whole history."""
    rows: traitlets.List[dict[str, Any]] = traitlets.List([]).tag(sync=True)
    """The current page, newest first, as the front end renders it."""
    options: traitlets.Dict[str, list[dict[str, str]]] = traitlets.Dict({}).tag(sync=True)
    """What the ``status`` and ``model`` filters offer (present in the chosen scope), as
    ``{"value", "label", "title"}``: labels in the rows' words (badge, model title), the
    ledger value (API name) as value and tooltip."""
    export_note = traitlets.Unicode("").tag(sync=True)
    """What the last export or download did (how many rows, and where they went, in the
    user's terms: ``_where.export_note``)."""
    export_file = traitlets.Unicode("").tag(sync=True)
    """The full path of the last file ``export()`` wrote ("" after a download): the note's
    tooltip."""
    export_dir = traitlets.Unicode("").tag(sync=True)
    """The folder ``export()`` writes to (``$MEDIAGEN_HOME/exports``), for the button's tooltip."""
    can_reopen = traitlets.Bool(False).tag(sync=True)
    """Whether a reopen callback is registered (rows are clickable only then)."""

    def __init__(
        self,
        *,
        session: Session | None = None,
        home: Path | str | None = None,
        page_size: int = PAGE_SIZE,
        history_notice: bool = True,
    ) -> None:
        super().__init__(session=session)
        self.home = home
        self.history_notice = history_notice
        """Whether the history's own notice (a fallback, a tab keeping it in memory) shows
        here; False inside the Studio, whose notice already says it (shown once, not twice)."""
        self.page_size = page_size
        self.export_dir = str(self.export_path().parent)
        self.records: list[Record] | None = None
        """The rows matching the filters, newest first (every page), as dicts."""
        self._callbacks: list[ReopenCallback] = []
        self._thumbs = Thumbnails(home)
        self._refreshing = False
        self._problem_shown: str | None = None
        self.on_action("refresh", lambda _m: self.refresh())
        self.on_action("prev", lambda _m: self.prev_page())
        self.on_action("next", lambda _m: self.next_page())
        self.on_action("reopen", lambda m: self.reopen(str(m.get("id") or "")))
        self.on_action("export", lambda _m: self.export())
        self.on_action("download", lambda _m: self.download())
        self.observe(self.guard(self._filters_changed), names="values")
        if is_browser() and home is None:  # the browser keeps earlier visits: show them
            self.values = {**DEFAULT_FILTERS, "scope": "all"}
        self._setup_keep()
        self.guard(self.refresh)()

    def _on_custom_msg(self, widget: Any, content: Any, buffers: Any) -> None:
        # an imported file arrives as the message's first buffer; actions see it as "file"
        if isinstance(content, dict) and buffers:
            content = {**content, "file": bytes(buffers[0])}
        super()._on_custom_msg(widget, content, buffers)

    # --- data --------------------------------------------------------------------------------

    def filters(self) -> dict[str, Any]:
        """The ``kind``, ``status``, ``model`` and ``text`` filters as keyword arguments of
        ``mediagen_nb.history()`` (the scope is applied after)."""
        values = {**DEFAULT_FILTERS, **self.values}
        return {
            "kind": values["kind"] or None,
            "status": values["status"] or None,
            "model": values["model"] or None,
            "text": str(values["text"]).strip() or None,
            "sweep_id": values["sweep"] or None,
        }

    def set_values(self, **changes: str) -> None:
        """Change some filters (what the front end does); goes back to the first page."""
        self.values = {**DEFAULT_FILTERS, **self.values, **changes}

    def _filters_changed(self, _change: object) -> None:
        if not self._refreshing:
            self.page = 0
            self.refresh()

    @property
    def frame(self) -> pd.DataFrame | None:
        """The rows matching the filters as a DataFrame (needs pandas; ``records`` does not)."""
        if self.records is None:
            return None
        from mediagen_nb.history._frame import to_frame

        return to_frame(self.records)

    def _scoped(self, records: list[Record]) -> list[Record]:
        if {**DEFAULT_FILTERS, **self.values}["scope"] != "session":
            return records
        from mediagen_nb.history import Ledger, ledger

        source = ledger() if self.home is None else Ledger(self.home)
        try:
            keys = source.keys_of()
        finally:
            if self.home is not None:
                source.close()
        return [r for r in records if (r["kind"], r["task_id"]) in keys]

    def refresh(self) -> list[Record]:
        """Read the history with the current filters and show the current page."""
        self._refreshing = True
        try:
            return self._refresh()
        finally:
            self._refreshing = False

    def _history(self, **filters: Any) -> HistoryRecords:
        """The history records of this panel's folder; the history's notice becomes the
        panel's (``history_notice``): a fallback as an error, a browser tab keeping it in
        memory (its normal state) as information."""
        from mediagen_nb.history._records import history_records

        records = history_records(home=self.home, warn=False, **filters)
        problem = records.problem if self.history_notice else None
        if isinstance(problem, str) and problem != self._problem_shown:
            self._problem_shown = problem
            if records.problem_expected:
                self.show_info(problem)
            else:
                self.show_error(problem)
        return records

    def _refresh(self) -> list[Record]:
        everything = self._history()
        scoped = self._scoped(everything)
        records = grouped(self._scoped(self._history(**self.filters())))
        self.records = records
        pages = max(1, math.ceil(len(records) / self.page_size))
        page = min(max(self.page, 0), pages - 1)
        shown = records[page * self.page_size : (page + 1) * self.page_size]
        with self.hold_sync():
            self.options = filter_options(scoped)
            self.everything = len(everything)
            self.total = len(records)
            self.pages = pages
            self.page = page
            self.can_reopen = bool(self._callbacks)
            self.rows = [front_end_row(r, self._thumbs) for r in shown]
        return records

    def next_page(self) -> None:
        """Show the next (older) page."""
        if self.page + 1 >= self.pages:
            raise ValueError("this is the last page")
        self.page += 1
        self.refresh()

    def prev_page(self) -> None:
        """Show the previous (newer) page."""
        if self.page <= 0:
            raise ValueError("this is the first page")
        self.page -= 1
        self.refresh()

    def _preview(self, row: Mapping[Hashable, Any]) -> dict[str, Any]:
        """The preview of one record (``media``, ``thumb``, ``cached``)."""
        return preview(row, self._thumbs)

    # --- reopen ------------------------------------------------------------------------------

    def on_reopen(self, callback: ReopenCallback, remove: bool = False) -> None:
        """Call ``callback(kind, family, body)`` when a row is reopened (see the module doc)."""
        if remove:
            if callback in self._callbacks:
                self._callbacks.remove(callback)
        elif callback not in self._callbacks:
            self._callbacks.append(callback)
        self.can_reopen = bool(self._callbacks)

    def reopen(self, task_id: str) -> tuple[str, str | None, dict[str, Any]]:
        """Hand the request of row ``task_id`` to the ``on_reopen`` callbacks; returns it."""
        if self.records is None or not task_id:
            raise ValueError("choose a row first")
        match = [r for r in self.records if r["task_id"] == task_id]
        if not match:
            raise ValueError(f"no row {task_id!r} in the table (check the filters)")
        row = match[0]
        body = row["request"]
        if row["kind"] not in ("task", "chat") or not isinstance(body, dict):
            raise ValueError(f"row {task_id!r} has no request to reopen")
        fam = row["family"] if isinstance(row["family"], str) else None
        kind = "chat" if row["kind"] == "chat" else family_of(str(fam)).kind
        if not self._callbacks:
            raise RuntimeError("no form to open it in: use Studio(), or register on_reopen(...)")
        for callback in list(self._callbacks):
            callback(kind, fam, dict(body))
        return kind, fam, dict(body)

    # --- export ------------------------------------------------------------------------------

    def export_path(self, suffix: str = ".csv") -> Path:
        """Where ``export()`` writes by default: ``$MEDIAGEN_HOME/exports/history-<time>``."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        return resolve_home(self.home) / EXPORT_DIR / f"history-{stamp}{suffix}"

    def _matching(self) -> list[Record]:
        return self._scoped(self._history(**self.filters()))

    def export(self, path: str | Path | None = None) -> Path:
        """Write the rows matching the filters (every page) to ``path`` (default: see
        ``export_path``); CSV or Parquet by suffix. Returns the file written."""
        from mediagen_nb.history import export

        records = self._matching()
        target = export(self.export_path() if path is None else path, records)
        with self.hold_sync():
            self.export_file = str(target.absolute())
            self.export_note = export_note(len(records), target)
        return target

    def download(self) -> tuple[str, bytes]:
        """Send the rows matching the filters as CSV to the browser; returns (name, bytes)."""
        import tempfile

        from mediagen_nb.history import export

        records = self._matching()
        name = self.export_path().name
        with tempfile.TemporaryDirectory() as folder:
            data = export(Path(folder) / name, records).read_bytes()
        self.send({"event": "download", "name": name, "mime": "text/csv"}, buffers=[data])
        with self.hold_sync():
            self.export_file = ""
            self.export_note = f"Sent {len(records)} rows to the browser as {name}"
        return name, data

    def text_summary(self) -> str:
        """The rows shown, one line each."""
        lines = [super().text_summary()]
        for row in self.rows:
            cells = (row["kind"], row["model"], row["status"], row["prompt"][:40])
            lines.append(" · ".join(cells))
        return "\n".join(lines)
