"""The gallery as one zip: every shown image and video, and a CSV of who made what.

``gallery.csv`` has one row per item (id, student, kind, model, prompt, created, finished in
UTC, file; a text cell a spreadsheet would run as a formula starts with a quote); media go to
``media/<student>-<n>.<ext>``, numbered per student. Hidden items only when asked for.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from mediagen_nb.classroom._state import ClassState

CSV_COLUMNS = ("id", "student", "kind", "model", "prompt", "created", "finished", "file")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula (``= + - @``, tab,
    carriage return) gets a leading single quote, as OWASP's CSV injection advice says."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def export_zip(state: ClassState, media_dir: Path, *, include_hidden: bool = False) -> bytes:
    """The gallery zip's bytes."""
    items = sorted(state.wall_items(include_hidden=include_hidden), key=lambda t: t.created)
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(CSV_COLUMNS)
    counts: dict[str, int] = {}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in items:
            source = media_dir / (item.media or "")
            if not source.is_file():
                continue
            who = _UNSAFE.sub("_", item.student).strip("_") or "student"
            counts[who] = counts.get(who, 0) + 1
            name = f"media/{who}-{counts[who]}{source.suffix}"
            archive.write(source, name, compress_type=zipfile.ZIP_STORED)
            row = [item.id, item.student, item.kind, item.model, item.prompt]
            writer.writerow([*map(cell, row), _iso(item.created), _iso(item.updated), name])
        archive.writestr("gallery.csv", table.getvalue())
    return buffer.getvalue()
