"""``HistoryPanel``: the history DataFrame as a filtered HTML table with thumbnails.

Reading the ledger is local SQLite, so filters and Refresh run synchronously in the
callback. Image rows show a small JPEG thumbnail made from the media cache (64 px, cached
per file, so a saved notebook stays small). Video rows show a small inline-SVG "video" badge:
a poster frame would need ffmpeg, a ``<video>`` pointing at the kernel's local file does not
load in the browser, and embedding the video would bloat the notebook; the badge is solid
when the file is in the local media cache, outlined when a completed video is not (yet).
"Open in form" hands a past request to whoever registered with ``on_open`` (``Studio`` fills
the Image, Video or Chat panel). Export writes the filtered rows to CSV or Parquet (by
suffix) with ``mediagen_nb.history.export``.

Decision: the table shows the newest ``limit`` rows (default 100) of the filtered history;
the status and model filters offer the values present in the whole history.
"""

from __future__ import annotations

import base64
import html
import math
import mimetypes
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.catalog import family as family_of
from mediagen_nb.widgets._base import Panel
from mediagen_nb.widgets._preview import thumbnail
from mediagen_nb.widgets._session import Session

if TYPE_CHECKING:
    import pandas as pd

OpenCallback = Callable[[str, str | None, dict[str, Any]], None]
"""``callback(kind, family, body)``: kind ``image``, ``video`` or ``chat``."""

THUMB_PX = 64
_ALL = ""
_STYLE = (
    "<style>.mediagen-history-table{border-collapse:collapse;font-size:12px}"
    ".mediagen-history,.mediagen-history .widget-html-content{min-width:0;flex-shrink:1}"
    ".mediagen-history .widget-html-content{overflow-x:auto}"
    ".mediagen-history-table td,.mediagen-history-table th{padding:2px 6px;"
    "vertical-align:top;text-align:left;border-bottom:1px solid #ddd}"
    ".mediagen-history-table td:nth-child(2),.mediagen-history-table td:nth-child(4)"
    "{white-space:nowrap}"
    ".mediagen-history-table td:nth-child(5){min-width:14em}</style>"
)
_SHOWN = ("time", "kind", "model", "prompt", "status", "elapsed", "polls", "error", "task_id")
_VIDEO_BADGE = (
    "<svg class='mediagen-thumb mediagen-thumb-video' data-cached='{cached}' role='img' "
    "aria-label='{label}' width='64' height='40' viewBox='0 0 64 40' "
    "xmlns='http://www.w3.org/2000/svg'><title>{label}</title>"
    "<rect x='1' y='1' width='62' height='38' rx='5' fill='{fill}' stroke='#607d8b' "
    "stroke-width='2'{dash}/>"
    "<path d='M6 6h4v3h-4zM6 31h4v3h-4zM54 6h4v3h-4zM54 31h4v3h-4z' fill='{mark}'/>"
    "<circle cx='32' cy='20' r='11' fill='{mark}'/>"
    "<path d='M28.5 14v12l10-6z' fill='{fill}'/></svg>"
)
"""A film-frame "play" badge, about 500 bytes; no fonts, no external URLs."""


