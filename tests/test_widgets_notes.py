"""What the panels say in the user's terms: the Save note names the original's place (relative
to the notebook's folder, under ``~``, or in JupyterLite's file browser / the tab's memory)
and keeps the full path as its tooltip; the notice says information as a polite status and
errors as alerts (``notice_kind``), an error never hidden by information."""

from __future__ import annotations

from pathlib import Path

import pytest

import mediagen_nb as mg
from mediagen_nb.widgets import _where
from mediagen_nb.widgets._generate_panel import ImagePanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._where import export_note, in_file_browser, save_note, shown_path, where

CWD = Path("/work/notebooks")
HOME = Path("/home/ada")


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/work/notebooks/media/1e/img.png", "media/1e/img.png"),  # inside the notebook folder
        ("/work/notebooks/../notebooks/out.png", "out.png"),
        ("/home/ada/.mediagen_nb/media/1e/img.png", "~/.mediagen_nb/media/1e/img.png"),
        ("/tmp/pytest-of-root/x/img.png", "/tmp/pytest-of-root/x/img.png"),  # elsewhere
        ("/work/notebooks", "/work/notebooks"),  # the folder itself is not ""
        ("/home/ada", "/home/ada"),
        ("/work/notebooks2/img.png", "/work/notebooks2/img.png"),  # a prefix is not a parent
    ],
)
def test_a_kernel_shows_paths_relative_to_the_notebook_or_home(path: str, shown: str) -> None:
    assert shown_path(path, cwd=CWD, home=HOME) == shown


def test_a_notebook_folder_inside_home_wins_over_home() -> None:
    path = "/home/ada/project/media/a.png"
    assert shown_path(path, cwd=Path("/home/ada/project"), home=HOME) == "media/a.png"


@pytest.mark.parametrize(
    ("path", "place"),
    [
        (
            "/drive/notebooks/.mediagen_nb/media/1e/img.png",
            "notebooks/.mediagen_nb/media/1e/img.png",
        ),
        ("/drive/img.png", "img.png"),
        ("/drive", None),
        ("/home/pyodide/.mediagen_nb/media/1e/img.png", None),  # the default home: tab memory
        ("/drivers/img.png", None),
    ],
)
def test_the_browser_names_places_in_the_file_browser(path: str, place: str | None) -> None:
    assert in_file_browser(path) == place


def test_the_kernel_save_note_says_the_download_and_the_short_path() -> None:
    note = save_note(
        "img_1.png", "/home/ada/.mediagen_nb/media/1e/img_1.png", browser=False, cwd=CWD, home=HOME
    )
    assert note == (
        "Saved: downloaded by your browser as img_1.png "
        "(the original stays in ~/.mediagen_nb/media/1e/img_1.png)"
    )
    assert save_note("img_1.png", "", browser=False) == (
        "Saved: downloaded by your browser as img_1.png"
    )


def test_the_browser_save_note_never_shows_a_path_of_the_tab() -> None:
    memory = save_note("img_1.png", "/home/pyodide/.mediagen_nb/media/1e/img_1.png", browser=True)
    assert memory == (
        "Saved: downloaded by your browser as img_1.png into its downloads folder. This tab "
        "keeps the original only in its memory, until the page is reloaded."
    )
    assert "/home/pyodide" not in memory
    drive = save_note("img_1.png", "/drive/keep/media/1e/img_1.png", browser=True)
    assert drive == (
        "Saved: downloaded by your browser as img_1.png; the original is "
        "keep/media/1e/img_1.png in JupyterLite's file browser."
    )
    assert where("/home/pyodide/.mediagen_nb/media/a.mp4", browser=True) == "in this tab's memory"
    assert where("/drive/a.mp4", browser=True) == "a.mp4 in the file browser"


