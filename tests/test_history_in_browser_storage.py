"""A browser tab's history kept in the browser's storage (``history._browser``), and Export /
Import / Clear of the History panel, headless.

The browser's IndexedDB is played by ``FakeIdb``: a dict of files that survives the "tab"
(the home folder is wiped on each reload, as a new tab's memory is empty), synced in both
directions the way Emscripten's IDBFS does (``populate`` replaces the folder with the store,
a save replaces the store with the folder), each sync finishing later, when the test runs
the browser's pending callbacks (``settle``), as IndexedDB's do.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb._png import encode_rgb
from mediagen_nb.history import _browser, _ledger
from mediagen_nb.history._browser import NOTICE, BrowserStore, Done, attach
from mediagen_nb.history._ledger import Ledger
from mediagen_nb.widgets import HistoryPanel


class FakeIdb:
    """IndexedDB as IDBFS uses it: files by relative path, synced on request, later (a
    load removes the tab's files it saw when it began that the store lacks, and writes the
    store's; a save makes the store the folder's copy). ``tab()`` gives another tab's view
    of the same storage (its own folder)."""

    def __init__(self, shared: FakeIdb | None = None) -> None:
        self.shared = shared or self
        self.files: dict[str, bytes] = {}
        self.pending: list[tuple[bool, Done, Path, set[str]]] = []
        self.folder: Path | None = None
        self.saves = 0

    def tab(self) -> FakeIdb:
        return FakeIdb(self.shared)

    def mount(self, folder: Path) -> None:
        self.folder = folder

    def sync(self, populate: bool, done: Done) -> None:
        assert self.folder is not None
        local = {str(p.relative_to(self.folder)) for p in self.folder.rglob("*") if p.is_file()}
        self.shared.pending.append((populate, done, self.folder, local))

    def settle(self) -> None:
        """Run the pending syncs of every tab (and those they start) to the end."""
        store = self.shared
        for _ in range(1000):  # tabs that answer each other's saves for ever fail here
            if not store.pending:
                return
            populate, done, folder, local = store.pending.pop(0)
            if populate:  # IDBFS: the files seen when the sync began and not in the store go
                for name in local - set(store.files):
                    (folder / name).unlink(missing_ok=True)
                for name, data in store.files.items():
                    (folder / name).parent.mkdir(parents=True, exist_ok=True)
                    (folder / name).write_bytes(data)
            else:
                store.saves += 1
                store.files = {
                    str(p.relative_to(folder)): p.read_bytes()
                    for p in folder.rglob("*")
                    if p.is_file()
                }
            done(None)
        raise AssertionError("the tabs' syncs do not end")


class FakeTabs:
    """A ``BroadcastChannel`` between the fake tabs: a message reaches every other tab."""

    def __init__(self, hub: list[FakeTabs]) -> None:
        self.hub = hub
        self.heard: list[str] = []
        self.callback: Any = None
        hub.append(self)

    def post(self, text: str) -> None:
        for other in self.hub:
            if other is not self and other.callback is not None:
                other.heard.append(text)
                other.callback(text)

    def listen(self, callback: Any) -> None:
        self.callback = callback


def picture() -> bytes:
    return encode_rgb(8, 8, [bytes([200, 40, 40] * 8)] * 8)


def generate(store: Ledger, key: str, prompt: str) -> None:
    body = {"prompt": prompt, "model": "gpt-image-2"}
    for action, data in (
        ("created", {"request": body, "status": "queued"}),
        ("completed", {"status": "completed", "url": f"http://x/{key}.png"}),
    ):
        store.record(
            LedgerEvent(
                kind="task", action=action, key=key, family="image2", model="gpt-image-2", data=data
            )
        )
    store.store_media(key, picture(), ".png")


def open_tab(home: Path, idb: FakeIdb, tabs: FakeTabs | None = None) -> tuple[Ledger, BrowserStore]:
    """A new tab: its memory (the home folder) empty, the browser's storage as it was."""
    if home.exists():
        shutil.rmtree(home)
    store = Ledger(home)
    kept = attach(store, idb, tabs or FakeTabs([]))
    assert kept is not None
    return store, kept


@pytest.fixture(autouse=True)
def _no_tab_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_browser, "_store", None)


