"""The browser tab's history kept in the browser: Emscripten's IDBFS (IndexedDB) at the home.

The ledger stays in memory (SQLite fails on JupyterLite's ``/drive``); after every write its
database is copied here and synced to IndexedDB. How two tabs merge: the docs' Design page.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mediagen_nb.history._rows import event_ids

if TYPE_CHECKING:
    from mediagen_nb.history._ledger import Ledger

log = logging.getLogger("mediagen_nb.history")

NOTICE = (
    "History and pictures are kept in this browser (its IndexedDB storage for this site): "
    "they stay after a reload or a restart of the browser; History shows the space used "
    "and has Clear, Export and Import."
)
"""The Studio's notice in a browser tab whose history is kept in the browser."""
Done = Callable[[str | None], None]
"""``done(error)``: a sync finished (``error`` None) or failed (its message)."""


class FileSystem(Protocol):
    """What the store needs of Emscripten's file system (``pyodide_js.FS``)."""

    def mount(self, folder: Path) -> None:
        """Mount the persistent store at ``folder`` (it exists)."""

    def sync(self, populate: bool, done: Done) -> None:
        """``populate``: load the store into ``folder``; else save ``folder`` into the store."""


def _ffi() -> Any:
    """``pyodide.ffi`` (only in Pyodide)."""
    import pyodide.ffi  # type: ignore[import-not-found]

    return pyodide.ffi


