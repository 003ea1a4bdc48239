"""AssetPanel (one anywidget) driven from Python against the emulator: the form's values and
problems, upload by URL and by file (hosted by the emulator in demo mode), review to Active or
Failed with a reason, thumbnails, copy of ``asset://id``, delete with confirmation."""

from __future__ import annotations

import asyncio
import base64
import io
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from PIL import Image

import mediagen_nb
from mediagen_nb.client import AssetBatch, AssetError, AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.types import AssetFailure, RequestValidationError
from mediagen_nb.widgets._asset_form import NEEDS_PUBLIC_URL, REVIEW_FAILED
from mediagen_nb.widgets._asset_panel import AssetPanel
from mediagen_nb.widgets._session import DEMO_TEXT, Session

IMAGE = "https://example.com/people/alice.png"


pytestmark = pytest.mark.emulator(speed=60.0, seed=3)


@pytest.fixture
async def client(emulator: EmulatorHandle) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        api_key=emulator.api_key,
        base_url=emulator.base_url,
        text_base_url=emulator.text_base_url,
    ) as client:
        yield client


@pytest.fixture
def session(client: AsyncClient) -> Session:
    """A session on the test emulator that counts as demo mode (files can be uploaded)."""
    return Session(client=client, mode_text=DEMO_TEXT)


