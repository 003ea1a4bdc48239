"""HistoryPanel: rows with thumbnails, filters, open-in-form and export, from a real ledger
filled by the client against the emulator."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle, start_emulator
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session


@pytest.fixture
def emulator() -> Iterator[EmulatorHandle]:
    handle = start_emulator(speed=60.0, seed=5)
    yield handle
    handle.stop()


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


def test_empty_history_says_so() -> None:
    panel = HistoryPanel(session=Session(mode_text="test"))
    assert panel.errors == []
    assert "No history yet" in panel.table.value
    assert panel.open_button.disabled


async def test_rows_thumbnails_and_filters(filled: dict[str, Any]) -> None:
    panel = HistoryPanel(session=filled["session"])
    assert panel.errors == []
    assert panel.frame is not None
    assert len(panel.frame) == 3
    table = panel.table.value
    image_id = filled["image"].id
    assert f"data-task-id='{image_id}'" in table
    assert table.count("<img class='mediagen-thumb'") == 1
    thumb = table.split("base64,")[1].split("'")[0]
    assert len(thumb) < 8000  # a small WebP thumbnail, not the full image
    assert "<script" not in table

    panel.kind.value = "chat"
    assert list(panel.frame["kind"]) == ["chat"]
    panel.kind.value = ""
    assert ("failed", "failed") in panel.status.options
    panel.status.value = "failed"
    assert list(panel.frame["task_id"]) == [filled["video"].id]
    assert "data-status='failed'" in panel.table.value
    panel.status.value = ""
    panel.model.value = "nano-banana"
    assert list(panel.frame["task_id"]) == [image_id]
    panel.model.value = ""
    panel.text.value = "HELLO hist"
    assert list(panel.frame["kind"]) == ["chat"]
    assert "1 of 3 rows" in panel.count.value


async def test_open_in_form_hands_over_the_request(filled: dict[str, Any]) -> None:
    panel = HistoryPanel(session=filled["session"])
    image_id = filled["image"].id
    with pytest.raises(RuntimeError, match="no form"):
        panel.open_in_form(image_id)
    opened: list[tuple[str, str | None, dict[str, Any]]] = []
    panel.on_open(lambda kind, fam, body: opened.append((kind, fam, body)))
    assert panel.frame is not None
    assert panel.picker.value == panel.frame.iloc[0]["task_id"]  # newest row preselected
    panel.picker.value = image_id
    panel.open_button.click()
    assert panel.errors == []  # the registered callback took it
    assert opened == [
        ("image", "banana", {"model": "nano-banana", "prompt": "a red fox", "size": "16:9"})
    ]
    chat_id = panel.frame[panel.frame["kind"] == "chat"].iloc[0]["task_id"]
    kind, fam, body = panel.open_in_form(chat_id)
    assert (kind, fam) == ("chat", None)
    assert body["messages"][-1]["content"] == "hello history"


async def test_export_csv_and_parquet(filled: dict[str, Any], tmp_path: Path) -> None:
    panel = HistoryPanel(session=filled["session"])
    panel.kind.value = "task"
    csv = panel.export(tmp_path / "out" / "tasks.csv")
    assert csv.exists()
    assert "wrote 2 rows" in panel.export_status.value
    assert sorted(pd.read_csv(csv)["task_id"]) == sorted([filled["image"].id, filled["video"].id])
    panel.export_path.value = str(tmp_path / "all.parquet")
    panel.kind.value = ""
    panel.export_button.click()
    assert panel.errors == []
    assert len(pd.read_parquet(tmp_path / "all.parquet")) == 3
    panel.export_path.value = str(tmp_path / "bad.txt")
    panel.export_button.click()
    assert "suffix" in panel.errors[-1]


def _row_html(table: str, task_id: str) -> str:
    start = table.index(f"<tr data-task-id='{task_id}'")
    return table[start : table.index("</tr>", start)]


def _preview_cell(row: str) -> str:
    start = row.index("<td>") + len("<td>")
    return row[start : row.index("</td>", start)]


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
    table = panel.table.value
    solid = _row_html(table, cached.id)
    outlined = _row_html(table, evicted.id)
    for row in (solid, outlined):
        preview = _preview_cell(row)
        assert preview.startswith("<svg class='mediagen-thumb mediagen-thumb-video'")
        assert preview.isascii()  # no emoji: chromium without an emoji font drew a box
        assert "<img" not in row
        assert "src=" not in row
        assert "href=" not in preview
        assert len(preview) < 1000
    assert "data-cached='true'" in solid
    assert f"video: {video.name}" in solid
    assert "data-cached='false'" in outlined
    assert "not in the local media cache" in outlined
    assert _preview_cell(_row_html(table, failed.id)) == ""
    assert "data:video" not in table
    assert len(table) < 8000 < size  # the video itself is not embedded


def test_unknown_family_goes_by_the_cached_files_suffix(tmp_path: Path) -> None:
    panel = HistoryPanel(session=Session(mode_text="test"))
    clip = tmp_path / "t1.mp4"
    clip.write_bytes(b"\x00\x00\x00\x18ftypmp42")
    row: dict[Hashable, Any] = {
        "kind": "task",
        "family": "newfamily",
        "local_file": str(clip),
        "status": "completed",
    }
    assert "mediagen-thumb-video" in panel._preview(row)
    assert panel._preview({**row, "local_file": str(tmp_path / "t1.txt")}) == ""
    assert panel._preview({**row, "kind": "chat"}) == ""
