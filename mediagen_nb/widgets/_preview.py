"""Preview bytes small enough for the widget comm and a saved notebook.

Images get a WebP thumbnail (and a bounded full image on request), videos the MP4 when it is
small enough; an image too large to decode safely gets ``PreviewTooLargeError``."""

from __future__ import annotations

import struct
import threading
import warnings
import zlib
from io import BytesIO
from typing import TYPE_CHECKING, Final

from mediagen_nb._platform import has_module
from mediagen_nb._png import thumbnail_png

if TYPE_CHECKING:
    from PIL.Image import Image

THUMB_PX = 512  # a gallery card is 300-560 px wide; the lightbox loads the full image
THUMB_QUALITY = 80  # WebP: about half the bytes of a JPEG that looks the same
FULL_PX = 2048
HAVE_PIL = has_module("PIL")
MAX_ORIGINAL_BYTES = 1024 * 1024
"""Without Pillow, an image that cannot be shrunk is sent as it is up to this size."""
MAX_VIDEO_BYTES = 8 * 1024 * 1024
"""Decision: videos above 8 MB are not sent over the comm (they would bloat the notebook)."""
MAX_PREVIEW_PIXELS: Final = 50_000_000
"""Largest image decoded for a preview (a 4k result is 8.3 million pixels)."""
MAX_CONCURRENT: Final = 2
"""Images decoded at the same time (each may take a few hundred MB at the limit)."""
_decoding = threading.BoundedSemaphore(MAX_CONCURRENT)


class PreviewTooLargeError(ValueError):
    """An image with more pixels than a preview decodes; the message is the card's note."""

    def __init__(self, width: int, height: int) -> None:
        super().__init__(
            f"too large to preview ({width}x{height} pixels, more than "
            f"{MAX_PREVIEW_PIXELS // 1_000_000} million); open the file instead"
        )


def _check_pixels(width: int, height: int) -> None:
    if width * height > MAX_PREVIEW_PIXELS:
        raise PreviewTooLargeError(width, height)


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header, or None when ``data`` is not a PNG."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def sniff_mime(data: bytes) -> str:
    """MIME type from the first bytes (PNG, JPEG, WebP, GIF, MP4/MOV, WebM)."""
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:4] in (b"GIF8",):
        return "image/gif"
    if data[4:8] == b"ftyp":
        return "video/mp4"
    if data.startswith(b"\x1aE\xdf\xa3"):
        return "video/webm"
    return "application/octet-stream"


def _open(data: bytes, max_px: int | None = None) -> Image:
    """Decode ``data``: size checked from the header first, at most ``MAX_CONCURRENT`` at once,
    JPEGs at the smallest scale that still covers ``max_px``."""
    from PIL import Image as PILImage

    with _decoding, warnings.catch_warnings():
        warnings.simplefilter("error", PILImage.DecompressionBombWarning)
        try:
            picture = PILImage.open(BytesIO(data))
            _check_pixels(*picture.size)
            if max_px is not None and picture.format == "JPEG":
                picture.draft("RGB", (max_px, max_px))
            picture.load()
        except (PILImage.DecompressionBombError, PILImage.DecompressionBombWarning) as exc:
            width, height = png_size(data) or (0, 0)
            raise PreviewTooLargeError(width, height) from exc
    return picture


def _encode(picture: Image, fmt: str) -> bytes:
    out = BytesIO()
    if fmt == "JPEG":
        if picture.mode not in ("RGB", "L"):
            from PIL import Image as PILImage

            rgba = picture.convert("RGBA")
            background = PILImage.new("RGB", rgba.size, (255, 255, 255))
            background.paste(rgba, mask=rgba.getchannel("A"))
            picture = background
        picture.save(out, "JPEG", quality=85, optimize=True)
    elif fmt == "WEBP":
        picture.save(out, "WEBP", quality=THUMB_QUALITY)
    else:
        picture.save(out, fmt, optimize=True)
    return out.getvalue()


def _without_pillow(data: bytes, max_px: int, keep_up_to: int) -> tuple[bytes, str]:
    """The pure-Python preview: a PNG shrunk by ``_png`` (PNGs as our encoders write them),
    else the original bytes when at most ``keep_up_to``; else ValueError saying why."""
    mime = sniff_mime(data)
    size = png_size(data)
    if size is not None:
        _check_pixels(*size)
    if mime == "image/png":
        try:
            with _decoding:
                return thumbnail_png(data, max_px), "image/png"
        except (ValueError, zlib.error):
            pass
    if mime.startswith("image/") and len(data) <= keep_up_to:
        return data, mime
    raise ValueError(
        f"no preview: this {mime} of {len(data) / 1e6:.1f} MB cannot be shrunk without "
        "Pillow, which is not installed here; open or download the file instead"
    )


def thumbnail(data: bytes, max_px: int = THUMB_PX) -> tuple[bytes, str]:
    """A WebP no larger than ``max_px`` on its longest edge, and its MIME type.

    Without Pillow (a browser kernel): see ``_without_pillow`` (PNG, or the original bytes
    up to ``MAX_ORIGINAL_BYTES``).
    """
    if not HAVE_PIL:
        return _without_pillow(data, max_px, MAX_ORIGINAL_BYTES)
    picture = _open(data, max_px)
    picture.thumbnail((max_px, max_px))
    if picture.mode not in ("RGB", "RGBA", "L", "LA"):
        picture = picture.convert("RGBA")  # palette, CMYK, 16-bit: what the encoder takes
    return _encode(picture, "WEBP"), "image/webp"


def full_image(data: bytes, max_px: int = FULL_PX) -> tuple[bytes, str]:
    """The image bounded to ``max_px``: the original bytes when already small enough."""
    mime = sniff_mime(data)
    if not HAVE_PIL:
        return _without_pillow(data, max_px, MAX_VIDEO_BYTES)
    picture = _open(data)  # full size: the original is kept when small enough
    if max(picture.size) <= max_px and mime in ("image/png", "image/jpeg"):
        return data, mime
    picture.thumbnail((max_px, max_px))
    fmt = "PNG" if mime == "image/png" else "JPEG"
    return _encode(picture, fmt), f"image/{fmt.lower()}"


def video_preview(data: bytes, cap: int = MAX_VIDEO_BYTES) -> tuple[bytes, str, str]:
    """``(bytes, mime, note)``: the video if within ``cap``, else empty bytes and a note."""
    mime = sniff_mime(data)
    if len(data) <= cap:
        return data, mime if mime.startswith("video/") else "video/mp4", ""
    size_mb = len(data) / 1e6
    note = (
        f"video is {size_mb:.1f} MB, above the {cap / 1e6:.0f} MB preview limit: "
        "not sent to the browser; open the local file instead"
    )
    return b"", "video/mp4", note