@pytest.fixture
async def panel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ImagePanel:
    """An Images panel holding one finished picture; the kernel runs in ``tmp_path`` (the
    notebook's folder), which holds ``$MEDIAGEN_HOME`` (the autouse fixture's)."""
    monkeypatch.chdir(tmp_path)
    handle = mg.start_emulator(in_process=True, speed=2000)
    client = mg.AsyncClient(
        api_key=handle.api_key, base_url=handle.base_url, text_base_url=handle.text_base_url
    )
    images = ImagePanel(session=Session(client=client))
    images.set(prompt="a red fox in snow")
    job = images.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed"
    await client.aclose()
    handle.stop()
    return images


async def test_the_panel_s_save_note_is_relative_and_keeps_the_full_path(
    panel: ImagePanel, tmp_path: Path
) -> None:
    card = panel.cards[0]
    full = Path(card.local_path)
    assert full.is_absolute()
    assert full.is_relative_to(tmp_path / "mediagen_home" / "media")
    panel.handle_action({"action": "saved", "id": card.id})
    shown = full.relative_to(tmp_path)
    assert panel.save_note == (
        f"Saved: downloaded by your browser as {card.file_name} (the original stays in {shown})"
    )
    assert str(tmp_path) not in panel.save_note
    assert panel.save_path == str(full)  # the full path: the note's tooltip
    assert mg.history_records()[0]["local_file"] == str(full)  # and in the history
    assert panel.errors == []


async def test_in_the_browser_the_save_note_says_the_tab_keeps_it(
    panel: ImagePanel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_where, "is_browser", lambda: True)
    card = panel.cards[0]
    panel.handle_action({"action": "saved", "id": card.id})
    assert panel.save_note.startswith(f"Saved: downloaded by your browser as {card.file_name}")
    assert "only in its memory" in panel.save_note
    assert card.local_path not in panel.save_note
    assert panel.save_path == card.local_path


def test_the_export_note_is_short_and_keeps_the_full_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the notebook's folder holds $MEDIAGEN_HOME (autouse fixture)
    history = HistoryPanel(session=Session(mode_text="test"))
    target = history.export()
    assert history.export_note == f"Wrote 0 rows to {target.relative_to(tmp_path)}"
    assert history.export_file == str(target)  # the note's tooltip
    monkeypatch.setattr(_where, "is_browser", lambda: True)
    target = history.export()
    assert history.export_note == (
        f"Wrote 0 rows to {target.name} in this tab's memory only (gone after a reload); "
        "Download CSV saves them on your computer"
    )
    monkeypatch.setattr(history, "send", lambda content, buffers=None: None)
    history.download()
    assert history.export_file == ""  # a download has no file in the kernel to point at
    drive = export_note(3, Path("/drive/exports/h.csv"), browser=True)
    assert drive == "Wrote 3 rows to exports/h.csv in JupyterLite's file browser"


def test_information_is_a_status_and_never_hides_an_error() -> None:
    images = ImagePanel(session=Session(mode_text="test"))
    assert (images.notice, images.notice_kind) == ("", "error")
    images.show_info("history is kept in this tab")
    assert (images.notice, images.notice_kind) == ("history is kept in this tab", "info")
    assert images.errors == []  # information is not an error
    images.show_error("the write failed")
    assert (images.notice, images.notice_kind) == ("the write failed", "error")
    images.show_info("history is kept in this tab")  # an error still shown stays
    assert (images.notice, images.notice_kind) == ("the write failed", "error")
    images.handle_action({"action": "dismiss"})
    assert (images.notice, images.notice_kind) == ("", "error")
    images.show_info("history is kept in this tab")
    assert images.notice_kind == "info"


def test_the_front_end_draws_the_kind_and_the_tooltip() -> None:
    esm = str(ImagePanel._esm)
    assert '"notice_kind"' in esm
    assert 'kind === "info" ? "status" : "alert"' in esm
    assert 'mgStatusLine("save_note", "mg-gen__saved", "save_path")' in esm
    assert '"export_file"' in str(HistoryPanel._esm)
