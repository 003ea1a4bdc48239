"""Browser-safe media: a type read from the bytes (magic numbers of passive media, else
``application/octet-stream``), never the uploader's word; ``media_headers`` adds ``nosniff``,
a sandbox CSP and ``inline`` for passive media, ``attachment`` for everything else.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

OCTET_STREAM: Final = "application/octet-stream"
CSP: Final = "default-src 'none'; sandbox"

_SIGNATURES: Final[tuple[tuple[int, bytes, str], ...]] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (0, b"\x1a\x45\xdf\xa3", "video/webm"),
    (0, b"OggS", "audio/ogg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"%PDF-", "application/pdf"),
)
_RIFF: Final = {b"WEBP": "image/webp", b"WAVE": "audio/wav", b"AVI ": "video/x-msvideo"}
_FTYP_AUDIO: Final = frozenset({b"M4A ", b"M4B "})
_FTYP_QUICKTIME: Final = b"qt  "


def _mp3_frame(data: bytes) -> bool:
    return len(data) >= 2 and data[0] == 0xFF and data[1] & 0xE0 == 0xE0 and data[1] & 0x06 != 0


def _iso_media(data: bytes) -> str | None:
    """MP4 / MOV / M4A: an ISO base media file starts with a ``ftyp`` box."""
    if data[4:8] != b"ftyp":
        return None
    brand = data[8:12]
    if brand in _FTYP_AUDIO:
        return "audio/mp4"
    return "video/quicktime" if brand == _FTYP_QUICKTIME else "video/mp4"


def sniff(data: bytes) -> str | None:
    """The allow-listed media type the bytes are, or None (see the module docstring)."""
    for offset, magic, media_type in _SIGNATURES:
        if data[offset : offset + len(magic)] == magic:
            return media_type
    if data[:4] == b"RIFF" and data[8:12] in _RIFF:
        return _RIFF[data[8:12]]
    return _iso_media(data) or ("audio/mpeg" if _mp3_frame(data) else None)


def served_type(data: bytes) -> str:
    """The content type to serve ``data`` with: its sniffed type or octet-stream."""
    return sniff(data) or OCTET_STREAM


def media_headers(content_type: str, filename: str) -> dict[str, str]:
    """Headers every media response carries (see the module docstring)."""
    passive = content_type.startswith(("image/", "video/", "audio/"))
    safe_ascii = "".join(
        c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in filename
    )
    disposition = (
        f'{"inline" if passive else "attachment"}; filename="{safe_ascii}";'
        f" filename*=UTF-8''{quote(filename, safe='')}"
    )
    return {
        "x-content-type-options": "nosniff",
        "content-security-policy": CSP,
        "content-disposition": disposition,
    }
