"""HistoryPanel: rows with thumbnails, filters, open-in-form and export, from a real ledger
filled by the client against the emulator."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
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
    assert len(thumb) < 8000  # a small JPEG, not the full image
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
    assert panel.picker.value == panel.frame.iloc[0]["task_id"]  # newest row preselected
    panel.picker.value = image_id
    panel.open_button.click()
    assert (
        panel.errors
        == ["RuntimeError: no form to open it in: use Studio(), or register on_open(...)"]
        or len(panel.errors) == 0
    )
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
