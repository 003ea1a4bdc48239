"""Media without Pillow or av (the browser): the pure PNG path, the stock clips, the codec."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable, Sequence
from io import BytesIO

import pytest
from PIL import Image

from mediagen_nb import _font, _png, _png_text
from mediagen_nb.emulator import _clips, _media, _png_scene

BlockedRun = Callable[[Sequence[str], str], str]  # the ``run_without`` fixture
LINES = ("Nano Banana - nano-banana", "1024x576 - 1k - 16:9", "mediagen_nb emulator")


def _pixels(data: bytes) -> Image.Image:
    picture = Image.open(BytesIO(data))
    picture.load()
    return picture


@pytest.mark.parametrize(("width", "height"), [(1024, 576), (576, 1024), (64, 64), (1, 3)])
def test_pure_png_has_the_exact_size(width: int, height: int) -> None:
    data = _png_scene.render_png(width, height, title="a red fox", lines=LINES)
    assert _pixels(data).size == (width, height)
    assert _png.decode(data).width == width


def test_pure_png_is_deterministic_and_differs_by_prompt() -> None:
    one = _png_scene.render_png(320, 200, title="a red fox", lines=LINES)
    assert one == _png_scene.render_png(320, 200, title="a red fox", lines=LINES)
    assert one != _png_scene.render_png(320, 200, title="a blue whale", lines=LINES)


def test_pure_png_draws_the_prompt_in_white_on_a_shaded_panel() -> None:
    blank = _png.decode(_png_scene.render_png(512, 512, title=" ", lines=()))
    text = _png.decode(_png_scene.render_png(512, 512, title="HELLO WORLD", lines=()))
    white = sum(row.count(b"\xff\xff\xff") for row in text.rows)
    assert white > 500  # the letters
    assert sum(row.count(b"\xff\xff\xff") for row in blank.rows) == 0


def test_text_outside_ascii_is_drawn_as_ascii() -> None:
    assert _png_text.ascii_text("très jolie … ×2 · ok") == "tres jolie ... x2 - ok"
    assert _png_text.ascii_text("狐") == "?"
    assert len(_font.GLYPHS) == 95


def test_wrap_cuts_long_words_and_marks_a_cut() -> None:
    rows = _png_scene._wrap("a " + "x" * 25 + " b c d e f", 10, 3)
    assert rows == ["a", "xxxxxxxxxx", "xxxxxx ..."]
    assert max(len(row) for row in rows) <= 10


def test_decode_undoes_the_up_filter_of_the_pillow_path() -> None:
    data = _media.render_png(200, 120, title="a red fox", lines=LINES)  # Up-filtered rows
    decoded = _png.decode(data)
    assert b"".join(decoded.rows) == _pixels(data).convert("RGB").tobytes()


def test_shrink_keeps_the_longest_edge_within_the_bound() -> None:
    data = _png_scene.render_png(1024, 576, title="a red fox", lines=LINES)
    small = _png.thumbnail_png(data, 512)
    assert _pixels(small).size == (512, 288)
    original = _pixels(data)
    assert _pixels(small).getpixel((100, 50)) == original.getpixel((200, 100))


def test_decode_refuses_what_it_cannot_read_and_says_why() -> None:
    with pytest.raises(ValueError, match="not a PNG"):
        _png.decode(b"GIF89a")
    out = BytesIO()
    Image.new("P", (4, 4)).save(out, "PNG")
    with pytest.raises(ValueError, match="8-bit RGB/RGBA"):
        _png.decode(out.getvalue())
    header = struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0)
    raw = zlib.compress(b"\x04" + bytes(6))  # one row with the Paeth filter
    paeth = _png.SIGNATURE + _png._chunk(b"IHDR", header) + _png._chunk(b"IDAT", raw)
    with pytest.raises(ValueError, match="row filter 4"):
        _png.decode(paeth)


def test_stock_clips_are_small_mp4s_for_each_orientation() -> None:
    sizes = {name: len(_clips._read(name)) for name in _clips.CLIPS}
    assert sum(sizes.values()) < 300_000
    assert all(_clips._read(name)[4:8] == b"ftyp" for name in _clips.CLIPS)
    assert _clips.clip_name(480, 270) == "landscape"
    assert _clips.clip_name(270, 480) == "portrait"
    assert _clips.clip_name(480, 480) == "square"


def test_emulator_without_pillow_and_av(run_without: BlockedRun) -> None:
    out = run_without(
        ["PIL", "av"],
        """
        import asyncio, json, sys
        import mediagen_nb as mg
        from mediagen_nb.emulator import _clips, _media

        async def main():
            emu = mg.start_emulator(in_process=True, speed=600)
            async with mg.AsyncClient(
                api_key=emu.api_key, base_url=emu.base_url,
                text_base_url=emu.text_base_url, recorder=None,
            ) as client:
                image = await client.images.create("gpt-image-2", prompt="a fox", ratio="16:9")
                video = await client.videos.create("neutralSora2Plus", prompt="a cat")
                await image.wait(); await video.wait()
                png, mp4 = await image.read_bytes(), await video.read_bytes()
            print(json.dumps({
                "have_pil": _media.HAVE_PIL,
                "png": png[:8].hex(), "size": list(__import__("struct").unpack(">II", png[16:24])),
                "clip": mp4 == _clips.stock_clip(270, 480),
                "status": [image.status, video.status],
                "loaded": sorted(m for m in ("PIL", "av") if sys.modules.get(m) is not None),
            }))

        asyncio.run(main())
        """,
    )
    found = json.loads(out.strip().splitlines()[-1])
    assert found == {
        "have_pil": False,
        "png": _png.SIGNATURE.hex(),
        "size": [1024, 576],
        "clip": True,
        "status": ["completed", "completed"],
        "loaded": [],
    }
