"""Image and video panels against the emulator (ASGI transport): cards reach completed with
preview bytes, several run at once, Cancel works mid-run, failures show their text, the
ledger has every state the card shows, and errors land in the panel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from io import BytesIO

import httpx2
import pytest
from PIL import Image

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import create_app
from mediagen_nb.widgets._base import Panel, Throttle
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._session import DEMO_TEXT, Session
from mediagen_nb.widgets._task_card import TaskCard

KEY = "test-key-0123456789"


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
    assert panel.generate_button.disabled
    panel.form.field("prompt").input.value = "a red fox in snow"
    assert not panel.generate_button.disabled
    job = panel.generate()
    assert job is not None
    card = await job
    assert isinstance(card, TaskCard)
    assert card.status == "completed"
    assert card.task_id
    assert panel.cards == [card]
    thumb = Image.open(BytesIO(card.preview_bytes))
    assert thumb.format == "WEBP"
    assert card.thumbnail_mime == "image/webp"
    assert max(thumb.size) <= 384
    assert card.full == b""  # the large image travels only on request
    card._on_custom_msg(card, {"action": "full"}, [])
    assert await _eventually(lambda: len(card.full) > 0)
    assert card.local_path.endswith(".png")
    assert card.file_name.endswith(".png")
    assert panel.errors == []


async def _eventually(check: object, rounds: int = 200) -> bool:
    for _ in range(rounds):
        if callable(check) and check():
            return True
        await asyncio.sleep(0.01)
    return False


async def test_ledger_has_every_state_a_card_shows(fast: Session) -> None:
    import mediagen_nb

    panel = VideoPanel(session=fast, model="seedance_1_5_pro_480p")
    panel.form.field("content").text.value = "tide"  # type: ignore[attr-defined]
    seen: list[tuple[str, str]] = []

    def check_ledger(card: TaskCard) -> None:
        frame = mediagen_nb.history()
        row = frame[frame["task_id"] == card.task_id]
        seen.append((card.status, str(row["status"].iloc[0]) if len(row) else "missing"))

    def watch(change: dict) -> None:
        for card in change["new"]:
            if card not in change["old"]:
                check_ledger(card)
            card.observe(lambda _c, card=card: check_ledger(card), names="status")

    panel.cards_box.observe(watch, names="children")
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert seen[-1] == ("completed", "completed")
    assert len(seen) >= 2
    assert all(shown == recorded for shown, recorded in seen), seen


@pytest.mark.parametrize(
    ("model", "fill"),
    [
        ("seedance_1_5_pro_480p", lambda f: setattr(f.field("content").text, "value", "waves")),
        ("neutralSora2Plus", lambda f: setattr(f.field("prompt").input, "value", "a drone")),
        ("starvideos_o3", lambda f: setattr(f.field("prompt").input, "value", "a fox")),
        ("viduq3-turbo", lambda f: setattr(f.field("prompt").input, "value", "rain")),
    ],
)
async def test_video_panel_completes_with_mp4(fast: Session, model: str, fill: object) -> None:
    panel = VideoPanel(session=fast, model=model)
    assert callable(fill)
    fill(panel.form)
    assert panel.form.valid, panel.form.problems
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed", card.error
    assert card.kind == "video"
    assert card.preview_bytes[4:8] == b"ftyp"
    assert card.video_mime == "video/mp4"
    assert card.polls >= 1
    assert card.eta_high > 0


async def test_unnamed_family_goes_to_its_endpoint(fast: Session) -> None:
    panel = VideoPanel(session=fast)
    panel.form.select("veo-3-preview", family="veo")
    panel.form.field("prompt").input.value = "a city at night"
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed", card.error
    assert card.label == "Veo · veo-3-preview"


async def test_several_tasks_at_once(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    panel.form.field("prompt").input.value = "one"
    jobs = [panel.generate() for _ in range(3)]
    assert all(job is not None for job in jobs)
    assert len(panel.running) == 3  # the button returned at once; all run in the background
    cards = await asyncio.gather(*[j for j in jobs if j is not None])
    assert {c.status for c in cards if c is not None} == {"completed"}
    assert len({c.task_id for c in cards if c is not None}) == 3
    assert len(panel.cards_box.children) == 3


async def test_cancel_while_running(slow: Session) -> None:
    panel = VideoPanel(session=slow, model="neutralSora2Pro")
    panel.form.field("prompt").input.value = "a long take"
    job = panel.generate()
    assert job is not None
    assert await _eventually(lambda: bool(panel.cards))
    card = panel.cards[0]
    assert card.status in ("queued", "processing")
    card.cancel()
    done = await asyncio.wait_for(job, timeout=30)
    assert done is card
    assert card.status == "cancelled"
    import mediagen_nb

    frame = mediagen_nb.history()
    assert list(frame[frame["task_id"] == card.task_id]["status"]) == ["cancelled"]


async def test_failure_shows_the_error_text(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    panel.form.field("prompt").input.value = "something [fail]"
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "failed"
    assert card.error
    assert card.preview_bytes == b""
    assert "failed" in repr(card)


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
    assert "not sent: fix prompt: must not be empty" in panel.errors[0]
    panel.form.field("prompt").input.value = "ok"
    job = panel.generate()
    assert job is not None
    await panel.join()
    assert len(calls) == 1  # the server error reached the panel, not only the log
    assert panel.errors[-1].startswith("GPT Image 2 task: ")
    assert panel.cards == []
    await client.aclose()


async def test_text_fallback_is_readable(fast: Session) -> None:
    panel = ImagePanel(session=fast, model="nano-banana")
    text = panel._repr_mimebundle_()["text/plain"]
    assert "Image panel" in text
    assert "Generate disabled: fix prompt: must not be empty" in text
    assert KEY not in text


async def test_throttle_coalesces_updates() -> None:
    panel = Panel(session=Session(mode_text="test"))
    applied: list[int] = []
    throttle = Throttle(panel, lambda: applied.append(1), rate=4.0)
    for _ in range(50):
        throttle.request()
    assert len(applied) == 1  # the first at once, the rest folded into one deferred apply
    await throttle.drain()
    assert len(applied) == 2


async def test_card_updates_are_throttled() -> None:
    card = TaskCard(label="x", kind="image")
    for polls in range(1, 40):
        card.update(status="processing", polls=polls)
    assert card.updates_sent == 1
    await card.drain()
    assert card.updates_sent == 2
    assert card.polls == 39


def test_card_rejects_unknown_arguments() -> None:
    with pytest.raises(TypeError, match="unknown"):
        TaskCard(label="x", colour="red")
    card = TaskCard(label="x")
    with pytest.raises(TypeError, match="unknown"):
        card.update(colour="red")


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
    assert Image.open(BytesIO(thumb)).size == (384, 128)
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
    card = TaskCard(label="v", kind="video")
    card.set_media(
        b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64, file_name="v.mp4", local_path="/x/v.mp4"
    )
    assert card.preview_bytes == b""
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
