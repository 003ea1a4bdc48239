"""Decompression bombs never reach a decoder: an image with more pixels than a preview
decodes is refused from its header ("too large to preview" on the card), Pillow's own bomb
checks end the same way, and only a few images are decoded at once."""

from __future__ import annotations

import io
import struct
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from PIL import Image

from mediagen_nb.widgets import _preview
from mediagen_nb.widgets._gallery import Result
from mediagen_nb.widgets._preview import MAX_CONCURRENT, full_image, thumbnail


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def bomb_png(side: int = 9000) -> bytes:
    """A valid greyscale PNG of ``side`` x ``side`` zeros: small on disk, huge decoded."""
    packer = zlib.compressobj(9)
    row = bytes(side + 1)  # filter byte + pixels
    idat = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", idat)
        + _chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return bomb_png()


def small_png(size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (10, 120, 200)).save(out, "PNG")
    return out.getvalue()


def test_a_bomb_is_refused_before_decoding(bomb: bytes) -> None:
    assert len(bomb) < 1_000_000
    with pytest.raises(ValueError, match="too large to preview"):
        thumbnail(bomb)
    with pytest.raises(ValueError, match="too large to preview"):
        full_image(bomb)


def test_a_bomb_is_refused_without_pillow_too(bomb: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_preview, "HAVE_PIL", False)
    with pytest.raises(ValueError, match="too large to preview"):
        thumbnail(bomb)


def test_the_card_says_too_large_instead_of_crashing(bomb: bytes) -> None:
    card = Result(kind="image", family="banana", family_title="Nano Banana", body={})
    card.set_media(bomb, "task-bomb", None)
    assert "too large to preview" in card.note
    assert card.thumbnail == b""


def test_pillows_own_bomb_limit_becomes_the_same_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)
    with pytest.raises(ValueError, match="too large to preview"):
        thumbnail(small_png((64, 48)))


def test_an_ordinary_image_still_gets_its_thumbnail() -> None:
    data, mime = thumbnail(small_png((1600, 900)))
    assert mime == "image/webp"
    assert Image.open(io.BytesIO(data)).size == (512, 288)


def test_at_most_a_few_images_are_decoded_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = 0
    most = 0
    lock = threading.Lock()
    real_open = Image.open

    def slow_open(*args: Any, **kwargs: Any) -> Any:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        time.sleep(0.05)  # hold the decoder so overlapping decodes would show
        try:
            return real_open(*args, **kwargs)
        finally:
            with lock:
                inside -= 1

    monkeypatch.setattr(Image, "open", slow_open)
    data = small_png()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _n: thumbnail(data), range(8)))
    assert [mime for _data, mime in results] == ["image/webp"] * 8
    assert 1 <= most <= MAX_CONCURRENT