def _missing(value: Any) -> bool:
    """None, NaN, NaT or pandas' NA."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and math.isnan(value)


def _cell(value: Any, limit: int = 80) -> str:
    if _missing(value):
        return ""
    if hasattr(value, "strftime"):
        return html.escape(value.strftime("%Y-%m-%d %H:%M:%S"))
    if isinstance(value, float):
        return f"{value:.1f}"
    text = str(value)
    return html.escape(text if len(text) <= limit else text[: limit - 1] + "…")


def _video_badge(label: str, *, cached: bool) -> str:
    """The video badge: solid when the file is cached locally, outlined when it is not."""
    return _VIDEO_BADGE.format(
        label=html.escape(label, quote=True),
        cached="true" if cached else "false",
        fill="#37474f" if cached else "#eceff1",
        mark="#ffffff" if cached else "#90a4ae",
        dash="" if cached else " stroke-dasharray='4 3'",
    )


class HistoryPanel(Panel):
    """Every task, chat turn and asset of the history, filterable, re-runnable, exportable.

    Programmatic use: ``refresh()``, ``frame`` (the rows shown), ``open_in_form(task_id)``,
    ``export(path)``; filters are the ``kind``, ``status``, ``model`` and ``text`` widgets.
    """

    title = "History"

    def __init__(
        self,
        *,
        session: Session | None = None,
        home: Path | str | None = None,
        limit: int = 100,
    ) -> None:
        super().__init__(session=session)
        self.add_class("mediagen-history-panel")
        self.home = home
        self.limit = limit
        self.kind = widgets.Dropdown(
            options=[("all", _ALL), ("tasks", "task"), ("chat", "chat"), ("assets", "asset")],
            description="Kind",
        )
        self.status = widgets.Dropdown(options=[("all", _ALL)], description="Status")
        self.model = widgets.Dropdown(options=[("all", _ALL)], description="Model")
        self.text = widgets.Text(description="Search", placeholder="prompt, answer, id, error")
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh")
        self.count = widgets.HTML()
        # a wide table scrolls sideways inside the panel instead of being clipped
        self.table = widgets.HTML()
        self.table.add_class("mediagen-history")
        self.picker = widgets.Dropdown(description="Request", options=[])
        self.open_button = widgets.Button(description="Open in form", icon="edit")
        self.export_path = widgets.Text(value="mediagen-history.csv", description="Export to")
        self.export_button = widgets.Button(description="Export", icon="download")
        self.export_status = widgets.HTML()
        self.frame: pd.DataFrame | None = None
        """The rows shown (filtered, newest first, at most ``limit``)."""
        self._open_callbacks: list[OpenCallback] = []
        self._thumbs: dict[str, str] = {}
        self._refreshing = False
        self.children = [
            widgets.HBox([self.kind, self.status]),
            widgets.HBox([self.model, self.text]),
            widgets.HBox([self.refresh_button, self.count]),
            self.table,
            widgets.HBox([self.picker, self.open_button]),
            widgets.HBox([self.export_path, self.export_button]),
            self.export_status,
            self.error_area,
        ]
        self.refresh_button.on_click(self.guard(lambda _b: self.refresh()))
        self.open_button.on_click(self.guard(lambda _b: self.open_in_form(self.picker.value)))
        self.export_button.on_click(self.guard(lambda _b: self.export(self.export_path.value)))
        for control in (self.kind, self.status, self.model, self.text):
            control.observe(self.guard(self._filter_changed), names="value")
        self.guard(self.refresh)()

    # --- data --------------------------------------------------------------------------------

    def filters(self) -> dict[str, Any]:
        """The current filters as keyword arguments of ``mediagen_nb.history()``."""
        return {
            "kind": self.kind.value or None,
            "status": self.status.value or None,
            "model": self.model.value or None,
            "text": self.text.value.strip() or None,
        }

    def _filter_changed(self, _change: object) -> None:
        if not self._refreshing:
            self.refresh()

    def refresh(self) -> pd.DataFrame:
        """Read the history with the current filters and redraw; returns the rows shown."""
        self._refreshing = True
        try:
            return self._refresh()
        finally:
            self._refreshing = False

    def _refresh(self) -> pd.DataFrame:
        from mediagen_nb.history import history

        everything = history(home=self.home)
        self._offer("status", self.status, everything)
        self._offer("model", self.model, everything)
        frame = history(home=self.home, **self.filters()).head(self.limit)
        self.frame = frame
        self.count.value = f"<small>{len(frame)} of {len(everything)} rows</small>"
        self.table.value = self._render(frame)
        options = [
            (f"{row['kind']} · {row['model']} · {_cell(row['prompt'], 40)}", row["task_id"])
            for row in frame.to_dict("records")
            if isinstance(row.get("request"), dict) and row["kind"] in ("task", "chat")
        ]
        keep = self.picker.value if self.picker.value in dict(options).values() else None
        self.picker.options = options
        self.picker.value = keep if keep is not None else (options[0][1] if options else None)
        self.open_button.disabled = not options
        return frame

    def _offer(self, column: str, dropdown: widgets.Dropdown, frame: pd.DataFrame) -> None:
        values = sorted({str(v) for v in frame[column].dropna() if str(v)})
        options = [("all", _ALL), *((v, v) for v in values)]
        if list(dropdown.options) != options:
            keep = dropdown.value if dropdown.value in values else _ALL
            with dropdown.hold_trait_notifications():
                dropdown.options = options
                dropdown.value = keep

    def _thumb(self, path: Any) -> str:
        if not isinstance(path, str) or not path:
            return ""
        if path not in self._thumbs:
            try:
                data, mime = thumbnail(Path(path).read_bytes(), THUMB_PX)
            except (OSError, ValueError):
                self._thumbs[path] = ""
            else:
                encoded = base64.b64encode(data).decode("ascii")
                self._thumbs[path] = (
                    f"<img class='mediagen-thumb' alt='' src='data:{mime};base64,{encoded}'>"
                )
        return self._thumbs[path]

    def _preview(self, row: Mapping[Hashable, Any]) -> str:
        """The first cell of a task row: an image thumbnail, a video badge, or nothing."""
        if row["kind"] != "task":
            return ""
        fam, local = row.get("family"), row.get("local_file")
        path = local if isinstance(local, str) and local else None
        known = FAMILIES.get(fam) if isinstance(fam, str) else None
        kind: str
        if known is not None:
            kind = known.kind
        else:  # a family newer than the catalog: go by the cached file's suffix
            kind = (mimetypes.guess_type(path)[0] or "").split("/")[0] if path else ""
        if kind == "image":
            return self._thumb(path)
        if kind != "video":
            return ""
        if path is not None and Path(path).is_file():
            return _video_badge(f"video: {Path(path).name}", cached=True)
        if row.get("status") == "completed":
            return _video_badge("video (not in the local media cache)", cached=False)
        return ""

    def _render(self, frame: pd.DataFrame) -> str:
        if frame.empty:
            return "<p class='mediagen-history-empty'>No history yet.</p>"
        head = "".join(f"<th>{c}</th>" for c in ("", *_SHOWN))
        rows = []
        for row in frame.to_dict("records"):
            preview = self._preview(row)
            cells = "".join(f"<td>{_cell(row[c])}</td>" for c in _SHOWN)
            rows.append(
                f"<tr data-task-id='{_cell(row['task_id'], 200)}' data-kind='{_cell(row['kind'])}'"
                f" data-status='{_cell(row['status'])}'><td>{preview}</td>{cells}</tr>"
            )
        return (
            f"{_STYLE}<table class='mediagen-history-table'><thead><tr>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    # --- actions -----------------------------------------------------------------------------

    def on_open(self, callback: OpenCallback, remove: bool = False) -> None:
        """Call ``callback(kind, family, body)`` when a past request is opened in a form."""
        if remove:
            if callback in self._open_callbacks:
                self._open_callbacks.remove(callback)
        elif callback not in self._open_callbacks:
            self._open_callbacks.append(callback)

    def open_in_form(self, task_id: str | None) -> tuple[str, str | None, dict[str, Any]]:
        """Hand the request of row ``task_id`` to the ``on_open`` callbacks; returns it."""
        if self.frame is None or not task_id:
            raise ValueError("choose a row first")
        match = self.frame[self.frame["task_id"] == task_id]
        if match.empty:
            raise ValueError(f"no row {task_id!r} in the table (check the filters)")
        row = match.iloc[0]
        body = row["request"]
        if not isinstance(body, dict):
            raise ValueError(f"row {task_id!r} has no recorded request")
        fam = row["family"] if isinstance(row["family"], str) else None
        kind = "chat" if row["kind"] == "chat" else family_of(str(fam)).kind
        if not self._open_callbacks:
            raise RuntimeError("no form to open it in: use Studio(), or register on_open(...)")
        for callback in list(self._open_callbacks):
            callback(kind, fam, dict(body))
        return kind, fam, dict(body)

    def export(self, path: str | Path) -> Path:
        """Write the rows matching the filters (all of them, not only ``limit``) to ``path``."""
        from mediagen_nb.history import export, history

        frame = history(home=self.home, **self.filters())
        target = export(path, frame)
        self.export_status.value = (
            f"<small>wrote {len(frame)} rows to {html.escape(str(target))}</small>"
        )
        return target

    def text_summary(self) -> str:
        """The rows shown, one line each."""
        lines = [super().text_summary()]
        if self.frame is not None:
            for row in self.frame.to_dict("records"):
                cells = (_cell(row[c], 40) for c in ("kind", "model", "status", "prompt"))
                lines.append(" · ".join(html.unescape(c) for c in cells))
        return "\n".join(lines)