def _png(size: tuple[int, int] = (640, 480)) -> bytes:
    """A noisy picture (a flat one would compress below its thumbnail)."""
    noise = random.Random(7).randbytes(size[0] * size[1] * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", size, noise).save(out, "PNG")
    return out.getvalue()


async def _settle(panel: AssetPanel) -> None:
    await asyncio.wait_for(panel.join(), timeout=30)


def test_form_is_quiet_then_names_the_field() -> None:
    panel = AssetPanel(session=Session(mode_text=DEMO_TEXT))
    assert not panel.can_submit
    assert panel.hint == "Choose a file or paste a URL to upload"
    assert panel.problems == [{"field": "URL", "message": "enter a URL (or choose a file)"}]
    assert panel.notice == ""
    panel.set_values(url="not a url")
    assert not panel.can_submit
    assert [p["field"] for p in panel.problems] == ["URL"]
    assert panel.hint.startswith("URL: ")
    with pytest.raises(RequestValidationError):
        panel.submit()
    panel.set_values(url="https://example.com/a.png\nhttps://example.com/b.png", name="hero")
    assert panel.can_submit
    assert panel.problems == []
    assert [b["name"] for _p, b in panel.bodies()] == ["hero (1)", "hero (2)"]
    panel.set_values(library="sd2", asset_type="Audio", url="https://example.com/voice.mp3")
    assert panel.bodies() == [
        (
            "/asset/sd2Manxue/assetUpload",
            {"imageUrls": [], "videoUrls": [], "audioUrls": ["https://example.com/voice.mp3"]},
        )
    ]
    panel.set_values(url="https://example.com/a.mp3\nnot a url")
    assert [p["field"] for p in panel.problems] == ["URL line 2"]
    panel.set_values(url="not a url")
    assert [p["field"] for p in panel.problems] == ["URL"]
    panel.set_values(asset_type="Document")  # seedance 2.0 only
    assert panel.problems == [
        {"field": "Type", "message": "must be one of Image, Video, Audio in this library"}
    ]


def test_a_click_that_cannot_work_becomes_the_notice_not_a_traceback() -> None:
    panel = AssetPanel(session=Session(mode_text=DEMO_TEXT))
    panel.handle_action({"action": "upload"})
    assert panel.notice.startswith("RequestValidationError: invalid request: URL: enter a URL")
    panel.handle_action({"action": "dismiss"})
    assert panel.notice == ""
    panel.handle_action({"action": "delete", "id": "asset-nope"})
    assert "no asset 'asset-nope' in the list" in panel.notice


def test_with_a_real_key_a_file_needs_a_public_url() -> None:
    panel = AssetPanel(session=Session(mode_text="connected to api.example.com"))
    assert not panel.demo
    assert panel.hosting_note == NEEDS_PUBLIC_URL
    assert panel.hint == "Paste a public URL to upload"
    panel.handle_action(
        {"action": "upload", "name": "a.png", "type": "image/png", "file": _png((8, 8))}
    )
    assert "Upload by file works in demo mode only" in panel.notice
    assert panel.rows == []


async def test_url_review_reaches_active_and_is_offered(session: Session) -> None:
    panel = AssetPanel(session=session)
    seen: list[tuple[str, ...]] = []
    session.on_assets_change(lambda s: seen.append(tuple(a.uri for a in s.active_assets)))
    panel.set_values(asset_type="Image", name="alice", url=IMAGE)
    panel.handle_action({"action": "upload"})
    assert panel.values["url"] == ""  # the form is emptied at once
    await _settle(panel)
    assert panel.errors == []
    (row,) = panel.assets
    assert (row.status, row.name, row.reason) == ("Active", "alice", "")
    assert row.asset_id.startswith("asset-")
    assert row.thumb == ""  # example.com cannot be fetched here: no thumbnail, no error
    (shown,) = panel.rows
    assert shown["status"] == "Active"
    assert shown["uri"] == f"asset://{row.asset_id}"
    assert shown["delete_label"] == "Delete"
    assert [a.uri for a in session.active_assets] == [f"asset://{row.asset_id}"]
    assert seen[-1] == (f"asset://{row.asset_id}",)
    panel.handle_action({"action": "copied", "id": row.asset_id})
    assert panel.copied == f"asset://{row.asset_id}"


async def test_file_upload_is_hosted_by_the_emulator_with_a_thumbnail(
    session: Session, client: AsyncClient, emulator: EmulatorHandle
) -> None:
    panel = AssetPanel(session=session)
    data = _png()
    # the name typed just before the click comes with the action: the trait may lag behind
    shown = {"name": "sky", "library": panel.values["library"], "bogus": "dropped"}
    upload = {"action": "upload", "name": "sky.png", "type": "image/png", "values": shown}
    panel.handle_action({**upload, "file": data})
    await _settle(panel)
    assert panel.errors == []
    (row,) = panel.assets
    assert row.url.startswith(f"{emulator.base_url}/media/uploads/")
    assert row.url.endswith("/sky.png")
    assert (row.status, row.name, row.asset_type) == ("Active", "sky", "Image")
    assert await client.assets.fetch_media(row.url, max_bytes=10**6) == data
    assert row.thumb.startswith("data:image/webp;base64,")
    thumb = Image.open(io.BytesIO(base64.b64decode(row.thumb.split(",", 1)[1])))
    assert max(thumb.size) == 96
    assert len(row.thumb) < 40_000 < len(data)


async def test_a_url_image_on_the_service_gets_its_thumbnail_from_the_kernel(
    session: Session, client: AsyncClient
) -> None:
    url = await client.assets.host_file(_png((50, 200)), name="tall.png", content_type="image/png")
    panel = AssetPanel(session=session)
    panel.set_values(url=url)
    panel.submit()
    await _settle(panel)
    (row,) = panel.assets
    thumb = Image.open(io.BytesIO(base64.b64decode(row.thumb.split(",", 1)[1])))
    assert thumb.size == (24, 96)


def test_a_file_of_the_wrong_kind_or_size_is_refused_before_sending() -> None:
    panel = AssetPanel(session=Session(mode_text=DEMO_TEXT))
    with pytest.raises(RequestValidationError, match=r"File: must be image, video, audio"):
        panel.upload_file(b"hello", "notes.txt", "text/plain")
    panel.set_values(library="sd2")
    with pytest.raises(RequestValidationError, match=r"\(application/pdf is not\)"):
        panel.upload_file(b"%PDF-1.4", "a.pdf", "application/pdf")
    with pytest.raises(RequestValidationError, match="at most 8 MiB"):
        panel.upload_file(b"\0" * (8 * 1024 * 1024 + 1), "big.png", "image/png")
    assert panel.rows == []


async def test_sd2_batch_and_a_failed_review_says_why(session: Session) -> None:
    panel = AssetPanel(session=session)
    panel.set_values(library="sd2", url=f"{IMAGE}\nhttps://example.com/reject-me.png")
    panel.submit()
    await _settle(panel)
    statuses = {row.url: (row.status, row.reason) for row in panel.assets}
    demo_rule = "In demo mode the emulator fails every URL containing “reject” or “nsfw”."
    assert statuses == {
        IMAGE: ("Active", ""),
        "https://example.com/reject-me.png": ("Failed", f"{REVIEW_FAILED} {demo_rule}"),
    }
    assert [r["status"] for r in panel.rows] == ["Failed", "Active"]  # newest first
    assert [r["delete_label"] for r in panel.rows] == ["Forget", "Forget"]
    assert [a.asset_type for a in session.active_assets] == ["Image"]


async def test_a_refused_upload_is_a_failed_row_with_the_services_reason(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the service refuses after the form's own checks (its own reasons: an SD2
    ``failedItems`` entry, a seedance 2.0 envelope with a non-zero code) becomes a Failed row."""
    assets = session.client.assets

    async def sd2_upload(**lists: list[str]) -> AssetBatch:
        (url,) = lists["image_urls"]
        return AssetBatch(
            items=[], failed_items=[AssetFailure(url=url, assetType="Image", reason="too small")]
        )

    async def upload(url: str, asset_type: str, *, name: str | None = None) -> None:
        raise AssetError("1003", "the file could not be fetched")

    monkeypatch.setattr(assets, "sd2_upload", sd2_upload)
    monkeypatch.setattr(assets, "upload", upload)
    panel = AssetPanel(session=session)
    panel.set_values(library="sd2", url="https://example.com/tiny.png")
    panel.submit()
    await _settle(panel)
    panel.set_values(library="seedance2", url="https://example.com/gone.png")
    panel.submit()
    await _settle(panel)
    assert panel.errors == []
    assert [(r.url, r.status, r.reason, r.refused) for r in panel.assets] == [
        ("https://example.com/tiny.png", "Failed", "Upload refused: too small", True),
        (
            "https://example.com/gone.png",
            "Failed",
            "Upload refused: the file could not be fetched",
            True,
        ),
    ]
    assert panel.status_text == "The library refused an upload; the reason is in the list."
    assert [r["uri"] for r in panel.rows] == ["", ""]
    assert [r["delete_label"] for r in panel.rows] == ["Remove", "Remove"]
    panel.handle_action({"action": "copied", "id": panel.assets[0].asset_id})
    assert "no asset id to copy" in panel.notice
    panel.handle_action({"action": "delete", "id": panel.assets[0].asset_id})
    panel.handle_action({"action": "confirm-delete", "id": panel.assets[0].asset_id})
    await _settle(panel)
    assert [r.url for r in panel.assets] == ["https://example.com/gone.png"]
    assert panel.status_text == "Removed the refused upload from the list."


async def test_delete_asks_first_then_deletes(session: Session) -> None:
    panel = AssetPanel(session=session)
    panel.set_values(url=IMAGE)
    panel.submit()
    await _settle(panel)
    (row,) = panel.assets
    panel.handle_action({"action": "delete", "id": row.asset_id})
    (shown,) = panel.rows
    assert shown["confirming"] is True
    assert shown["delete_question"].startswith("Delete for good?")
    panel.handle_action({"action": "cancel-delete", "id": row.asset_id})
    assert panel.rows[0]["confirming"] is False
    assert len(panel.assets) == 1
    panel.handle_action({"action": "delete", "id": row.asset_id})
    panel.handle_action({"action": "confirm-delete", "id": row.asset_id})
    await _settle(panel)
    assert panel.errors == []
    assert panel.assets == []
    assert panel.rows == []
    assert panel.status_text == f"Deleted {row.asset_id}: its asset:// id no longer works."
    assert session.active_assets == ()
    assert session.client.assets.known_status(row.asset_id) == "deleted"
    frame = mediagen_nb.history(kind="asset")
    assert frame[frame["task_id"] == row.asset_id].iloc[0]["status"] == "deleted"


async def test_refresh_lists_assets_from_history(session: Session) -> None:
    first = AssetPanel(session=session)
    first.set_values(url=IMAGE)
    first.submit()
    await _settle(first)
    (row,) = first.assets
    second = AssetPanel(session=session)  # e.g. after a kernel restart
    second.handle_action({"action": "refresh"})
    await _settle(second)
    listed: list[Any] = [(r.asset_id, r.status, r.library) for r in second.assets]
    assert listed == [(row.asset_id, "Active", "seedance2")]
    assert "asset://" in second.text_summary()


def test_front_end_files_use_the_contract_hooks() -> None:
    esm = str(AssetPanel._esm)
    for hook in (
        'name: "asset-file"',
        'name: "asset-url"',
        'action: "upload"',
        '"copy-id"',
        'action: "delete"',
        'action: "confirm-delete"',
        '"mg-asset"',
    ):
        assert hook in esm, hook
    assert esm.index("function mgEl(") < esm.index("function render(")  # kit first
    assert "#" not in str(AssetPanel._css).split("assets.css")[1].replace("#t=", "")


def test_copy_button_hears_the_front_end() -> None:
    from mediagen_nb.widgets._copy import CopyButton

    button = CopyButton("asset://asset-1-abc")
    heard: list[str] = []
    button.on_copy(lambda b: heard.append(b.text))
    # what the comm delivers when copy.js calls model.send({event: "copied"})
    button._handle_msg(
        {"content": {"data": {"method": "custom", "content": {"event": "copied"}}}, "buffers": []}
    )
    assert heard == ["asset://asset-1-abc"]
