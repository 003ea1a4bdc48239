"""The History panel's Export, Import, "Export this session" and storage line (``HistoryKeep``).

Export carries the cached files (a file in a kernel, a download in the browser); Import adds
what the history lacks and shows every row at once. See the docs' Design page.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import traitlets

from mediagen_nb._home import resolve_home
from mediagen_nb._platform import is_browser
from mediagen_nb.widgets._where import shown_path

if TYPE_CHECKING:
    from mediagen_nb.history._browser import BrowserStore
    from mediagen_nb.history._ledger import Ledger

EXPORT_MIME = "application/json"


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def size_text(count: int) -> str:
    """``count`` bytes in words: "512 bytes", "4.2 kB", "1.3 MB"."""
    if count < 1000:
        return f"{count} bytes"
    if count < 1_000_000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1_000_000:.1f} MB"


class HistoryKeep(traitlets.HasTraits):
    """Export / Import / Clear of the History panel (needs the panel's ``home``, ``send``,
    ``refresh``, ``set_values``, ``on_action``, ``hold_sync``)."""

    browser = traitlets.Bool(False).tag(sync=True)
    """Whether this is a browser kernel (Export downloads; no folder path is offered)."""
    storage = traitlets.Unicode("").tag(sync=True)
    """In the browser: what its storage keeps ("" elsewhere)."""
    unsaved = traitlets.Bool(False).tag(sync=True)
    """Whether a write is not in the browser's storage yet (the page asks before leaving)."""
    keep_note = traitlets.Unicode("").tag(sync=True)
    """What the last Export, Import or Clear did, and where."""

    home: Any

    def _setup_keep(self) -> None:
        self.browser = is_browser()
        self.on_action("export-history", lambda _m: self.export_history())  # type: ignore[attr-defined]
        self.on_action("export-session", lambda _m: self.export_session())  # type: ignore[attr-defined]
        self.on_action("import-history", self._import_action)  # type: ignore[attr-defined]
        self.on_action("clear-history", lambda _m: self.clear_history())  # type: ignore[attr-defined]
        store = self._store()
        if store is not None:
            store.on_change(self._store_changed)
            self._store_changed()

    def _ledger(self) -> Ledger:
        from mediagen_nb.history import Ledger, ledger

        return ledger() if self.home is None else Ledger(self.home)

    def _store(self) -> BrowserStore | None:
        if self.home is not None:
            return None
        from mediagen_nb.history._browser import browser_store

        ledger = self._ledger()
        store = browser_store()
        return store if store is not None and store.ledger is ledger else None

    def _store_changed(self) -> None:
        store = self._store()
        if store is None:
            return
        used = size_text(store.used_bytes())
        failed = f"; saving failed: {store.error}" if store.error else ""
        with self.hold_sync():  # type: ignore[attr-defined]
            self.storage = f"Kept in this browser: {used} used{failed}"
            self.unsaved = store.unsaved
        if store.loaded:
            self.refresh()  # type: ignore[attr-defined]

    def export_history(self) -> tuple[str, bytes]:
        """Export the history and its files: downloaded in the browser, else written into
        ``$MEDIAGEN_HOME/exports``. Returns (file name, bytes)."""
        from mediagen_nb.history._backup import export_document

        source = self._ledger()
        try:
            document = export_document(source)
        finally:
            if self.home is not None:
                source.close()
        name = f"mediagen-history-{_stamp()}.json"
        data = json.dumps(document, ensure_ascii=False).encode("utf-8")
        what = f"{len(document['events'])} events and {len(document['media'])} files"
        return self._deliver(name, data, EXPORT_MIME, what)

    def export_session(self) -> tuple[str, bytes]:
        """This session's results as one self-contained HTML page (``_session_page``):
        downloaded in the browser, else written into ``$MEDIAGEN_HOME/exports``."""
        from mediagen_nb.history._records import history_records
        from mediagen_nb.widgets._session_page import session_page

        source = self._ledger()
        try:
            keys = source.keys_of()
        finally:
            if self.home is not None:
                source.close()
        records = [
            dict(r)
            for r in history_records(home=self.home, warn=False)
            if (r["kind"], r["task_id"]) in keys
        ]
        data = session_page(records).encode("utf-8")
        name = f"mediagen-session-{_stamp()}.html"
        return self._deliver(name, data, "text/html", f"this session ({len(records)} results)")

    def _deliver(self, name: str, data: bytes, mime: str, what: str) -> tuple[str, bytes]:
        """A browser download of ``data`` as ``name``, or a file in the exports folder."""
        if self.browser:
            self.send({"event": "download", "name": name, "mime": mime}, buffers=[data])  # type: ignore[attr-defined]
            self.keep_note = f"Exported {what}: downloaded by your browser as {name}"
            return name, data
        target = resolve_home(self.home) / "exports" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.keep_note = f"Exported {what} to {shown_path(target)}"
        return name, data

    def _import_action(self, message: dict[str, Any]) -> None:
        data = message.get("file")
        if not isinstance(data, bytes):
            raise ValueError("Import: choose a history export file (.json) first")
        self.import_history(data, str(message.get("name") or "the file"))

    def import_history(self, data: bytes, name: str) -> int:
        """Add the history in ``data`` (an export, from the file ``name``) and show every row
        at once. Returns how many events were added."""
        from mediagen_nb.history._backup import parse_export, restore_document

        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{name}: not a history export (not UTF-8 text)") from exc
        events, media = parse_export(text, name)
        target = self._ledger()
        try:
            added, dropped = restore_document(target, events, media)
        finally:
            if self.home is not None:
                target.close()
        refused = (
            f" ({dropped} media paths outside this history's folder dropped)" if dropped else ""
        )
        self.keep_note = f"Imported {added} new events and {len(media)} files from {name}{refused}"
        self.set_values(scope="all", kind="", status="", model="", text="")  # type: ignore[attr-defined]
        self.refresh()  # type: ignore[attr-defined]
        return added

    def clear_history(self) -> None:
        """In the browser: forget every row and file the browser keeps."""
        store = self._store()
        if store is None:
            raise RuntimeError("Clear: only a browser tab's history can be cleared here")
        store.clear()
        self.keep_note = "Cleared: this browser keeps no history now"
        self.refresh()  # type: ignore[attr-defined]
