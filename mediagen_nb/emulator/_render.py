"""What a task's result looks like (size, length, tokens) and a bounded cache of its bytes.

Media are rendered on first download and kept in an LRU cache of ``MAX_MEDIA_BYTES``; the
choices (durations, preview sizes, vidu tokens) are in ``docs/reference/design.md``.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final, Literal

from starlette.concurrency import run_in_threadpool

from mediagen_nb._imagesize import image_size
from mediagen_nb._platform import has_module, is_browser
from mediagen_nb.catalog import Family
from mediagen_nb.catalog._params import STARVIDEOS_VIDEO_SECONDS
from mediagen_nb.emulator._clips import stock_clip
from mediagen_nb.emulator._conventions import media_seconds, prompt_text
from mediagen_nb.emulator._media import (
    HAVE_PIL,
    image_pixels,
    render_mp4,
    render_png,
    video_pixels,
)
from mediagen_nb.emulator._media_anchored import render_mp4_from

CAN_ENCODE_VIDEO: Final = HAVE_PIL and has_module("av")
"""Videos are rendered for each task with av and Pillow; elsewhere a stock clip (``_clips``)."""
MAX_MEDIA_BYTES: Final = 256 * 1024 * 1024
"""Upper bound of rendered media kept in memory."""
MAX_TITLE_CHARS: Final = 400
_DEFAULT_SECONDS: Final = {"sora": 4, "seedance": 5, "starvideos": 3}


@dataclass(frozen=True)
class MediaSpec:
    """Everything needed to render a task's result, fixed at creation."""

    kind: Literal["image", "video"]
    width: int
    height: int
    seconds: float | None
    title: str
    lines: tuple[str, ...]
    first_frame: bytes | None = None
    """A picture the video starts from (``_anchors``), drawn by ``render_mp4``."""
    last_frame: bytes | None = None
    """A picture the video ends on."""

    @property
    def suffix(self) -> str:
        """``png`` or ``mp4``."""
        return "png" if self.kind == "image" else "mp4"

    @property
    def content_type(self) -> str:
        """The media type served for it."""
        return "image/png" if self.kind == "image" else "video/mp4"


