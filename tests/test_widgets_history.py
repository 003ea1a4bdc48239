"""HistoryPanel (one anywidget): rows with thumbnails and video badges, filters, this session
or all, paging, reopen, export into $MEDIAGEN_HOME and download, from a real ledger filled by
the client against the emulator."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator, Hashable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mediagen_nb._home import resolve_home
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.history import Ledger
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session

pytestmark = pytest.mark.emulator(speed=60.0, seed=5)


@pytest.fixture
async def filled(emulator: EmulatorHandle) -> AsyncIterator[dict[str, Any]]:
    """One completed image task (with cached media), one failed video task, one chat turn."""
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as client:
        image = await client.images.create("nano-banana", prompt="a red fox", size="16:9")
        await image.wait()
        await image.read_bytes()
        video = await client.videos.create(
            "neutralSora2Plus", family="sora", prompt="[policy] a storm", seconds=4
        )
        with contextlib.suppress(Exception):
            await video.wait()
        await client.chat.completions.create(
            model="gpt-5.5", messages=[{"role": "user", "content": "hello history"}]
        )
        yield {"image": image, "video": video, "session": Session(client=client)}


def test_empty_history_is_quiet() -> None:
    panel = HistoryPanel(session=Session(mode_text="test"))
    assert panel.errors == []
    assert panel.notice == ""
    assert (panel.rows, panel.total, panel.everything, panel.pages) == ([], 0, 0, 1)
    assert panel.values["scope"] == "session"
    assert not panel.can_reopen


async def test_rows_thumbnails_and_filters(filled: dict[str, Any]) -> None:
    panel = HistoryPanel(session=filled["session"])
    assert panel.errors == []
    image_id, video_id = filled["image"].id, filled["video"].id
    assert [r["kind"] for r in panel.rows] == ["chat", "task", "task"]  # newest first
    assert [r["id"] for r in panel.rows[1:]] == [video_id, image_id]
    image = panel.rows[2]
    assert (image["model"], image["prompt"], image["status"]) == (
        "nano-banana",
        "a red fox",
        "completed",
    )
    assert image["model_title"] == "Nano Banana"  # the readable title; the API name on hover
    assert panel.rows[0]["model_title"] == "GPT-5.5"
    assert panel.rows[1]["model_title"] == "Sora 2 Plus"
    assert image["media"] == "image"
    assert image["thumb"].startswith("data:image/webp;base64,")
    assert len(image["thumb"]) < 8000  # a small thumbnail, not the full image
    assert image["elapsed"].endswith(" s")
    assert image["time"]
    assert image["time_full"].startswith("20")
    video = panel.rows[1]
    assert video["status"] == "failed"
    assert video["error"]  # the policy reason, shown clamped with expand in the browser
    assert video["media"] == ""  # failed: no badge
    assert panel.options == {  # in the rows' words; the ledger's value in value and tooltip
        "status": [
            {"value": "completed", "label": "Done", "title": "completed"},
            {"value": "failed", "label": "Failed", "title": "failed"},
        ],
        "model": [
            {"value": "gpt-5.5", "label": "GPT-5.5", "title": "gpt-5.5"},
            {"value": "nano-banana", "label": "Nano Banana", "title": "nano-banana"},
            {"value": "neutralSora2Plus", "label": "Sora 2 Plus", "title": "neutralSora2Plus"},
        ],
        "sweep": [],  # no comparison in these rows
    }
    labels = {o["value"]: o["label"] for o in panel.options["status"]}
    assert {r["status"]: r["status_label"] for r in panel.rows} == {
        s: labels[s] for s in {r["status"] for r in panel.rows}
    }  # a badge and its filter option say the same word
    models = {o["value"]: o["label"] for o in panel.options["model"]}
    assert all(models[r["model"]] == r["model_title"] for r in panel.rows)
    assert "<script" not in str(panel.rows)

    panel.set_values(kind="chat")
    assert [r["kind"] for r in panel.rows] == ["chat"]
    panel.set_values(kind="", status="failed")
    assert [r["id"] for r in panel.rows] == [video_id]
    panel.set_values(status="", model="nano-banana")
    assert [r["id"] for r in panel.rows] == [image_id]
    panel.set_values(model="", text="HELLO hist")
    assert [r["kind"] for r in panel.rows] == ["chat"]
    assert (panel.total, panel.everything) == (1, 3)


async def test_this_session_or_all(filled: dict[str, Any]) -> None:
    earlier = Ledger(origin="a-previous-kernel")
    earlier.record(
        LedgerEvent(
            "task",
            "created",
            "task-from-yesterday",
            family="banana",
            model="nano-banana",
            data={"request": {"model": "nano-banana", "prompt": "an old owl"}, "status": "queued"},
        )
    )
    earlier.close()
    panel = HistoryPanel(session=filled["session"])
    assert panel.values["scope"] == "session"
    assert "task-from-yesterday" not in [r["id"] for r in panel.rows]
    assert (panel.total, panel.everything) == (3, 4)
    panel.set_values(scope="all")
    assert [r["id"] for r in panel.rows[:1]] == ["task-from-yesterday"]
    assert [r["prompt"] for r in panel.rows[:1]] == ["an old owl"]
    assert panel.total == 4


async def test_paging(filled: dict[str, Any]) -> None:
    panel = HistoryPanel(session=filled["session"], page_size=2)
    assert (panel.page, panel.pages, len(panel.rows)) == (0, 2, 2)
    first = [r["id"] for r in panel.rows]
    panel.handle_action({"action": "next"})
    assert (panel.page, [r["id"] for r in panel.rows]) == (1, [filled["image"].id])
    panel.handle_action({"action": "next"})
    assert panel.notice == "ValueError: this is the last page"
    panel.handle_action({"action": "prev"})
    assert [r["id"] for r in panel.rows] == first
    panel.handle_action({"action": "next"})
    panel.set_values(kind="task")  # a filter change goes back to the first page
    assert (panel.page, panel.pages, panel.total) == (0, 1, 2)


async def test_reopen_hands_over_the_request(filled: dict[str, Any]) -> None:
    panel = HistoryPanel(session=filled["session"])
    image_id = filled["image"].id
    panel.handle_action({"action": "reopen", "id": image_id})
    assert "no form to open it in" in panel.notice
    opened: list[tuple[str, str | None, dict[str, Any]]] = []
    panel.on_reopen(lambda kind, fam, body: opened.append((kind, fam, body)))
    assert panel.can_reopen
    assert [r["openable"] for r in panel.rows] == [True, True, True]
    panel.handle_action({"action": "reopen", "id": image_id})
    assert opened == [
        ("image", "banana", {"model": "nano-banana", "prompt": "a red fox", "size": "16:9"})
    ]
    chat_id = panel.rows[0]["id"]
    kind, fam, body = panel.reopen(chat_id)
    assert (kind, fam) == ("chat", None)
    assert body["messages"][-1]["content"] == "hello history"
    panel.set_values(kind="chat")
    with pytest.raises(ValueError, match="check the filters"):
        panel.reopen(image_id)


async def test_export_writes_into_mediagen_home_and_download_sends_csv(
    filled: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = HistoryPanel(session=filled["session"])
    panel.set_values(kind="task")
    panel.handle_action({"action": "export"})
    assert panel.errors == []
    exports = resolve_home() / "exports"
    assert panel.export_dir == str(exports)  # the Save button's tooltip names the folder
    (written,) = exports.glob("history-*.csv")
    assert panel.export_note == f"Wrote 2 rows to {written}"
    assert sorted(pd.read_csv(written)["task_id"]) == sorted(
        [filled["image"].id, filled["video"].id]
    )
    panel.set_values(kind="")
    assert len(pd.read_parquet(panel.export(tmp_path / "all.parquet"))) == 3
    with pytest.raises(ValueError, match="suffix"):
        panel.export(tmp_path / "bad.txt")
    sent: list[tuple[dict[str, Any], list[bytes]]] = []
    monkeypatch.setattr(
        panel, "send", lambda content, buffers=None: sent.append((content, buffers))
    )
    panel.handle_action({"action": "download"})
    ((content, buffers),) = sent
    assert content["event"] == "download"
    assert content["name"].startswith("history-")
    assert content["name"].endswith(".csv")
    assert len(pd.read_csv(io.BytesIO(buffers[0]))) == 3
    assert panel.export_note.startswith("Sent 3 rows to the browser")
    assert list(Path.cwd().glob("history-*.csv")) == []  # never into the notebook folder


async def test_video_rows_show_a_video_badge_not_a_broken_image(
    emulator: EmulatorHandle,
) -> None:
    """A cached video gets a solid inline-SVG badge, a completed one missing from the cache
    an outlined one, a failed one nothing: never an <img> (at an mp4 or at nothing), never
    the video's bytes, never a glyph that needs an emoji font."""
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as client:
        tasks = []
        for text in ("a paper boat", "waves at dusk", "[fail] a storm"):
            task = await client.videos.create(
                "seedance_1_5_pro_480p", content=[{"type": "text", "text": text}], duration=4
            )
            with contextlib.suppress(Exception):
                await task.wait()
            tasks.append(task)
        cached, evicted, failed = tasks
        assert (cached.status, evicted.status, failed.status) == ("completed",) * 2 + ("failed",)
        video = Path(str(cached.local_path))
        assert video.suffix == ".mp4"
        size = len(await cached.read_bytes())
        await asyncio.to_thread(Path(str(evicted.local_path)).unlink)  # the cache was cleared
        panel = HistoryPanel(session=Session(client=client))

    assert panel.errors == []
    rows = {r["id"]: r for r in panel.rows}
    assert (rows[cached.id]["media"], rows[cached.id]["cached"]) == ("video", True)
    assert (rows[evicted.id]["media"], rows[evicted.id]["cached"]) == ("video", False)
    assert rows[failed.id]["media"] == ""
    assert all(r["thumb"] == "" for r in rows.values())  # no <img> at an mp4
    assert "data:video" not in str(panel.rows)
    assert len(str(panel.rows)) < 8000 < size  # the video itself is not embedded


