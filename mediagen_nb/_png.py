"""PNG in pure Python (zlib + struct): encode RGB rows, decode simple PNGs, shrink them.

For where Pillow is missing (the browser). Decoding handles what our own encoders write
(8-bit RGB or RGBA, not interlaced, rows filtered "None" or "Up"); anything else raises
``ValueError``. Stdlib only.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {2: 3, 6: 4}
"""PNG colour type -> bytes per pixel (8-bit depth): RGB, RGBA."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(
    width: int, height: int, rows: Iterable[bytes | bytearray], *, alpha: bool = False
) -> bytes:
    """A PNG of ``height`` rows of ``width`` pixels (RGB, or RGBA with ``alpha``), filter None.

    zlib level 1: pictures here repeat whole rows, which deflate finds at any level.
    """
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if alpha else 2, 0, 0, 0)
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(raw, 1)),
            _chunk(b"IEND", b""),
        )
    )


def encode_rgb(width: int, height: int, rows: Iterable[bytes | bytearray]) -> bytes:
    """An RGB PNG (see :func:`encode`)."""
    return encode(width, height, rows)


@dataclass(frozen=True)
class Picture:
    """Decoded pixels: ``rows`` of ``width * channels`` bytes each."""

    width: int
    height: int
    channels: int
    rows: list[bytes]


def _chunks(data: bytes) -> Iterable[tuple[bytes, bytes]]:
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    at = len(SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        yield kind, data[at + 8 : at + 8 + length]
        at += 12 + length


def _add_rows(row: bytes, above: bytes) -> bytes:
    """Byte-wise ``(row + above) % 256`` without a Python loop (SWAR on big integers)."""
    size = len(row)
    low7 = int.from_bytes(b"\x7f" * size, "big")
    high = int.from_bytes(b"\x80" * size, "big")
    x, y = int.from_bytes(row, "big"), int.from_bytes(above, "big")
    total = ((x & low7) + (y & low7)) ^ ((x ^ y) & high)
    return total.to_bytes(size, "big")


def decode(data: bytes) -> Picture:
    """Pixels of an 8-bit RGB/RGBA, non-interlaced PNG filtered None/Up (else ValueError)."""
    header = b""
    compressed: list[bytes] = []
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            compressed.append(body)
    if len(header) != 13:
        raise ValueError("PNG without a valid IHDR chunk")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    channels = _CHANNELS.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError("only 8-bit RGB/RGBA, non-interlaced PNGs are decoded here")
    raw = zlib.decompress(b"".join(compressed))
    stride = width * channels
    if len(raw) < height * (stride + 1):
        raise ValueError("PNG data is shorter than its size says")
    rows: list[bytes] = []
    above = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], raw[start + 1 : start + 1 + stride]
        if kind == 2:
            row = _add_rows(row, above)
        elif kind != 0:
            raise ValueError(f"PNG row filter {kind} is not decoded here (only None and Up)")
        rows.append(row)
        above = row
    return Picture(width, height, channels, rows)


def shrink(picture: Picture, max_px: int) -> Picture:
    """Nearest-neighbour downscale by a whole step so the longest edge is <= ``max_px``."""
    step = max(1, -(-max(picture.width, picture.height) // max_px))
    if step == 1:
        return picture
    c = picture.channels
    width, height = -(-picture.width // step), -(-picture.height // step)
    rows: list[bytes] = []
    for y in range(0, picture.height, step):
        source = picture.rows[y]
        out = bytearray(width * c)
        for channel in range(c):
            out[channel::c] = source[channel :: step * c][:width]
        rows.append(bytes(out))
    return Picture(width, height, c, rows)


def thumbnail_png(data: bytes, max_px: int) -> bytes:
    """A PNG no larger than ``max_px`` on its longest edge (``ValueError`` if not decodable)."""
    small = shrink(decode(data), max_px)
    return encode(small.width, small.height, small.rows, alpha=small.channels == 4)
