"""Emulator media: the documented pixel mappings and real, decodable PNG and MP4 files."""

from __future__ import annotations

import io
from typing import Any

import av
import pytest
from PIL import Image, ImageChops

from mediagen_nb.emulator._media import (
    PREVIEW_LONG_EDGE,
    image_pixels,
    render_mp4,
    render_png,
    video_pixels,
)

LINES = ["model: nano-banana-pro", "resolution: 1k · size: 16:9"]


@pytest.mark.parametrize(
    ("family", "body", "expected"),
    [
        ("banana", {}, (1024, 1024)),
        ("banana", {"size": "16:9"}, (1024, 576)),
        ("banana", {"size": "9:16", "resolution": "2k"}, (1152, 2048)),
        ("banana", {"size": "16:9", "resolution": "4k"}, (3840, 2160)),
        ("banana", {"size": "4:3"}, (1024, 768)),
        ("banana", {"size": "21:9"}, (1024, 432)),
        ("image2", {}, (1024, 1024)),
        ("image2", {"ratio": "2:1", "resolution": "4k"}, (3840, 1920)),
        ("image2", {"ratio": "9:21", "resolution": "4k"}, (1648, 3840)),
        ("image2", {"ratio": "3:2", "resolution": "2k"}, (2048, 1360)),
        ("image2", {"size": "1536x1024", "ratio": "9:16", "resolution": "2k"}, (1536, 1024)),
    ],
)
def test_image_pixels_mapping(family: str, body: dict[str, Any], expected: tuple[int, int]) -> None:
    assert image_pixels(family, "any-model", {"prompt": "p", **body}) == expected


@pytest.mark.parametrize("resolution", ["1k", "2k", "4k"])
@pytest.mark.parametrize(
    "ratio",
    ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "2:1", "1:2", "21:9", "9:21"],
)
def test_image_pixels_are_multiples_of_16_with_the_long_edge(ratio: str, resolution: str) -> None:
    width, height = image_pixels(
        "image2", "gpt-image-2", {"ratio": ratio, "resolution": resolution}
    )
    assert width % 16 == 0
    assert height % 16 == 0
    assert max(width, height) == {"1k": 1024, "2k": 2048, "4k": 3840}[resolution]
    a, b = (int(x) for x in ratio.split(":"))
    assert abs(width / height - a / b) < 0.05
    assert (width >= height) == (a >= b)


@pytest.mark.parametrize(
    ("family", "body"),
    [
        ("image2", {"size": "big"}),
        ("banana", {"size": "wide"}),
        ("banana", {"resolution": "8k"}),
        ("sora", {}),
    ],
)
def test_image_pixels_rejects_malformed_values(family: str, body: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"."):
        image_pixels(family, "m", body)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("16:9", (480, 270)),
        ("9:16", (270, 480)),
        ("1:1", (480, 480)),
        ("4:3", (480, 360)),
        ("21:9", (480, 206)),
        ("1280x720", (480, 270)),
        ("720x1280", (270, 480)),
        ("adaptive", (480, 270)),
        (None, (480, 270)),
    ],
)
def test_video_pixels_mapping(shape: str | None, expected: tuple[int, int]) -> None:
    width, height = video_pixels(shape)
    assert (width, height) == expected
    assert max(width, height) == PREVIEW_LONG_EDGE
    assert width % 2 == 0
    assert height % 2 == 0


def _decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("size", [(1024, 1024), (1024, 432), (1152, 2048), (17, 5), (1, 1)])
def test_png_has_exactly_the_requested_size(size: tuple[int, int]) -> None:
    data = render_png(*size, title="a red fox in the snow", lines=LINES)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = _decode(data)
    assert image.format == "PNG"
    assert image.size == size
    assert image.mode == "RGB"


def test_png_is_deterministic_and_differs_by_prompt() -> None:
    fox = render_png(256, 256, title="a red fox in the snow", lines=LINES)
    assert fox == render_png(256, 256, title="a red fox in the snow", lines=LINES)
    owl = render_png(256, 256, title="an owl at midnight", lines=LINES)
    # compare the corners (background only): the palette follows the prompt
    corner = (0, 200, 56, 256)
    diff = ImageChops.difference(_decode(fox).crop(corner), _decode(owl).crop(corner))
    assert diff.getbbox() is not None


def test_png_shows_text_on_a_shaded_panel() -> None:
    image = _decode(render_png(1024, 1024, title="a lighthouse in a storm", lines=LINES))
    panel = image.crop((80, 80, 900, 200)).convert("L")
    assert max(panel.tobytes()) > 240  # white glyphs
    assert min(panel.tobytes()) < 120  # on the darkened panel
    blank = _decode(render_png(1024, 1024, title=" ", lines=[])).crop((80, 80, 900, 200))
    assert max(blank.convert("L").tobytes()) < 240


def test_png_rejects_empty_sizes() -> None:
    with pytest.raises(ValueError, match="size"):
        render_png(0, 10, title="x", lines=[])


def _probe(data: bytes) -> tuple[float, int, str, str, tuple[int, int], list[Image.Image]]:
    with av.open(io.BytesIO(data), mode="r") as container:
        stream = container.streams.video[0]
        assert stream.duration is not None
        assert stream.time_base is not None
        seconds = float(stream.duration * stream.time_base)
        assert container.duration is not None
        assert abs(container.duration / 1_000_000 - seconds) < 1e-3
        frames = [f.to_image() for f in container.decode(stream)]  # type: ignore[no-untyped-call]
        return (
            seconds,
            len(frames),
            stream.codec_context.name,
            stream.format.name,
            (stream.width, stream.height),
            frames,
        )


@pytest.mark.parametrize(("seconds", "frames"), [(5, 60), (1, 12), (4.3, 52), (12, 144)])
def test_mp4_is_playable_h264_lasting_exactly_the_seconds(seconds: float, frames: int) -> None:
    data = render_mp4(270, 480, seconds, fps=12, title="waves on a beach", lines=LINES)
    duration, count, codec, pix_fmt, size, _ = _probe(data)
    assert duration == pytest.approx(seconds, abs=1e-6)
    assert count == frames
    assert codec == "h264"
    assert pix_fmt == "yuv420p"
    assert size == (270, 480)


def test_mp4_is_faststart_and_moves() -> None:
    data = render_mp4(480, 270, 2, title="a paper plane", lines=LINES)
    assert data.index(b"moov") < data.index(b"mdat")
    *_, frames = _probe(data)
    assert ImageChops.difference(frames[0], frames[-1]).getbbox() is not None


def test_mp4_rounds_odd_sizes_to_even() -> None:
    *_, size, _ = _probe(render_mp4(481, 271, 1, title="x", lines=[]))
    assert size == (480, 270)


def test_mp4_rejects_non_positive_durations() -> None:
    with pytest.raises(ValueError, match="duration"):
        render_mp4(480, 270, 0, title="x", lines=[])
