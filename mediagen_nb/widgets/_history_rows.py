"""The History panel's rows: one history record as the front end renders it (image rows
with a small thumbnail from the media cache, video rows with a badge)."""

from __future__ import annotations

import base64
import math
import mimetypes
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from mediagen_nb._home import resolve_home
from mediagen_nb.catalog import FAMILIES
from mediagen_nb.catalog._assets import ASSET_LIBRARIES
from mediagen_nb.catalog._labels import model_title as media_model_title
from mediagen_nb.widgets._chat_options import model_title as chat_model_title
from mediagen_nb.widgets._preview import thumbnail

THUMB_PX = 64
KIND_LABELS = {"task": "Task", "chat": "Chat", "asset": "Asset"}
STATUS_LABELS = {
    "queued": "Queued",
    "processing": "Working",
    "completed": "Done",
    "failed": "Failed",
    "cancelled": "Cancelled",
    "unconfirmed": "Unconfirmed",
    "started": "Writing",
    "incomplete": "Stopped",
    "submitted": "Submitted",
    "Processing": "In review",
    "Active": "Active",
    "Failed": "Failed",
    "deleted": "Deleted",
}
"""The words of the status badges (as the panels' cards say them), shared by the filter."""


def status_label(status: str) -> str:
    """The badge word of a ledger status ("completed" -> "Done")."""
    return STATUS_LABELS.get(status, status.capitalize())


def model_label(kind: str, model: str) -> str:
    """A model's readable title as the row shows it (chat and media models differ)."""
    return (chat_model_title if kind == "chat" else media_model_title)(model)


def missing(value: Any) -> bool:
    """None, NaN, NaT or pandas' NA."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and math.isnan(value)


def text(value: Any) -> str:
    """A cell's text ("" when missing)."""
    return "" if missing(value) else str(value)


def when(value: Any, now: datetime | None = None) -> tuple[str, str]:
    """(short local time, full local time) of a UTC datetime or pandas Timestamp; ("", "")
    when missing."""
    if missing(value) or not isinstance(value, datetime):
        return "", ""
    exact = value.to_pydatetime(warn=False) if hasattr(value, "to_pydatetime") else value
    local = exact.astimezone()
    today = (now or datetime.now().astimezone()).date()
    short = local.strftime("%H:%M:%S" if local.date() == today else "%Y-%m-%d %H:%M")
    return short, local.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def media_kind(row: Mapping[Any, Any]) -> str:
    """``image``, ``video`` or "" for a task row (by family, else by the cached file)."""
    if row.get("kind") != "task":
        return ""
    fam, local = row.get("family"), row.get("local_file")
    known = FAMILIES.get(fam) if isinstance(fam, str) else None
    if known is not None:
        return known.kind
    path = local if isinstance(local, str) and local else None
    return (mimetypes.guess_type(path)[0] or "").split("/")[0] if path else ""


class Thumbnails:
    """Small data-URL thumbnails of cached images, made once per file.

    Only files inside the history's media folder (of ``home``, default ``$MEDIAGEN_HOME``)
    are read: a row's ``local_file`` may come from an imported history and name any file.
    """

    def __init__(self, home: Path | str | None = None) -> None:
        self.home = home
        self._made: dict[str, str] = {}

    def cached(self, path: Any) -> Path | None:
        """The media file ``path`` names, when it is one inside the media folder."""
        from mediagen_nb.history._ledger import MEDIA_DIR
        from mediagen_nb.history._media import media_file

        return media_file(resolve_home(self.home) / MEDIA_DIR, path)

    def __call__(self, path: Any) -> str:
        if not isinstance(path, str) or not path:
            return ""
        if path not in self._made:
            found = self.cached(path)
            try:
                if found is None:
                    raise ValueError("not a file of the media folder")
                data, mime = thumbnail(found.read_bytes(), THUMB_PX)
            except (OSError, ValueError):
                self._made[path] = ""
            else:
                encoded = base64.b64encode(data).decode("ascii")
                self._made[path] = f"data:{mime};base64,{encoded}"
        return self._made[path]


def preview(row: Mapping[Any, Any], thumbs: Thumbnails) -> dict[str, Any]:
    """``{"media": "image"|"video"|"", "thumb": data URL, "cached": bool}`` of a row."""
    kind = media_kind(row)
    local = row.get("local_file")
    path = local if isinstance(local, str) and local else None
    if kind == "image":
        thumb = thumbs(path)
        return {"media": "image" if thumb else "", "thumb": thumb, "cached": bool(thumb)}
    if kind == "video":
        if path is not None and thumbs.cached(path) is not None:
            return {"media": "video", "thumb": "", "cached": True}
        if row.get("status") == "completed":
            return {"media": "video", "thumb": "", "cached": False}
    return {"media": "", "thumb": "", "cached": False}


def parents_of(row: Mapping[Any, Any]) -> list[str]:
    """The ids a row was made from ("made from ..." on its card), as strings."""
    parents = row.get("parents")
    return [str(p) for p in parents if p] if isinstance(parents, list | tuple) else []


def front_end_row(row: Mapping[Any, Any], thumbs: Thumbnails) -> dict[str, Any]:
    """One record as the table renders it."""
    key = text(row.get("task_id"))
    short, full = when(row.get("time"))
    elapsed: Any = row.get("elapsed")
    kind = text(row.get("kind"))
    request = row.get("request")
    openable = kind in ("task", "chat") and isinstance(request, dict)
    prompt = text(row.get("prompt"))
    model = text(row.get("model"))
    if kind == "asset":
        params = row.get("parameters")
        params = params if isinstance(params, dict) else {}
        prompt = prompt or text(params.get("url") or params.get("originalUrl"))
        library = ASSET_LIBRARIES.get(text(params.get("library")))
        model = model or (library.title.removesuffix(" asset library") if library else "")
    return {
        "id": key,
        "kind": kind,
        "kind_label": KIND_LABELS.get(kind, kind),
        "family": text(row.get("family")),
        "model": model,
        "model_title": model_label(kind, model),
        "prompt": prompt,
        "status": text(row.get("status")),
        "status_label": status_label(text(row.get("status"))),
        "time": short,
        "time_full": full,
        "elapsed": "" if missing(elapsed) else f"{float(elapsed):.1f} s",
        "error": text(row.get("error")),
        "openable": openable,
        "parents": parents_of(row),
        "sweep_id": text(row.get("sweep_id")),
        **preview(row, thumbs),
    }
