"""Real media for the emulator: PNG images and playable H.264 MP4 previews.

Each file shows the prompt and parameters over a background derived from the prompt. The
pixel sizes (``image_pixels``, ``video_pixels``) are tabled in ``docs/reference/design.md``.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeAlias

from mediagen_nb._platform import has_module
from mediagen_nb.emulator import _png_scene

HAVE_PIL = has_module("PIL")
"""Pillow draws the pictures where it is installed; elsewhere (the browser) ``_png_scene``."""
if TYPE_CHECKING or HAVE_PIL:
    from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

__all__ = ["HAVE_PIL", "image_pixels", "render_mp4", "render_png", "video_pixels"]

LONG_EDGE: dict[str, int] = {"1k": 1024, "2k": 2048, "4k": 3840}
"""Long edge in pixels per image ``resolution`` value."""

PREVIEW_LONG_EDGE = 480
"""Long edge of video previews in pixels."""

_Font: TypeAlias = "ImageFont.FreeTypeFont | ImageFont.ImageFont"


def _digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes fullwidth and Arabic-Indic digits)."""
    return text.isascii() and text.isdigit() and len(text) <= 12


def _ratio(text: str) -> Fraction:
    """``"16:9"`` -> 16/9; raises ValueError for anything else."""
    left, sep, right = text.partition(":")
    if not sep or not _digits(left) or not _digits(right) or int(left) * int(right) == 0:
        raise ValueError(f"not an aspect ratio: {text!r}")
    return Fraction(int(left), int(right))


def _size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); raises ValueError for anything else."""
    left, sep, right = text.lower().partition("x")
    if not sep or not _digits(left) or not _digits(right) or int(left) * int(right) == 0:
        raise ValueError(f"not a WxH size: {text!r}")
    return int(left), int(right)


def _fit(long_edge: int, ratio: Fraction, multiple: int) -> tuple[int, int]:
    """Width and height with the given long edge; the short edge rounded to ``multiple``."""
    short = max(multiple, round(long_edge / max(ratio, 1 / ratio) / multiple) * multiple)
    return (long_edge, short) if ratio >= 1 else (short, long_edge)


def image_pixels(family: str, model: str, body: dict[str, Any]) -> tuple[int, int]:
    """Pixel size (width, height) of the image a valid create ``body`` asks for.

    ``model`` is accepted so a per-model default ratio can live here; every current model
    defaults to 1:1. Raises ValueError for a malformed size or ratio (bodies are validated
    before this is called).
    """
    del model  # no model has its own default ratio today (see docstring)
    resolution = str(body.get("resolution") or "1k").lower()
    long_edge = LONG_EDGE.get(resolution)
    if long_edge is None:
        raise ValueError(f"unknown resolution: {resolution!r}")
    if family == "image2":
        if body.get("size"):
            return _size(str(body["size"]))
        return _fit(long_edge, _ratio(str(body.get("ratio") or "1:1")), 16)
    if family == "banana":
        return _fit(long_edge, _ratio(str(body.get("size") or "1:1")), 16)
    raise ValueError(f"not an image family: {family!r}")


def video_pixels(ratio_or_size: str | None) -> tuple[int, int]:
    """Preview size (width, height) for a video ``ratio`` ("16:9") or ``size`` ("720x1280")."""
    text = (ratio_or_size or "").strip().lower()
    if not text or text == "adaptive":
        text = "16:9"
    ratio = Fraction(*_size(text)) if "x" in text else _ratio(text)
    return _fit(PREVIEW_LONG_EDGE, ratio, 2)


# -- drawing ---------------------------------------------------------------------------------


_palette = _png_scene.palette


def _background(width: int, height: int, title: str) -> Image.Image:
    """A soft gradient with blurred blobs, painted at 48 px and upscaled (cheap, in C)."""
    seed = hashlib.sha256(title.encode("utf-8")).digest()
    colors = _palette(seed)
    sw = 48 if width >= height else max(2, round(48 * width / height))
    sh = 48 if height >= width else max(2, round(48 * height / width))
    top = Image.new("RGB", (1, 2), colors[0])
    top.putpixel((0, 1), colors[1])
    small = top.resize((sw, sh), Image.Resampling.BILINEAR)
    draw = ImageDraw.Draw(small)
    for i in range(4):
        cx = seed[12 + i] / 255 * sw
        cy = seed[16 + i] / 255 * sh
        r = (0.15 + seed[20 + i] / 255 * 0.3) * max(sw, sh)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colors[2 + i % 3])
    small = small.filter(ImageFilter.GaussianBlur(max(sw, sh) / 10))
    return small.resize((width, height), Image.Resampling.BICUBIC)


def _font(size: int) -> _Font:
    """Pillow's bundled scalable font: present everywhere Pillow is (Binder included)."""
    return ImageFont.load_default(size)