class Channel(Protocol):
    """Messages between the tabs of the site (``BroadcastChannel``)."""

    def post(self, text: str) -> None:
        """Tell the other tabs ``text``."""

    def listen(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(text)`` for each message of another tab."""


class BroadcastTabs:
    """A ``BroadcastChannel`` of this browser, reached through ``js``."""

    NAME = "mediagen_nb-history"

    def __init__(self) -> None:
        import js  # type: ignore[import-not-found]  # only in Pyodide

        self._channel: Any = js.BroadcastChannel.new(self.NAME)
        self._keep: list[Any] = []

    def post(self, text: str) -> None:
        self._channel.postMessage(text)

    def listen(self, callback: Callable[[str], None]) -> None:
        proxy = _ffi().create_proxy(lambda event: callback(str(event.data)))
        self._keep.append(proxy)  # alive as long as the store
        self._channel.onmessage = proxy


class IdbFileSystem:
    """Emscripten's IDBFS of this Pyodide, reached through ``pyodide_js``."""

    def __init__(self) -> None:
        import pyodide_js  # type: ignore[import-not-found]  # only in Pyodide

        self._fs: Any = pyodide_js.FS

    def mount(self, folder: Path) -> None:
        self._fs.mount(self._fs.filesystems.IDBFS, {}, str(folder))

    def sync(self, populate: bool, done: Done) -> None:
        ffi = _ffi()

        def finished(error: Any = None) -> None:  # IDBFS calls back with null on success
            done(None if error is None or error is ffi.jsnull else str(error))

        self._fs.syncfs(populate, ffi.create_once_callable(finished))


class BrowserStore:
    """The ledger's in-memory database, saved to a persistent folder after every write."""

    def __init__(self, ledger: Ledger, fs: FileSystem, tabs: Channel | None = None) -> None:
        self.ledger = ledger
        self.fs = fs
        self.tabs = tabs
        self._stale = False
        self.folder = ledger.home
        self.loaded = False
        """Whether what the browser kept has been read (writes before that are saved after)."""
        self.error: str | None = None
        """The last sync's failure, or None."""
        self._lock = threading.Lock()
        self._saving = False
        self._dirty = False
        self._listeners: list[Callable[[], None]] = []

    @property
    def unsaved(self) -> bool:
        """Whether a write is not in the browser's storage yet (a save is due or under way)."""
        return self._saving or self._dirty

    def on_change(self, callback: Callable[[], None], remove: bool = False) -> None:
        """Call ``callback()`` when the store loaded, saved or was cleared."""
        if remove:
            if callback in self._listeners:
                self._listeners.remove(callback)
        elif callback not in self._listeners:
            self._listeners.append(callback)

    def _tell(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:
                log.exception("history: a storage listener failed")

    def start(self) -> None:
        """Mount the store at the home folder and load it (the load finishes later)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.fs.mount(self.folder)
        if self.tabs is not None:
            try:
                self.tabs.listen(self._heard)
            except Exception as exc:  # the other tabs unheard: still kept, last save wins
                log.warning("history: no messages between this site's tabs (%s)", exc)
                self.tabs = None
        self.fs.sync(True, self._loaded)

    def _heard(self, text: str) -> None:
        if text == "saved":
            self._stale = True  # another tab wrote: merge its writes before saving ours
            self._catch_up()
        elif text == "cleared":  # the visitor cleared the site's history in another tab
            self._forget_here()

    def _catch_up(self) -> None:
        """Another tab saved and this one is idle: read the store, take the other tab's rows,
        and save only if the store lacks some of this tab's (its save may have replaced ours).
        A save under way merges when it ends (``_saved`` comes back here)."""
        with self._lock:
            if self._saving or not self.loaded or not self._stale:
                return
            self._saving, self._stale = True, False
        self._merge_then_write(only_if_missing=True)

    def _loaded(self, error: str | None) -> None:
        self.error = error
        snapshot = self.ledger.db_path
        if error is None and snapshot.is_file():
            try:
                self.ledger.restore(saved_events(snapshot), quiet=True)
            except (sqlite3.Error, ValueError) as exc:
                self.error = f"the saved history could not be read ({exc})"
        if self.error is not None:
            log.warning("history: %s", self.error)
        with self._lock:
            self.loaded = True
        self.save()
        self._tell()

    def save(self) -> None:
        """Copy the database into the folder and sync it to the browser's storage (or note
        that a save is due when one is under way, or before the load)."""
        with self._lock:
            if self._saving or not self.loaded:
                self._dirty = True
                return
            self._saving, self._dirty = True, False
            stale, self._stale = self._stale, False
        if stale:
            self._merge_then_write()
        else:
            self._write_and_sync()

    def _write_and_sync(self) -> None:
        try:
            self._write_snapshot()
        except (sqlite3.Error, OSError) as exc:
            self._saved(f"writing {self.ledger.db_path.name} failed ({exc})")
            return
        self.fs.sync(False, self._saved)

    def _merge_then_write(self, *, only_if_missing: bool = False) -> None:
        """Load what another tab saved (the folder becomes the store's copy), put back this
        tab's files the store does not have yet, merge its events, then save (when
        ``only_if_missing``, only if the store lacked a file or an event of this tab)."""
        stash = Path(tempfile.mkdtemp(prefix="mediagen-tab-"))
        shutil.copytree(self.folder, stash, dirs_exist_ok=True)
        kept_db = stash / self.ledger.db_path.relative_to(self.folder)

        def loaded(error: str | None) -> None:
            missing = error is not None or not self.ledger.db_path.is_file()
            try:
                if not missing:  # the store's rows (before a file of ours takes its place)
                    self.ledger.restore(saved_events(self.ledger.db_path), quiet=True)
                    ours = saved_ids(kept_db) if kept_db.is_file() else set()
                    missing = not ours <= saved_ids(self.ledger.db_path)
                for path in stash.rglob("*"):
                    mine = self.folder / path.relative_to(stash)
                    if path.is_file() and not mine.exists():
                        mine.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(path, mine)
                        missing = True
            except (sqlite3.Error, OSError, ValueError) as exc:
                log.warning("history: merging another tab's history failed (%s)", exc)
                missing = True
            finally:
                shutil.rmtree(stash, ignore_errors=True)
            if missing or not only_if_missing:
                self._write_and_sync()
            else:  # the store holds all of this tab's: the folder is its copy already
                self._finished()

        self.fs.sync(True, loaded)

    def _write_snapshot(self) -> None:
        memory = self.ledger.memory_connection()
        target = self.ledger.db_path
        partial = target.with_name(target.name + ".part")
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        copy = sqlite3.connect(partial)
        try:
            memory.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)

    def _saved(self, error: str | None) -> None:
        self.error = error
        if error is not None:
            log.warning("history: saving in the browser failed: %s", error)
        elif self.tabs is not None:
            self.tabs.post("saved")
        self._finished()

    def _finished(self) -> None:
        """A save or a catch-up ended: the next save if one is due, else tell the listeners
        and catch up with a save another tab made meanwhile."""
        with self._lock:
            self._saving = False
            again = self._dirty
        if again:
            self.save()
        else:
            self._tell()
            self._catch_up()

    def used_bytes(self) -> int:
        """Bytes of the history and media kept in the folder."""
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())

    def clear(self) -> None:
        """Forget every row and media file, here, in the browser's storage and in the site's
        other tabs (else their next save would put them back)."""
        if self.tabs is not None:
            self.tabs.post("cleared")
        self._forget_here()

    def _forget_here(self) -> None:
        self.ledger.forget_everything()
        with self._lock:
            self._stale = False  # nothing of the store is to be merged back
        for entry in list(self.folder.iterdir()):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    entry.unlink()
        self.save()


def saved_events(snapshot: Path) -> list[tuple[Any, float, str]]:
    """The ``(event, ts, origin)`` triples of a saved database (``Ledger.restore`` takes)."""
    import json

    from mediagen_nb._hooks import LedgerEvent

    with _read_only(snapshot) as conn:
        rows = conn.execute(
            "SELECT ts, kind, action, key, family, model, service, origin, data FROM events"
            " ORDER BY id"
        ).fetchall()
    out = []
    for ts, kind, action, key, family, model, service, origin, data in rows:
        event = LedgerEvent(
            kind=kind, action=action, key=key, family=family, model=model,
            data=json.loads(data), service=service,
        )  # fmt: skip
        out.append((event, float(ts), str(origin) if origin is not None else "imported"))
    return out


def saved_ids(snapshot: Path) -> set[tuple[Any, ...]]:
    """The ``event_ids`` of a saved database."""
    with _read_only(snapshot) as conn:
        return event_ids(conn)


@contextlib.contextmanager
def _read_only(snapshot: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"{snapshot.as_uri()}?mode=ro", uri=True)
    try:
        yield conn
    finally:
        conn.close()


_store: BrowserStore | None = None


def _tabs() -> Channel | None:
    try:
        return BroadcastTabs()
    except Exception:  # no BroadcastChannel here: each tab on its own
        return None


def attach(
    ledger: Ledger, fs: FileSystem | None = None, tabs: Channel | None = None
) -> BrowserStore | None:
    """Keep ``ledger`` (a browser tab's) in the browser's storage; None when IDBFS cannot be
    used here (the ledger then stays in memory only, as its notice says). ``fs`` and
    ``tabs`` default to this Pyodide's IDBFS and a ``BroadcastChannel``."""
    global _store  # noqa: PLW0603 - one store per tab
    try:
        store = BrowserStore(ledger, fs or IdbFileSystem(), tabs or _tabs())
        ledger.keep_in_memory(NOTICE)
        ledger.on_write(store.save)
        store.start()
    except Exception as exc:  # the ledger's notice tells the user; the cause is for debugging
        log.info("history: the browser's storage cannot be used (%s)", exc)
        return None
    _store = store
    return store


def browser_store() -> BrowserStore | None:
    """The tab's store (after ``ledger()`` attached it), or None."""
    return _store