def clean_text(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """Printable text for a picture: no control characters or lone surrogates, bounded."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    kept = (" " if unicodedata.category(ch)[0] == "C" and ch != "\n" else ch for ch in text[:limit])
    return "".join(kept).strip() or "(no prompt)"


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def actual_seconds(
    family: Family, body: dict[str, Any], pick: float, reference_seconds: float | None = None
) -> float:
    """The video's length in seconds (rules on the design page); ``pick`` in [0, 1) is seeded.

    ``reference_seconds`` is the length of a starvideos reference video when the caller
    knows it (an ``asset://`` reference: its asset's URL); else it is read from the URL.
    """
    fid = family.id
    refs = body.get("referenceVideos")
    if fid == "starvideos" and isinstance(refs, list) and refs and isinstance(refs[0], str):
        seconds = media_seconds(refs[0]) if reference_seconds is None else reference_seconds
        low, high = STARVIDEOS_VIDEO_SECONDS
        return min(high, max(low, seconds))
    wanted = _whole(body.get("duration"))
    if wanted is None and fid == "sora":
        wanted = _whole(body.get("seconds"))
    if fid == "seedance" and wanted == -1:
        return float(4 + int(pick * 9))
    span = family.duration_range
    if wanted is not None and span is not None and span[0] <= wanted <= span[1]:
        return float(wanted)
    if fid in _DEFAULT_SECONDS:
        return float(_DEFAULT_SECONDS[fid])
    return float(span[0]) if span else 8.0


def _video_shape(family: Family, body: dict[str, Any]) -> str:
    for key in ("ratio", "aspect_ratio", "size"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    return {"sora": "720x1280", "starvideos": "9:16"}.get(family.id, "16:9")


def total_tokens(model: str, seconds: float) -> int:
    """vidu ``totalTokens`` for a video of ``seconds``: 1,000 a second, 2,000 for pro models."""
    return round(seconds * (2000 if "pro" in model else 1000))


def media_spec(
    family: Family,
    model: str,
    body: dict[str, Any],
    pick: float,
    reference_seconds: float | None = None,
    *,
    anchors: tuple[bytes | None, bytes | None] = (None, None),
) -> MediaSpec:
    """The result a valid create body asks for (``reference_seconds``: see ``actual_seconds``;
    ``anchors``: first and last frame pictures; an ``adaptive`` ratio takes the first's)."""
    title = clean_text(prompt_text(body))
    head = f"{family.title} · {clean_text(model, 80)}"
    if family.kind == "image":
        try:
            width, height = image_pixels(family.id, model, body)
        except ValueError:
            width, height = 1024, 1024
        detail = [f"{width}x{height}"]
        detail += [
            clean_text(str(body[k]), 40)
            for k in ("resolution", "ratio", "size", "quality")
            if isinstance(body.get(k), str)
        ]
        lines = (head, " · ".join(detail), "mediagen_nb emulator")
        return MediaSpec("image", width, height, None, title, lines)
    shape = _video_shape(family, body)
    anchor_size = image_size(anchors[0]) if anchors[0] else None
    if anchor_size is not None and family.id == "seedance" and not body.get("ratio"):
        shape = "adaptive"  # seedance: image-to-video defaults to adaptive (spec)
    if anchor_size is not None and shape == "adaptive":
        shape = f"{anchor_size[0]}x{anchor_size[1]}"
    try:
        width, height = video_pixels(shape)
    except ValueError:
        width, height = video_pixels(None)
    seconds = actual_seconds(family, body, pick, reference_seconds)
    lines = (
        head,
        f"{clean_text(shape, 20)} · {seconds:g} s · preview {width}x{height}",
        "mediagen_nb emulator",
    )
    return MediaSpec("video", width, height, seconds, title, lines, *anchors)


def render(spec: MediaSpec) -> bytes:
    """Render the file (CPU-bound: call it off the event loop)."""
    if spec.kind == "image":
        return render_png(spec.width, spec.height, title=spec.title, lines=list(spec.lines))
    assert spec.seconds is not None
    if not CAN_ENCODE_VIDEO:
        return stock_clip(spec.width, spec.height)
    if spec.first_frame is not None:
        return render_mp4_from(
            spec.width, spec.height, spec.seconds, spec.first_frame, spec.last_frame
        )
    return render_mp4(
        spec.width, spec.height, spec.seconds, title=spec.title, lines=list(spec.lines)
    )


class MediaCache:
    """Rendered media by task id: LRU, at most ``max_bytes``, one render per id at a time."""

    def __init__(self, max_bytes: int = MAX_MEDIA_BYTES) -> None:
        self.max_bytes = max_bytes
        self.inline = is_browser()
        """Render on the event loop itself (the browser, in-process emulators: no thread)."""
        self.renders = 0
        """How many files were rendered (evicted files count again)."""
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._pending: dict[str, asyncio.Future[bytes]] = {}

    @property
    def size(self) -> int:
        """Bytes held."""
        return self._size

    def forget(self, key: str) -> None:
        """Drop a file (its task was purged)."""
        data = self._items.pop(key, None)
        if data is not None:
            self._size -= len(data)

    async def get(self, key: str, spec: MediaSpec) -> bytes:
        """The file for ``key``, rendering it once if needed."""
        data = self._items.get(key)
        if data is not None:
            self._items.move_to_end(key)
            return data
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            data = render(spec) if self.inline else await run_in_threadpool(render, spec)
        except Exception as error:
            future.set_exception(error)
            future.exception()  # mark retrieved: waiters (if any) re-raise it themselves
            raise
        except BaseException:
            future.cancel()
            raise
        finally:
            self._pending.pop(key, None)
        future.set_result(data)
        self.renders += 1
        self._items[key] = data
        self._size += len(data)
        while self._size > self.max_bytes and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self._size -= len(old)
        return data