def _wrap(text: str, font: _Font, max_width: float, max_lines: int) -> list[str]:
    """Greedy word wrap by measured width; the last kept line ends in an ellipsis if cut."""

    def cut(word: str) -> int:  # about as many characters as fit, at least one
        return max(1, int(len(word) * max_width / font.getlength(word)) - 1)

    out = _png_scene.wrap_words(text, font.getlength, max_width, cut)
    if len(out) > max_lines:
        out = out[:max_lines]
        last = out[-1]
        while last and font.getlength(last + " …") > max_width:
            last = last[:-1]
        out[-1] = last.rstrip() + " …"
    return out


def _shade(img: Image.Image, box: tuple[int, int, int, int], amount: float) -> None:
    """Darken a rectangle in place (a translucent panel without an RGBA composite)."""
    box = (max(0, box[0]), max(0, box[1]), min(img.width, box[2]), min(img.height, box[3]))
    if box[2] <= box[0] or box[3] <= box[1]:
        return
    region = img.crop(box)
    img.paste(Image.blend(region, Image.new("RGB", region.size), amount), box)


def _text_block(
    img: Image.Image, title: str, lines: Sequence[str], *, top: int, title_px: int, line_px: int
) -> int:
    """Draw the wrapped title and the parameter lines on a shaded panel; return its bottom."""
    margin = max(4, min(img.size) // 24)
    title_font, line_font = _font(title_px), _font(line_px)
    width = img.width - 4 * margin
    avail = img.height - top - 2 * margin
    title_rows = _wrap(title, title_font, width, max(1, avail // 2 // int(title_px * 1.25)))
    detail = [row for text in lines for row in _wrap(text, line_font, width, 2)]
    room = max(0, (avail - len(title_rows) * int(title_px * 1.25)) // int(line_px * 1.35))
    detail = detail[:room]
    height = len(title_rows) * int(title_px * 1.25) + len(detail) * int(line_px * 1.35)
    bottom = top + height + 2 * margin
    _shade(img, (margin, top, img.width - margin, bottom), 0.45)
    draw = ImageDraw.Draw(img)
    y = top + margin
    for row in title_rows:
        draw.text((2 * margin, y), row, font=title_font, fill=(255, 255, 255))
        y += int(title_px * 1.25)
    for row in detail:
        draw.text((2 * margin, y), row, font=line_font, fill=(225, 232, 240))
        y += int(line_px * 1.35)
    return bottom


def _scene(
    width: int, height: int, title: str, lines: Sequence[str], *, scale: float = 1.0
) -> tuple[Image.Image, int]:
    """Background plus the text panel, text sized to the image (``scale`` > 1 for previews).

    Returns the image and the y where the panel ends (free space below it).
    """
    img = _background(width, height, title)
    base = min(width, height)
    bottom = _text_block(
        img,
        title,
        lines,
        top=max(2, base // 24),
        title_px=max(10, int(base * scale / 16)),
        line_px=max(8, int(base * scale / 30)),
    )
    return img, bottom


# -- PNG -------------------------------------------------------------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _encode_png(img: Image.Image) -> bytes:
    """RGB PNG with every row "Up"-filtered in C and zlib level 1 (Pillow's encoder tries
    five filters per row, which alone costs more than our whole budget at 1024x1024)."""
    width, height = img.size
    above = img.crop((0, -1, width, height - 1))  # row -1 is zeros, as PNG defines
    raw = ImageChops.subtract_modulo(img, above).tobytes()
    stride = width * 3
    rows = b"".join([b"\x02" + raw[y * stride : (y + 1) * stride] for y in range(height)])
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows, 1)),
            _chunk(b"IEND", b""),
        )
    )


def render_png(width: int, height: int, *, title: str, lines: Sequence[str]) -> bytes:
    """A PNG of exactly ``width`` x ``height`` showing ``title`` (the prompt) and ``lines``."""
    if width < 1 or height < 1:
        raise ValueError(f"bad image size {width}x{height}")
    if not HAVE_PIL:
        return _png_scene.render_png(width, height, title=title, lines=lines)
    return _encode_png(_scene(width, height, title, lines)[0])


# -- MP4 -------------------------------------------------------------------------------------


def _frame_count(seconds: float, fps: int) -> tuple[int, Fraction]:
    """Frame count and exact frame rate so that count / rate == seconds."""
    exact = Fraction(seconds).limit_denominator(1000)
    if exact <= 0:
        raise ValueError(f"bad duration {seconds!r}")
    count = max(1, round(exact * fps))
    return count, Fraction(count) / exact


def render_mp4(
    width: int,
    height: int,
    seconds: float,
    *,
    fps: int = 12,
    title: str,
    lines: Sequence[str],
) -> bytes:
    """A playable H.264 MP4 (yuv420p, faststart) lasting exactly ``seconds``.

    Shows the prompt and parameters, a ball travelling across the frame, a progress bar and
    a time counter. ``width`` and ``height`` are rounded down to even numbers (yuv420p).
    """
    width, height = max(2, width - width % 2), max(2, height - height % 2)
    count, rate = _frame_count(seconds, fps)
    total = float(Fraction(count) / rate)
    base, panel_bottom = _scene(width, height, title, lines, scale=1.5)
    ink, accent = (255, 255, 255), _palette(hashlib.sha256(title.encode("utf-8")).digest())[4]
    small = max(8, min(width, height) // 14)
    counter_font = _font(small)
    radius = max(3, min(width, height) // 18)
    bar_y = height - max(3, height // 60) - 2
    # the ball bounces in the free band between the text panel and the counter
    y_low, y_high = panel_bottom + radius + 2, bar_y - int(small * 1.8) - radius
    if y_high < y_low:
        y_low = y_high = height // 2

    def frames() -> Iterator[Image.Image]:
        for i in range(count):
            t = float(Fraction(i) / rate)
            phase = i / max(1, count - 1)
            img = base.copy()
            draw = ImageDraw.Draw(img)
            x = radius + phase * (width - 2 * radius)
            bounce = abs(((i * 2 / max(fps, 1)) % 2) - 1)  # up and down twice a second
            y = y_high - bounce * (y_high - y_low)
            ball = (x - radius, y - radius, x + radius, y + radius)
            draw.ellipse(ball, fill=ink, outline=accent, width=max(1, radius // 3))
            draw.rectangle((0, bar_y, int(width * (i + 1) / count), height), fill=ink)
            label = f"{t:4.1f} s / {total:.1f} s"
            lw = counter_font.getlength(label)
            draw.text((width - lw - small, bar_y - small * 1.6), label, font=counter_font, fill=ink)
            yield img

    return write_mp4(width, height, rate, frames())


def write_mp4(
    width: int, height: int, rate: Fraction, frames: Iterable[Image.Image], crf: int = 26
) -> bytes:
    """Encode ``frames`` (RGB pictures of ``width`` x ``height``, even) as H.264 MP4 bytes."""
    import av

    # faststart rewrites the finished file by name, so the muxer needs a real path.
    with (
        tempfile.TemporaryDirectory(prefix="mediagen-mp4-") as folder,
        av.open(
            os.path.join(folder, "v.mp4"),
            mode="w",
            format="mp4",
            options={"movflags": "+faststart"},
        ) as container,
    ):
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"preset": "ultrafast", "crf": str(crf)}
        stream.codec_context.time_base = 1 / rate
        for i, img in enumerate(frames):
            frame = av.VideoFrame.from_image(img)  # type: ignore[no-untyped-call]  # av stub gap
            frame.pts = i
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
        container.close()
        with open(os.path.join(folder, "v.mp4"), "rb") as file:
            return file.read()
