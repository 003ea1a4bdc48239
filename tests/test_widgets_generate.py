"""Image and video panels against the emulator (ASGI transport): gallery cards reach completed
with preview bytes, several run at once, Cancel and Remove work mid-run, failures say why and
offer Run again, the ledger has every state a card shows, and errors land in the panel's
notice (never a traceback), all driven headlessly through traits and actions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from io import BytesIO
from typing import Any

import httpx2
import ipywidgets as widgets
import pytest
from PIL import Image

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import create_app
from mediagen_nb.widgets._base import Throttle
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._session import DEMO_TEXT, Session
from tests._support import KEY


def emulator_client(speed: float) -> AsyncClient:
    app = create_app(api_key=KEY, speed=speed, seed=1)
    return AsyncClient(
        api_key=KEY,
        base_url="http://emulator.test/api",
        text_base_url="http://emulator.test/gateway",
        transport=httpx2.ASGITransport(app=app),
    )


@pytest.fixture
async def fast() -> AsyncIterator[Session]:
    client = emulator_client(speed=2000.0)
    yield Session(client=client)
    await client.aclose()


@pytest.fixture
async def slow() -> AsyncIterator[Session]:
    client = emulator_client(speed=5.0)  # a sora video then takes about a minute
    yield Session(client=client)
    await client.aclose()


async def test_image_panel_completes_with_thumbnail(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana-pro")
    assert not panel.can_generate
    assert panel.hint == "Add a prompt to generate"
    assert panel.visible_errors == []  # quiet until touched
    panel.set(prompt="a red fox in snow")
    assert panel.can_generate
    assert panel.hint == ""
    job = panel.generate()
    assert job is not None
    card = await job
    assert isinstance(card, Result)
    assert card.status == "completed"
    assert card.task_id
    assert panel.cards == [card]
    assert [r["id"] for r in panel.results] == [card.id]
    assert panel.results[0]["status"] == "completed"
    assert panel.results[0]["title"] == "Nano Banana Pro"
    thumb = Image.open(BytesIO(card.preview_bytes))
    assert thumb.format == "WEBP"
    assert max(thumb.size) <= 512
    assert panel.media[card.id]["data"] == card.thumbnail
    assert panel.media[card.id]["mime"] == "image/webp"
    sent: list[tuple[dict[str, Any], list[bytes] | None]] = []
    panel.send = lambda content, buffers=None: sent.append((content, buffers))
    panel.handle_action({"action": "full", "id": card.id, "purpose": "save"})
    assert sent[0][0] == {"kind": "full", "id": card.id, "mime": "image/png", "purpose": "save"}
    assert Image.open(BytesIO(sent[0][1][0])).format == "PNG"
    assert card.local_path.endswith(".png")
    assert card.file_name.endswith(".png")
    assert panel.save_note == ""
    panel.handle_action({"action": "saved", "id": card.id})  # the browser downloaded it
    assert panel.save_note == (
        f"Saved: downloaded by your browser as {card.file_name}"
        f" (the original stays in {card.local_path})"
    )
    assert panel.errors == []
    panel.handle_action({"action": "saved", "id": "r-none"})
    assert "r-none" in panel.notice  # an unknown card is said in the panel, not ignored


async def _eventually(check: object, rounds: int = 200) -> bool:
    for _ in range(rounds):
        if callable(check) and check():
            return True
        await asyncio.sleep(0.01)
    return False


async def test_ledger_has_every_state_a_card_shows(fast: Session) -> None:
    import mediagen_nb

    panel = VideoPanel(session=fast, model="seedance_1_5_pro_480p")
    panel.set(prompt="tide")
    seen: list[tuple[str, str]] = []

    def watch(change: dict[str, Any]) -> None:
        frame = mediagen_nb.history()
        for shown in change["new"]:
            row = frame[frame["task_id"] == shown["task_id"]]
            seen.append((shown["status"], str(row["status"].iloc[0]) if len(row) else "missing"))

    panel.observe(watch, names="results")
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert seen[-1] == ("completed", "completed")  # earlier states may fold into one batch
    assert all(shown == recorded for shown, recorded in seen), seen


@pytest.mark.parametrize(
    ("model", "prompt"),
    [
        ("seedance_1_5_pro_480p", "waves"),
        ("neutralSora2Plus", "a drone"),
        ("starvideos_o3", "a fox"),
        ("viduq3-turbo", "rain"),
    ],
)
async def test_video_panel_completes_with_mp4(fast: Session, model: str, prompt: str) -> None:
    panel = VideoPanel(session=fast, model=model)
    panel.set(prompt=prompt)
    assert panel.valid, panel.form_problems
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed", card.error
    assert card.kind == "video"
    assert card.preview_bytes[4:8] == b"ftyp"
    assert panel.media[card.id]["mime"] == "video/mp4"
    assert card.eta[1] > 0
    assert panel.results[0]["eta"][1] > 0


async def test_unnamed_family_goes_to_its_endpoint(fast: Session) -> None:
    panel = VideoPanel(session=fast)
    panel.select("veo-3-preview", "veo")
    assert panel.hint == "Add a prompt to generate"
    panel.set(prompt="a city at night")
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed", card.error
    assert card.title == "Veo veo-3-preview"
    assert panel.suggestions == {"veo": ["veo-3-preview"]}  # offered next time


async def test_several_tasks_at_once(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    panel.set(prompt="one")
    jobs = [panel.generate() for _ in range(3)]
    assert all(job is not None for job in jobs)
    assert len(panel.running) == 3  # the button returned at once; all run in the background
    cards = await asyncio.gather(*[j for j in jobs if j is not None])
    assert {c.status for c in cards if c is not None} == {"completed"}
    assert len({c.task_id for c in cards if c is not None}) == 3
    assert len(panel.results) == 3
    assert len(panel.media) == 3


async def test_gallery_is_newest_first_and_cards_rerun_and_remove(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    for prompt in ("first", "second"):
        panel.set(prompt=prompt)
        job = panel.generate()
        assert job is not None
        await job
    assert [r.prompt for r in panel.cards] == ["second", "first"]
    first = panel.cards[1]
    panel.handle_action({"action": "rerun", "id": first.id})
    await panel.join()
    assert [r.prompt for r in panel.cards] == ["first", "second", "first"]
    assert panel.cards[0].body == first.body
    panel.handle_action({"action": "remove", "id": first.id})
    assert [r["prompt"] for r in panel.results] == ["first", "second"]
    assert first.id not in panel.media
    assert panel.last_requests["banana"]["prompt"] == "first"
    assert panel.errors == []


async def test_cancel_while_running(slow: Session) -> None:
    panel = VideoPanel(session=slow, model="neutralSora2Pro")
    panel.set(prompt="a long take")
    job = panel.generate()
    assert job is not None
    assert await _eventually(lambda: bool(panel.cards))
    card = panel.cards[0]
    assert card.status in ("queued", "processing")
    panel.handle_action({"action": "cancel", "id": card.id})
    done = await asyncio.wait_for(job, timeout=30)
    assert done is card
    assert card.status == "cancelled"
    assert panel.results[0]["status"] == "cancelled"
    import mediagen_nb

    frame = mediagen_nb.history()
    assert list(frame[frame["task_id"] == card.task_id]["status"]) == ["cancelled"]


async def test_failure_says_why(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    panel.set(prompt="something [fail]")
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "failed"
    assert card.error
    assert panel.results[0]["error"] == card.error
    assert card.preview_bytes == b""
    assert card.id not in panel.media
    assert "failed" in panel.text_summary()


async def test_invalid_form_sends_nothing() -> None:
    calls: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(request)
        return httpx2.Response(500)

    client = AsyncClient(
        api_key=KEY,
        base_url="http://x.test/api",
        text_base_url="http://x.test/gateway",
        transport=httpx2.MockTransport(handler),
        max_retries=0,
    )
    panel = ImagePanel(session=Session(client=client), model="gpt-image-2")
    assert panel.generate() is None
    assert panel.attempted  # now the errors show next to their fields
    assert panel.visible_errors == ["Prompt: must not be empty"]
    assert panel.errors == []  # not an error of the panel: a hint and field messages
    panel.set(prompt="ok")
    job = panel.generate()
    assert job is not None
    await panel.join()
    assert len(calls) == 1  # the server error reached the panel's notice, not only the log
    assert panel.errors[-1].startswith("OpenAI image (GPT Image 2) request: ")
    assert panel.notice == panel.errors[-1]
    panel.handle_action({"action": "dismiss"})
    assert panel.notice == ""
    assert panel.cards == []
    await client.aclose()


async def test_unknown_action_becomes_a_notice_not_a_traceback(fast: Session) -> None:
    panel = ImagePanel(session=fast)
    panel._on_custom_msg(panel, {"action": "rerun", "id": "nope"}, [])
    assert panel.notice == "KeyError: \"no result 'nope' in the gallery\""
    panel._on_custom_msg(panel, {"action": "fly"}, [])
    assert panel.notice == "unknown action 'fly'"


async def test_text_fallback_is_readable(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    bundle = panel._repr_mimebundle_()
    assert bundle is not None
    data, _meta = bundle
    text = data["text/plain"]
    assert "Image panel" in text
    assert "Generate disabled: Add a prompt to generate" in text
    assert KEY not in text


async def test_throttle_coalesces_updates() -> None:
    panel = widgets.Label()  # any widget: the throttle batches inside its hold_sync()
    applied: list[int] = []
    throttle = Throttle(panel, lambda: applied.append(1), rate=4.0)
    for _ in range(50):
        throttle.request()
    assert len(applied) == 1  # the first at once, the rest folded into one deferred apply
    await throttle.drain()
    assert len(applied) == 2


async def test_gallery_updates_are_throttled(fast: Session) -> None:
    panel = ImagePanel(session=fast)
    result = Result(kind="image", family="banana", family_title="Nano Banana", body={})
    panel._add(result, type("Done", (), {"done": True})())
    assert panel.updates_sent == 1  # a new card is sent at once
    for elapsed in range(1, 40):
        result.elapsed = float(elapsed)
        panel._throttle.request()
    assert panel.updates_sent == 1  # within 1/4 s of the last batch: folded, deferred
    await panel._throttle.drain()
    assert panel.updates_sent == 2
    assert panel.results[0]["elapsed"] == 39.0


def test_session_modes_never_show_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    session = Session()
    assert session.mode_text == DEMO_TEXT
    assert session.demo
    seen: list[str] = []
    session.on_change(lambda s: seen.append(s.mode_text))
    session.set_api_key("sk-very-secret-key", base_url="https://api.example.com/api")
    assert session.mode_text == "connected to api.example.com"
    assert "sk-very-secret-key" not in repr(session)
    assert seen == ["connected to api.example.com"]
    session.set_api_key("")
    assert session.mode_text == DEMO_TEXT
    monkeypatch.setenv("MEDIAGEN_API_KEY", "env-key-123456")
    monkeypatch.setenv("MEDIAGEN_BASE_URL", "https://svc.example.org/api")
    assert Session().mode_text == "connected to svc.example.org"


async def test_session_makes_a_client_per_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_API_KEY", "env-key-123456")
    monkeypatch.setenv("MEDIAGEN_BASE_URL", "https://svc.example.org/api")
    monkeypatch.setenv("MEDIAGEN_TEXT_BASE_URL", "https://svc.example.org/gateway")
    session = Session()
    client = session.client
    assert session.client is client
    assert client.base_url == "https://svc.example.org/api"
    await session.aclose()


def _png(width: int, height: int) -> bytes:
    out = BytesIO()
    Image.new("RGBA", (width, height), (200, 40, 40, 128)).save(out, "PNG")
    return out.getvalue()


def test_previews_stay_bounded() -> None:
    from mediagen_nb.widgets._preview import full_image, sniff_mime, thumbnail, video_preview

    big = _png(3000, 1000)
    thumb, mime = thumbnail(big)
    assert mime == "image/webp"
    assert Image.open(BytesIO(thumb)).size == (512, 171)
    assert Image.open(BytesIO(thumb)).mode == "RGBA"  # the source's transparency is kept
    full, full_mime = full_image(big)
    assert full_mime == "image/png"
    assert max(Image.open(BytesIO(full)).size) == 2048
    small = _png(800, 600)
    assert full_image(small) == (small, "image/png")  # already bounded: sent as it is
    mp4 = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100
    assert sniff_mime(mp4) == "video/mp4"
    assert video_preview(mp4) == (mp4, "video/mp4", "")
    data, _mime, note = video_preview(mp4, cap=50)
    assert data == b""
    assert "not sent to the browser" in note


def test_video_card_says_when_the_video_is_too_big(monkeypatch: pytest.MonkeyPatch) -> None:
    from mediagen_nb.widgets import _preview

    monkeypatch.setattr(_preview, "MAX_VIDEO_BYTES", 10)
    monkeypatch.setattr(_preview.video_preview, "__defaults__", (10,))
    card = Result(kind="video", family="sora", family_title="Sora 2", body={"model": "x"})
    card.set_media(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64, "v", "/x/v.mp4")
    assert card.preview_bytes == b""
    assert card.file_name == "v.mp4"
    assert "preview limit" in card.note
    assert "/x/v.mp4" in card.note


def test_closing_a_panel_releases_the_session() -> None:
    session = Session(mode_text="test")
    panel = VideoPanel(session=session)
    assert len(session._callbacks) == 1
    assert len(session._asset_callbacks) == 1
    panel.close()
    assert session._callbacks == []
    assert session._asset_callbacks == []
