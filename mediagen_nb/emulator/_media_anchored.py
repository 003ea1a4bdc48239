"""A video preview that starts from a given picture (and may end on another).

Frame 0 is the picture itself (cover-fitted); the camera pushes in ``ZOOM`` over the clip,
cross-fading to the last picture when given, so a clip continued from its predecessor's last
frame starts where that one ended. Encoded finer (``CRF``): each continuation re-encodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import BytesIO
from typing import TYPE_CHECKING, Final

from mediagen_nb.emulator._media import _frame_count, write_mp4

if TYPE_CHECKING:
    from PIL.Image import Image

ZOOM: Final = 0.15
"""How much closer the last frame is than the first (15 %)."""
CRF: Final = 18


def _cover(data: bytes, width: int, height: int) -> Image:
    """The picture scaled to cover ``width`` x ``height`` and centre-cropped to it."""
    from PIL import Image as PILImage

    picture = PILImage.open(BytesIO(data)).convert("RGB")
    if picture.size == (width, height):
        return picture
    scale = max(width / picture.width, height / picture.height)
    size = (max(width, round(picture.width * scale)), max(height, round(picture.height * scale)))
    picture = picture.resize(size, PILImage.Resampling.LANCZOS)
    left, top = (size[0] - width) // 2, (size[1] - height) // 2
    return picture.crop((left, top, left + width, top + height))


def _zoomed(picture: Image, factor: float) -> Image:
    from PIL import Image as PILImage

    if factor <= 1.0:
        return picture
    width, height = picture.size
    cw, ch = width / factor, height / factor
    box = ((width - cw) / 2, (height - ch) / 2, (width + cw) / 2, (height + ch) / 2)
    return picture.resize((width, height), PILImage.Resampling.BILINEAR, box=box)


def render_mp4_from(
    width: int,
    height: int,
    seconds: float,
    first: bytes,
    last: bytes | None = None,
    *,
    fps: int = 12,
) -> bytes:
    """An MP4 of ``seconds`` whose first frame is ``first`` (and last frame ``last``)."""
    from PIL import Image as PILImage

    width, height = max(2, width - width % 2), max(2, height - height % 2)
    count, rate = _frame_count(seconds, fps)
    start = _cover(first, width, height)
    end = _cover(last, width, height) if last is not None else None

    def frames() -> Iterator[Image]:
        for i in range(count):
            phase = i / max(1, count - 1)
            img = _zoomed(start, 1.0 + ZOOM * phase)
            yield img if end is None else PILImage.blend(img, end, phase)

    return write_mp4(width, height, rate, frames(), crf=CRF)