def test_rows_and_pictures_outlive_a_reload(tmp_path: Path) -> None:
    idb = FakeIdb()
    home = tmp_path / "home"
    store, kept = open_tab(home, idb)
    assert store.problem == NOTICE
    assert store.problem_expected
    idb.settle()
    assert kept.loaded
    generate(store, "t1", "a red square")
    assert kept.unsaved  # written in the tab, not yet in the browser's storage
    idb.settle()
    assert not kept.unsaved
    generate(store, "t2", "a second square")
    idb.settle()
    store.close()

    again, kept_again = open_tab(home, idb)  # reload: the tab's memory is empty again
    assert again.items() == []
    idb.settle()
    rows = again.items()
    assert [r["key"] for r in rows] == ["t2", "t1"]
    assert [r["prompt"] for r in rows] == ["a second square", "a red square"]
    for row in rows:
        assert Path(row["local_file"]).read_bytes() == picture()
    assert kept_again.used_bytes() >= 2 * len(picture())


def test_each_write_is_saved_at_once_and_one_during_a_save_is_saved_after(
    tmp_path: Path,
) -> None:
    idb = FakeIdb()
    store, kept = open_tab(tmp_path / "home", idb)
    idb.settle()
    before = idb.saves
    store.record(LedgerEvent(kind="chat", action="started", key="turn-1", model="gpt-5.4"))
    assert len(idb.pending) == 1  # the save started with the write, not on a timer
    store.record(LedgerEvent(kind="chat", action="completed", key="turn-1", model="gpt-5.4"))
    assert len(idb.pending) == 1
    assert kept.unsaved
    idb.settle()
    assert idb.saves == before + 2
    assert not kept.unsaved
    store.close()
    again, _kept = open_tab(tmp_path / "home", idb)
    idb.settle()
    assert [e["action"] for e in again.events()] == ["started", "completed"]


def test_writes_before_the_load_are_kept_with_the_saved_ones(tmp_path: Path) -> None:
    idb = FakeIdb()
    store, _kept = open_tab(tmp_path / "home", idb)
    idb.settle()
    generate(store, "old", "saved earlier")
    idb.settle()
    store.close()
    saves = idb.saves
    again, kept = open_tab(tmp_path / "home", idb)
    again.record(LedgerEvent(kind="chat", action="started", key="early", model="gpt-5.4"))
    assert not kept.loaded
    assert idb.saves == saves
    idb.settle()
    assert sorted(r["key"] for r in again.items()) == ["early", "old"]
    assert "early" in idb.files["history.sqlite3"].decode("latin-1")


def test_clear_forgets_rows_and_files_here_and_in_the_browser(tmp_path: Path) -> None:
    idb = FakeIdb()
    store, kept = open_tab(tmp_path / "home", idb)
    idb.settle()
    generate(store, "t1", "to forget")
    idb.settle()
    kept.clear()
    idb.settle()
    assert store.items() == []
    assert list(idb.files) == ["history.sqlite3"]  # an empty history, no media
    store.close()
    again, _kept = open_tab(tmp_path / "home", idb)
    idb.settle()
    assert again.items() == []


def test_the_panel_says_what_the_browser_keeps_and_clears_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    idb = FakeIdb()
    store, _kept = open_tab(tmp_path / "home", idb)
    monkeypatch.setattr(_ledger, "_default", store)
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "home"))
    idb.settle()
    generate(store, "t1", "kept here")
    idb.settle()
    panel = HistoryPanel()
    assert panel.storage.startswith("Kept in this browser: ")
    assert panel.storage.endswith(" kB used")
    assert panel.unsaved is False
    panel.set_values(scope="all")
    assert panel.total == 1
    panel.handle_action({"action": "clear-history"})
    idb.settle()
    assert panel.errors == []
    assert panel.total == 0
    assert panel.keep_note.startswith("Cleared")
    panel.close()


def exported(panel: HistoryPanel) -> dict[str, Any]:
    name, data = panel.export_history()
    assert name.startswith("mediagen-history-")
    assert name.endswith(".json")
    document: dict[str, Any] = json.loads(data)
    return document