def test_unknown_family_goes_by_the_cached_files_suffix(tmp_path: Path) -> None:
    home = tmp_path / "home"
    panel = HistoryPanel(session=Session(mode_text="test"), home=home)
    clip = home / "media" / "ab" / "t1.mp4"
    clip.parent.mkdir(parents=True)
    clip.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    row: dict[Hashable, Any] = {
        "kind": "task",
        "family": "newfamily",
        "local_file": str(clip),
        "status": "completed",
    }
    assert panel._preview(row) == {"media": "video", "thumb": "", "cached": True}
    outside = tmp_path / "t1.mp4"  # the same file outside the media folder: never used
    outside.write_bytes(clip.read_bytes())
    uncached = {"media": "video", "thumb": "", "cached": False}
    assert panel._preview({**row, "local_file": str(outside)}) == uncached
    none = {"media": "", "thumb": "", "cached": False}
    assert panel._preview({**row, "local_file": str(tmp_path / "t1.txt")}) == none
    assert panel._preview({**row, "kind": "chat"}) == none


def test_front_end_files_use_the_contract_hooks() -> None:
    esm = str(HistoryPanel._esm)
    for hook in (
        '"data-row-id"',
        'action: "prev"',
        'action: "next"',
        'name: "scope"',
        'action: "export"',
        'tabindex: "0", role: "region"',
    ):
        assert hook in esm, hook
    assert esm.index("function mgEl(") < esm.index("function render(")
