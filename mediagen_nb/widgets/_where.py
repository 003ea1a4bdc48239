"""Where a file is, in words the user can act on: the Save note, card notes, the export note
(relative to the notebook's folder, under ``~``, or its place in JupyterLite's file browser)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from mediagen_nb._platform import is_browser

DRIVE = PurePosixPath("/drive")
"""Where JupyterLite's Pyodide kernel mounts the file browser's storage."""


def shown_path(path: str | Path, *, cwd: Path | None = None, home: Path | None = None) -> str:
    """``path`` for a normal kernel's user: relative to ``cwd`` (default: the working
    directory) when inside it, else ``~/...`` when inside ``home`` (default: the user's),
    else absolute."""
    target = Path(os.path.abspath(path))
    here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))
    if target.is_relative_to(here) and target != here:
        return str(target.relative_to(here))
    user = Path(os.path.abspath(home if home is not None else Path.home()))
    if target.is_relative_to(user) and target != user:
        return str(Path("~") / target.relative_to(user))
    return str(target)


def in_file_browser(path: str | Path) -> str | None:
    """In the browser: ``path``'s place in JupyterLite's file browser, or None when it is
    outside the file browser's storage (in the tab's memory only)."""
    target = PurePosixPath(os.path.normpath(str(path)))
    if target.is_relative_to(DRIVE) and target != DRIVE:
        return str(target.relative_to(DRIVE))
    return None


def save_note(
    file_name: str,
    local_path: str,
    *,
    browser: bool | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
) -> str:
    """What the panel says after Save: the browser downloaded ``file_name``, and where the
    original (``local_path``, "" when not kept) is, in the user's terms (module docstring).
    ``browser`` defaults to whether this is a browser kernel."""
    note = f"Saved: downloaded by your browser as {file_name}"
    if not local_path:
        return note
    if is_browser() if browser is None else browser:
        place = in_file_browser(local_path)
        if place is None:
            return (
                f"{note} into its downloads folder. This tab keeps the original only in its "
                "memory, until the page is reloaded."
            )
        return f"{note}; the original is {place} in JupyterLite's file browser."
    return f"{note} (the original stays in {shown_path(local_path, cwd=cwd, home=home)})"


def export_note(count: int, target: Path, *, browser: bool | None = None) -> str:
    """What the History panel says after Save CSV: how many rows went where, in the user's
    terms (in the browser the default exports folder is in the tab's memory, so the note
    points to Download CSV instead)."""
    if is_browser() if browser is None else browser:
        place = in_file_browser(target)
        if place is None:
            return (
                f"Wrote {count} rows to {target.name} in this tab's memory only (gone after a "
                "reload); Download CSV saves them on your computer"
            )
        return f"Wrote {count} rows to {place} in JupyterLite's file browser"
    return f"Wrote {count} rows to {shown_path(target)}"


def where(local_path: str, *, browser: bool | None = None) -> str:
    """A short place for ``local_path`` in a card's note: the shown path, or in the browser
    its place in the file browser, or "in this tab's memory"."""
    if is_browser() if browser is None else browser:
        place = in_file_browser(local_path)
        return "in this tab's memory" if place is None else f"{place} in the file browser"
    return shown_path(local_path)
