"""A video's frame in a kernel without PyAV (the browser), headless.

PyAV is blocked (``sys.modules["av"] = None``) after the loopback emulator has rendered a
clip. The Videos panel's message handler is driven as its front end drives it: the page says
it is shown, receives ``{"kind": "frame"}`` with the video, answers with a PNG (here PyAV's
own decoding, made before the block). Proven: ``task.last_frame()`` lands that PNG in the
media cache; Continue from last frame asks the clicked panel while it is shown; no panel, a
hidden one, a silent one (timeout) and a failing one each give their error and leave nothing
waiting; the stock clips' shipped frames are PyAV's exact decoding, used without any page.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

import httpx
import pytest
from PIL import Image, ImageChops

from mediagen_nb import _frame_sources
from mediagen_nb.client import AsyncClient, FrameUnavailableError, Task
from mediagen_nb.client._frames import any_frame_png, frame_png
from mediagen_nb.emulator import EmulatorHandle, _clips
from mediagen_nb.widgets import Studio, VideoPanel
from mediagen_nb.widgets._session import Session
from tests._support import KEY

pytestmark = pytest.mark.emulator(speed=600.0, api_key=KEY, seed=21)


@dataclass
class FakePage:
    """The Videos panel's front end: records what the kernel sends, answers as told."""

    panel: VideoPanel
    answer: bytes | None = None
    error: str = ""
    silent: bool = False
    sent: list[tuple[dict[str, Any], list[bytes]]] = field(default_factory=list)

    def send(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        self.sent.append((content, list(buffers or [])))
        if self.silent or content.get("kind") != "frame":
            return
        reply: dict[str, Any] = {"action": "frame", "request": content["request"]}
        if self.error:
            reply["error"] = self.error
        answer = [] if self.error else [self.answer or b""]
        loop = asyncio.get_running_loop()  # answered later, as a comm message would be
        loop.call_soon(self.panel._on_custom_msg, self.panel, reply, answer)

    def show(self, shown: bool = True) -> None:
        self.panel._on_custom_msg(self.panel, {"action": "frames", "shown": shown}, [])

    def frames_asked(self) -> list[tuple[dict[str, Any], list[bytes]]]:
        return [(c, b) for c, b in self.sent if c.get("kind") == "frame"]


@pytest.fixture
async def client(emulator: EmulatorHandle) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        emulator.api_key, emulator.base_url, emulator.text_base_url, recorder=None
    ) as c:
        yield c


@pytest.fixture
def page(client: AsyncClient) -> Iterator[FakePage]:
    panel = VideoPanel(session=Session(client=client), show_banner=False)
    fake = FakePage(panel)
    panel.send = fake.send  # type: ignore[method-assign]
    yield fake
    panel.close()
    assert _frame_sources.drawers() == ()  # a closed panel is offered no more


def block_av(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "av", None)  # a browser kernel: `import av` fails


def pixels(png: bytes) -> Image.Image:
    return Image.open(BytesIO(png)).convert("RGB")


def same_pixels(a: bytes, b: bytes) -> bool:
    first, second = pixels(a), pixels(b)
    return first.size == second.size and ImageChops.difference(first, second).getbbox() is None


async def clip(client: AsyncClient) -> tuple[Task, bytes]:
    task = await client.videos.create(
        "seedance_1_5_pro_480p", content=[{"type": "text", "text": "a kite"}], duration=3
    )
    await task.wait()
    return task, await task.read_bytes()