def test_export_and_import_carry_rows_and_pictures_to_another_home(tmp_path: Path) -> None:
    source = Ledger(tmp_path / "a")
    generate(source, "t1", "carried")
    source.close()
    panel = HistoryPanel(home=tmp_path / "a")
    document = exported(panel)
    written = tmp_path / "a" / "exports" / panel.keep_note.rsplit("/", 1)[-1]
    assert panel.keep_note.startswith("Exported 3 events and 1 files to ")
    assert json.loads(written.read_text()) == document  # in Jupyter: a file, and where
    assert [m["key"] for m in document["media"]] == ["t1"]

    target = HistoryPanel(home=tmp_path / "b")
    assert target.total == 0
    assert target.values["scope"] == "session"
    data = json.dumps(document).encode()
    target.handle_action({"action": "import-history", "name": "h.json", "file": data})
    assert target.errors == []
    assert target.keep_note == "Imported 3 new events and 1 files from h.json"
    assert target.values["scope"] == "all"
    assert target.total == 1
    row = target.rows[0]
    assert row["prompt"] == "carried"
    assert row["thumb"].startswith("data:image/")  # the picture came with it
    target.handle_action({"action": "import-history", "name": "h.json", "file": data})
    assert target.keep_note.startswith("Imported 0 new events")  # twice changes nothing
    assert target.total == 1


def test_import_names_what_is_wrong(tmp_path: Path) -> None:
    panel = HistoryPanel(home=tmp_path / "b")
    panel.handle_action({"action": "import-history", "name": "x.json", "file": b"{}"})
    assert panel.errors[-1].endswith(
        "x.json: not a history export (format must be 'mediagen_nb-history')"
    )
    bad = {
        "format": "mediagen_nb-history",
        "version": 1,
        "events": [],
        "media": [{"key": "k", "base64": "@@"}],
    }
    panel.handle_action(
        {"action": "import-history", "name": "y.json", "file": json.dumps(bad).encode()}
    )
    assert "media[0].base64: must be base64" in panel.errors[-1]
    panel.handle_action({"action": "import-history", "name": "z.json"})
    assert "choose a history export file" in panel.errors[-1]


