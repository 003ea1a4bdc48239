"""A saved file carries the request that made it: PNG text chunk, MP4 box, or a sidecar JSON.

PNG: an ``iTXt`` chunk ``mediagen`` (UTF-8 JSON) before ``IEND``; MP4: a top-level ``uuid``
box appended at the end (players skip it; no offset in ``moov`` moves); other formats get a
sidecar ``<file>.mediagen.json`` (:func:`sidecar_path`). Stdlib only.
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

KEYWORD = b"mediagen"
MP4_UUID = bytes.fromhex("6d6564696167656e5f6e62726571756e")
"""The 16-byte extended type of our MP4 box ("mediagen_nbrequn"; fixed forever)."""
_PNG = b"\x89PNG\r\n\x1a\n"
SIDECAR_SUFFIX = ".mediagen.json"
FORMAT = 1
"""Version of the saved record (its ``mediagen`` key)."""


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks, at = [], len(_PNG)
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        chunks.append((data[at + 4 : at + 8], data[at + 8 : at + 8 + length]))
        at += 12 + length
    return chunks


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _ours(kind: bytes, body: bytes) -> bool:
    return kind == b"iTXt" and body.startswith(KEYWORD + b"\x00")


def _mp4_boxes(data: bytes) -> list[tuple[int, int, bytes]]:
    """Top-level boxes as (offset, size, type); stops at anything malformed."""
    boxes, at = [], 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at : at + 8])
        if size == 1 and at + 16 <= len(data):
            (size,) = struct.unpack(">Q", data[at + 8 : at + 16])
        elif size == 0:
            size = len(data) - at
        if size < 8 or at + size > len(data):
            break
        boxes.append((at, size, kind))
        at += size
    return boxes


def can_embed(data: bytes) -> bool:
    """True for the formats that hold the request inside the file (PNG, MP4)."""
    return data.startswith(_PNG) or data[4:8] == b"ftyp"


def embed(data: bytes, payload: dict[str, Any]) -> bytes:
    """``data`` with ``payload`` inside (PNG or MP4); other formats come back unchanged.

    Args:
        data: The file's bytes.
        payload: JSON-able request description.

    Returns:
        The new bytes (check :func:`can_embed` first to know whether a sidecar is needed).
    """
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8")
    if data.startswith(_PNG):
        kept = [(k, b) for k, b in _png_chunks(data) if not _ours(k, b) and k != b"IEND"]
        ours = (b"iTXt", KEYWORD + b"\x00\x00\x00\x00\x00" + text)
        return _PNG + b"".join(_chunk(k, b) for k, b in [*kept, ours, (b"IEND", b"")])
    if data[4:8] == b"ftyp":
        boxes = _mp4_boxes(data)
        parts = [
            data[at : at + size]
            for at, size, kind in boxes
            if not (kind == b"uuid" and data[at + 8 : at + 24] == MP4_UUID)
        ]
        body = MP4_UUID + text
        return b"".join(parts) + struct.pack(">I4s", 8 + len(body), b"uuid") + body
    return data


def extract(data: bytes) -> dict[str, Any] | None:
    """The payload :func:`embed` put into ``data``, or None when there is none."""
    raw: bytes | None = None
    if data.startswith(_PNG):
        for kind, body in _png_chunks(data):
            if _ours(kind, body):
                raw = body[len(KEYWORD) + 5 :]
    elif data[4:8] == b"ftyp":
        for at, size, kind in _mp4_boxes(data):
            if kind == b"uuid" and data[at + 8 : at + 24] == MP4_UUID:
                raw = data[at + 24 : at + size]
    if raw is None:
        return None
    try:
        found = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def sidecar_path(path: Path) -> Path:
    """Where the request of a file that cannot hold it is written: ``<name>.mediagen.json``."""
    return path.with_name(path.name + SIDECAR_SUFFIX)


def read_file(path: Path) -> dict[str, Any] | None:
    """The request kept in ``path`` or in its sidecar, or None."""
    found = extract(path.read_bytes())
    if found is not None:
        return found
    side = sidecar_path(path)
    if side.is_file():
        try:
            loaded = json.loads(side.read_text("utf-8"))
        except ValueError:
            return None
        return loaded if isinstance(loaded, dict) else None
    return None


def prompt_of(body: dict[str, Any]) -> str | None:
    """The prompt of a request: ``prompt``, or the first seedance text content."""
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    for item in body.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text":
            return str(item.get("text") or "")
    return None


def make_record(
    task_id: str, family_id: str, body: dict[str, Any], parents: list[str] | tuple[str, ...]
) -> dict[str, Any]:
    """What a saved file carries: the ids, model, family, prompt, parameters and request."""
    body = dict(body)
    return {
        "mediagen": FORMAT,
        "task_id": task_id,
        "family": family_id,
        "model": body.get("model"),
        "prompt": prompt_of(body),
        "parameters": {k: v for k, v in body.items() if k not in ("model", "prompt")},
        "request": body,
        "parents": list(parents),
    }