async def test_a_shown_panel_draws_the_last_frame(
    client: AsyncClient, page: FakePage, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, video = await clip(client)
    page.answer = frame_png(video, "last")  # what the page's canvas would draw
    block_av(monkeypatch)
    page.show()
    path = await task.last_frame()
    assert path.suffix == ".png"
    assert path.name.endswith(".last-frame.png")
    assert task.id in path.name
    assert same_pixels(path.read_bytes(), page.answer)
    assert path.read_bytes() != page.answer  # provenance added: the PNG names its video
    [(content, buffers)] = page.frames_asked()
    assert content == {"kind": "frame", "request": 1, "which": "last", "mime": "video/mp4"}
    assert buffers == [video]
    assert page.panel.frames.waiting == {}


async def test_no_panel_shown_says_what_to_do(
    client: AsyncClient, page: FakePage, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, _video = await clip(client)
    block_av(monkeypatch)
    with pytest.raises(FrameUnavailableError, match=r"show mg\.studio\(\)"):
        await task.first_frame()
    page.show()
    page.show(False)  # the view was removed from the page
    with pytest.raises(FrameUnavailableError, match="PyAV"):
        await task.last_frame()
    assert page.frames_asked() == []


async def test_a_silent_page_times_out_and_a_failing_one_says_why(
    client: AsyncClient, page: FakePage, monkeypatch: pytest.MonkeyPatch
) -> None:
    _task, video = await clip(client)
    block_av(monkeypatch)
    monkeypatch.setattr(_frame_sources, "TIMEOUT_S", 0.2)
    page.show()
    page.silent = True
    with pytest.raises(FrameUnavailableError, match=r"within 0\.2 s.*asyncio\.ensure_future"):
        await any_frame_png(video, "last")
    assert page.panel.frames.waiting == {}  # the late answer finds nothing to resolve
    page.panel._on_custom_msg(page.panel, {"action": "frame", "request": 1}, [b"late"])
    assert page.panel.errors == []
    page.silent, page.error = False, "MEDIA_ERR_DECODE"
    with pytest.raises(FrameUnavailableError, match="could not draw the frame: MEDIA_ERR_DECODE"):
        await any_frame_png(video, "first")
    assert [c["which"] for c, _b in page.frames_asked()] == ["last", "first"]


@pytest.mark.parametrize("name", sorted(_clips.CLIPS))
def test_stock_clips_ship_their_exact_frames(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    video = _clips._read(name)
    for which in ("first", "last"):
        shipped = _clips.stock_frame(video, which)
        assert shipped is not None
        assert same_pixels(shipped, frame_png(video, which)), (name, which)
        assert pixels(shipped).size == _clips.CLIPS[name]
    assert not same_pixels(_clips._frame(name, "first"), _clips._frame(name, "last"))
    assert _clips.stock_frame(video[:-1], "last") is None
    block_av(monkeypatch)
    assert _frame_sources.drawers() == ()  # no page: the shipped frame needs none
    assert asyncio.run(any_frame_png(video, "last")) == _clips._frame(name, "last")


async def test_continue_from_last_frame_asks_the_clicked_panel(
    emulator: EmulatorHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        studio = Studio(session=Session(client=client), resume=False)
        videos = studio.videos
        videos.set(prompt="a kite over the dunes", duration=3)
        videos.generate()
        for _ in range(600):
            if videos.cards and videos.cards[0].done and videos.cards[0].source:
                break
            await asyncio.sleep(0.05)
        card = videos.cards[0]
        assert card.status == "completed", card.error
        fake = FakePage(videos, answer=frame_png(card.source, "last"))
        videos.send = fake.send  # type: ignore[method-assign]
        block_av(monkeypatch)
        fake.show()
        target = await studio.use(videos, card.id, "continue")
        assert videos.errors == []
        assert target is not None
        [(content, buffers)] = fake.frames_asked()
        assert (content["which"], buffers) == ("last", [card.source])
        frame_url = videos.body()[target.slot.field]
        assert "/media/uploads/" in frame_url  # the drawn frame went to the emulator
        async with httpx.AsyncClient() as http:
            uploaded = (await http.get(frame_url)).content
        assert same_pixels(uploaded, fake.answer or b"")
        fake.show(False)  # the page went away: nothing draws, and the panel says so at once
        assert await studio.use(videos, card.id, "continue") is None
        assert "show mg.studio()" in videos.notice
        assert len(fake.frames_asked()) == 1
        studio.close()
