"""A video's first and last frame pictures, when the request names the emulator's own files.

The real service starts a video from its ``first_frame`` / ``first_image`` picture; the
emulator does so for pictures it holds (uploads, its image results) and fetches nothing else.
Slots come from the catalog; pictures over ``MAX_ANCHOR_PIXELS`` are ignored.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from mediagen_nb._imagesize import image_size
from mediagen_nb.catalog import Family
from mediagen_nb.catalog._slots import MediaSlot, media_slots

if TYPE_CHECKING:
    from mediagen_nb.emulator._state import EmulatorState

MAX_ANCHOR_PIXELS: Final = 40_000_000
_UPLOAD = re.compile(r"/media/uploads/([A-Za-z0-9_-]{16,64})/[^/]*$")
_RESULT = re.compile(r"/media/([0-9a-f]{32})\.png$")


def _url_in(slot: MediaSlot, body: dict[str, Any]) -> str | None:
    if slot.field != "content":
        value = body.get(slot.field)
        return value if isinstance(value, str) else None
    content = body.get("content")
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict) or item.get("type") != "image_url":
            continue
        role = item.get("role") or "first_frame"
        image = item.get("image_url")
        if role == slot.content_role and isinstance(image, dict):
            url = image.get("url")
            return url if isinstance(url, str) else None
    return None


async def _picture(state: EmulatorState, url: str) -> bytes | None:
    path = url.split("?", 1)[0]
    found = _UPLOAD.search(path)
    data: bytes | None = None
    if found is not None and state.uploaded is not None:
        stored = state.uploaded(found.group(1))
        data = stored[1] if stored is not None else None
    result = _RESULT.search(path)
    if result is not None:
        task = state.tasks.by_token(result.group(1))
        if task is not None and task.spec is not None and task.spec.kind == "image":
            data = await state.tasks.media.get(task.id, task.spec)
    size = image_size(data) if data else None
    if size is None or size[0] * size[1] > MAX_ANCHOR_PIXELS:
        return None
    return data


async def frame_anchors(
    state: EmulatorState, fam: Family, body: Any
) -> tuple[bytes | None, bytes | None]:
    """The (first, last) frame pictures a video create body names, where the emulator has them."""
    if fam.kind != "video" or not isinstance(body, dict):
        return None, None
    found: dict[str, bytes | None] = {"first_frame": None, "last_frame": None}
    for slot in media_slots(fam.id):
        if slot.role in found and found[slot.role] is None:
            url = _url_in(slot, body)
            found[slot.role] = await _picture(state, url) if url else None
    return found["first_frame"], found["last_frame"]
