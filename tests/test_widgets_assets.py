"""AssetPanel driven from Python against the emulator: review reaches Active (or Failed),
Active assets reach the session, delete needs confirmation, copy gives ``asset://id``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

import mediagen_nb
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle, start_emulator
from mediagen_nb.types import RequestValidationError
from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._session import Session

IMAGE = "https://example.com/people/alice.png"


@pytest.fixture
def emulator() -> Iterator[EmulatorHandle]:
    handle = start_emulator(speed=60.0, seed=3)
    yield handle
    handle.stop()


@pytest.fixture
async def session(emulator: EmulatorHandle) -> AsyncIterator[Session]:
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as client:
        yield Session(client=client)


async def _settle(panel: AssetPanel) -> None:
    await asyncio.wait_for(panel.join(), timeout=30)


def test_form_validates_each_library() -> None:
    panel = AssetPanel(session=Session(mode_text="test"))
    assert panel.submit_button.disabled
    assert "enter at least one URL" in panel.problem_area.value
    panel.urls.value = "not a url\nhttps://example.com/a.png"
    assert panel.submit_button.disabled
    assert "line 1: url" in panel.problem_area.value
    with pytest.raises(RequestValidationError):
        panel.submit()
    panel.urls.value = "https://example.com/a.png\nhttps://example.com/b.png"
    panel.name.value = "hero"
    assert not panel.submit_button.disabled
    assert [b["name"] for _p, b in panel.bodies()] == ["hero (1)", "hero (2)"]
    panel.library.value = "sd2"
    assert panel.seedance_box.layout.display == "none"
    assert panel.submit_button.disabled  # sd2 lists are empty
    panel.audio_urls.value = "https://example.com/voice.mp3"
    assert not panel.submit_button.disabled
    assert panel.bodies() == [
        (
            "/asset/sd2Manxue/assetUpload",
            {"imageUrls": [], "videoUrls": [], "audioUrls": ["https://example.com/voice.mp3"]},
        )
    ]


async def test_seedance2_review_reaches_active_and_is_offered(session: Session) -> None:
    panel = AssetPanel(session=session)
    seen: list[tuple[str, ...]] = []
    session.on_assets_change(lambda s: seen.append(tuple(a.uri for a in s.active_assets)))
    panel.asset_type.value = "Image"
    panel.name.value = "alice"
    panel.urls.value = IMAGE
    panel.submit()
    assert panel.urls.value == ""  # the form is emptied at once
    await _settle(panel)
    assert panel.errors == []
    (row,) = panel.assets
    assert row.status == "Active"
    assert row.asset_id.startswith("asset-")
    assert "data-status='Active'" in panel._views[row.asset_id].label.value
    assert [a.uri for a in session.active_assets] == [f"asset://{row.asset_id}"]
    assert session.active_assets[0].name == "alice"
    assert seen[-1] == (f"asset://{row.asset_id}",)
    assert panel.copy_uri(row.asset_id) == f"asset://{row.asset_id}"
    assert panel.clipboard.value == f"asset://{row.asset_id}"


async def test_sd2_batch_review_and_failed_review(session: Session) -> None:
    panel = AssetPanel(session=session)
    panel.library.value = "sd2"
    panel.image_urls.value = f"{IMAGE}\nhttps://example.com/reject-me.png"
    panel.video_urls.value = "https://example.com/clip.mp4"
    panel.submit()
    await _settle(panel)
    statuses = {row.url: row.status for row in panel.assets}
    assert statuses == {
        IMAGE: "Active",
        "https://example.com/reject-me.png": "Failed",
        "https://example.com/clip.mp4": "Active",
    }
    assert {a.asset_type for a in session.active_assets} == {"Image", "Video"}
    assert len(session.active_assets) == 2


async def test_delete_asks_first_then_deletes(session: Session) -> None:
    panel = AssetPanel(session=session)
    panel.urls.value = IMAGE
    panel.submit()
    await _settle(panel)
    (row,) = panel.assets
    view = panel._views[row.asset_id]
    view.delete.click()
    assert view.confirm.layout.display == ""
    assert "Delete for good" in view.confirm_text.value
    view.no.click()
    assert view.confirm.layout.display == "none"
    assert panel.assets == [row]
    view.delete.click()
    view.yes.click()
    await _settle(panel)
    assert panel.errors == []
    assert panel.assets == []
    assert panel.rows_box.children == ()
    assert session.active_assets == ()
    assert session.client.assets.known_status(row.asset_id) == "deleted"
    frame = mediagen_nb.history(kind="asset")
    assert frame[frame["task_id"] == row.asset_id].iloc[0]["status"] == "deleted"


async def test_refresh_lists_assets_from_history(session: Session) -> None:
    first = AssetPanel(session=session)
    first.urls.value = IMAGE
    first.submit()
    await _settle(first)
    (row,) = first.assets
    second = AssetPanel(session=session)  # e.g. after a kernel restart
    second.refresh()
    await _settle(second)
    listed: list[Any] = [(r.asset_id, r.status, r.library) for r in second.assets]
    assert listed == [(row.asset_id, "Active", "seedance2")]
    assert "asset://" in second.text_summary()


def test_copy_button_hears_the_front_end() -> None:
    from mediagen_nb.widgets import CopyButton

    button = CopyButton("asset://asset-1-abc")
    heard: list[str] = []
    button.on_copy(lambda b: heard.append(b.text))
    # what the comm delivers when copy.js calls model.send({event: "copied"})
    button._handle_msg(
        {"content": {"data": {"method": "custom", "content": {"event": "copied"}}}, "buffers": []}
    )
    assert heard == ["asset://asset-1-abc"]