def test_in_the_browser_export_is_a_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = HistoryPanel(home=tmp_path / "a")
    panel.browser = True
    sent: list[tuple[dict[str, Any], list[bytes]]] = []
    monkeypatch.setattr(
        panel, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    name, data = panel.export_history()
    assert sent == [({"event": "download", "name": name, "mime": "application/json"}, [data])]
    assert panel.keep_note == f"Exported 0 events and 0 files: downloaded by your browser as {name}"
    assert not (tmp_path / "a" / "exports").exists()


def test_two_tabs_at_once_keep_each_other_s_writes(tmp_path: Path) -> None:
    idb = FakeIdb()
    hub: list[FakeTabs] = []
    lab, lab_kept = open_tab(tmp_path / "lab", idb.tab(), FakeTabs(hub))
    studio, studio_kept = open_tab(tmp_path / "studio", idb.tab(), FakeTabs(hub))
    idb.settle()
    hub[1].heard.clear()
    generate(lab, "in-lab", "made in the JupyterLab tab")
    idb.settle()
    assert hub[1].heard  # the Studio's tab was told
    assert set(hub[1].heard) == {"saved"}
    generate(studio, "in-studio", "made in the Studio's tab")
    idb.settle()
    assert sorted(r["key"] for r in studio.items()) == ["in-lab", "in-studio"]
    lab.close()
    studio.close()
    again, _kept = open_tab(tmp_path / "reload", idb.tab())
    idb.settle()
    rows = {r["key"]: r for r in again.items()}
    assert sorted(rows) == ["in-lab", "in-studio"]  # neither tab's picture was lost
    for row in rows.values():  # (each tab's home is the same path in a browser; here not)
        local = Path(row["local_file"])
        assert (again.home / local.relative_to(local.parents[2])).read_bytes() == picture()
    assert lab_kept.error is None
    assert studio_kept.error is None


def test_import_by_button_drops_a_media_path_outside_the_history(tmp_path: Path) -> None:
    event = {
        "ts": 1.0, "kind": "task", "action": "stored", "key": "t9",
        "data": {"local_file": "/etc/passwd"},
    }  # fmt: skip
    document = {"format": "mediagen_nb-history", "version": 1, "events": [event]}
    panel = HistoryPanel(home=tmp_path / "b")
    data = json.dumps(document).encode()
    panel.handle_action({"action": "import-history", "name": "evil.json", "file": data})
    assert panel.errors == []
    assert panel.keep_note == (
        "Imported 0 new events and 0 files from evil.json "
        "(1 media paths outside this history's folder dropped)"
    )
    assert all(r["thumb"] == "" for r in panel.rows)


def note(store: Ledger, key: str) -> None:
    """One write: a task created (one save)."""
    body = {"prompt": f"made as {key}", "model": "gpt-image-2"}
    data = {"request": body, "status": "queued"}
    event = LedgerEvent(
        kind="task", action="created", key=key, family="image2", model="gpt-image-2", data=data
    )
    store.record(event)


def test_two_tabs_saving_at_the_same_moment_keep_both_writes(tmp_path: Path) -> None:
    """Each tab saves once before it hears of the other's save: the later save made the store
    its own copy, and the earlier tab's row was gone once neither wrote again."""
    idb = FakeIdb()
    hub: list[FakeTabs] = []
    lab, lab_kept = open_tab(tmp_path / "lab", idb.tab(), FakeTabs(hub))
    studio, studio_kept = open_tab(tmp_path / "studio", idb.tab(), FakeTabs(hub))
    idb.settle()
    opened = idb.saves
    note(lab, "in-lab")
    note(studio, "in-studio")
    idb.settle()
    assert idb.saves - opened == 3  # each tab's, then one merge; no answer to an answer
    assert not lab_kept.unsaved
    assert not studio_kept.unsaved
    assert sorted(r["key"] for r in lab.items()) == ["in-lab", "in-studio"]  # each tab sees
    assert sorted(r["key"] for r in studio.items()) == ["in-lab", "in-studio"]  # the other's
    lab.close()
    studio.close()
    again, _kept = open_tab(tmp_path / "reload", idb.tab())
    idb.settle()
    assert sorted(r["key"] for r in again.items()) == ["in-lab", "in-studio"]


def test_clear_in_one_tab_clears_the_other_tabs_too(tmp_path: Path) -> None:
    """Else the other tab's next save (or its merge) would put every row back."""
    idb = FakeIdb()
    hub: list[FakeTabs] = []
    lab, lab_kept = open_tab(tmp_path / "lab", idb.tab(), FakeTabs(hub))
    studio, _studio_kept = open_tab(tmp_path / "studio", idb.tab(), FakeTabs(hub))
    idb.settle()
    generate(lab, "in-lab", "made in the JupyterLab tab")
    generate(studio, "in-studio", "made in the Studio's tab")
    idb.settle()
    assert len(studio.items()) == 2
    lab_kept.clear()
    idb.settle()
    assert lab.items() == []
    assert studio.items() == []
    assert not [p for p in (tmp_path / "studio").rglob("*") if p.is_file() and "media" in p.parts]
    note(studio, "after-clear")  # the other tab's next write saves only what it made since
    idb.settle()
    lab.close()
    studio.close()
    again, _kept = open_tab(tmp_path / "reload", idb.tab())
    idb.settle()
    assert [r["key"] for r in again.items()] == ["after-clear"]


def test_a_catch_up_that_puts_back_a_file_still_takes_the_other_tab_s_rows(
    tmp_path: Path,
) -> None:
    """A closed tab's last save replaced the store without this tab's picture: catching up,
    this tab puts its picture back and must also take in the closed tab's rows, or its save
    drops them (no tab is left to restore them)."""
    idb = FakeIdb()
    studio_tabs = FakeTabs([])
    studio, studio_kept = open_tab(tmp_path / "studio", idb.tab(), studio_tabs)
    idb.settle()
    generate(studio, "in-studio", "made in the Studio's tab")
    idb.settle()
    lab, _lab_kept = open_tab(tmp_path / "lab", idb.tab())  # hears nothing, tells nothing
    idb.settle()
    for picture_file in (tmp_path / "lab" / "media").rglob("*.png"):
        picture_file.unlink()  # as if the lab had loaded before the Studio's picture was kept
    generate(lab, "in-lab", "made in the JupyterLab tab")
    idb.settle()
    lab.close()  # its save made the store: the lab's rows, not the Studio's picture
    studio_kept._heard("saved")
    idb.settle()
    studio.close()
    again, _kept = open_tab(tmp_path / "reload", idb.tab())
    idb.settle()
    rows = {r["key"]: r for r in again.items()}
    assert sorted(rows) == ["in-lab", "in-studio"]
    local = Path(rows["in-studio"]["local_file"])
    assert (again.home / local.relative_to(local.parents[2])).read_bytes() == picture()
