"""The first or last frame of a video result, as a PNG beside the video in the media cache.

PyAV decodes it (CPython); without PyAV (the browser) ``any_frame_png`` takes a frame
shipped with the video (stock clips) or has a panel on the page draw it (``_frame_sources``).
The PNG names its video (``_provenance``), so the next request records it as parent.
"""

from __future__ import annotations

import tempfile
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb import _frame_sources
from mediagen_nb._frame_sources import FrameDrawer, Which
from mediagen_nb._platform import has_module, off_loop
from mediagen_nb._png import encode_rgb
from mediagen_nb._provenance import embed

from ._files import safe_file_name, write_atomic

if TYPE_CHECKING:
    from ._tasks import Task

TAIL_SECONDS = 2.0
"""The last frame is looked for in the final seconds (a seek), not by decoding everything."""


def _rgb_png(frame: Any) -> bytes:
    rgb = frame.reformat(format="rgb24")
    plane = rgb.planes[0]
    width, height, line = rgb.width, rgb.height, plane.line_size
    raw = bytes(plane)
    return encode_rgb(width, height, (raw[y * line : y * line + width * 3] for y in range(height)))


def _decode(data: bytes, which: Which, seek: bool) -> Any:
    import av

    with av.open(BytesIO(data), mode="r") as container:
        stream = container.streams.video[0]
        if seek and stream.duration and stream.time_base:
            back = int(TAIL_SECONDS / float(stream.time_base))
            container.seek(max(0, stream.duration - back), stream=stream, backward=True)
        found = None
        for frame in container.decode(stream):
            found = frame
            if which == "first":
                break
        return _rgb_png(found) if found is not None else None


def frame_png(data: bytes, which: Which) -> bytes:
    """The first or last frame of an MP4/WebM as PNG bytes (CPU work: call off the loop).

    Args:
        data: The video file's bytes.
        which: ``"first"`` or ``"last"``.

    Returns:
        The frame as PNG bytes.

    Raises:
        ImportError: PyAV is missing (a browser kernel).
        ValueError: The file has no decodable video frame.
    """
    try:
        import av  # noqa: F401 - checked here to say what is missing
    except ImportError as exc:
        raise ImportError(
            "reading a video frame needs PyAV (pip install av), which a browser kernel lacks"
        ) from exc
    png = _decode(data, which, seek=which == "last")
    if png is None and which == "last":
        png = _decode(data, which, seek=False)
    if png is None:
        raise ValueError("the video has no decodable frame")
    return bytes(png)


def video_size(data: bytes) -> tuple[int, int] | None:
    """A video's frame size from its stream header.

    Args:
        data: The video file's bytes.

    Returns:
        ``(width, height)`` in pixels, or None without PyAV or for a file with no video.
    """
    try:
        import av
    except ImportError:
        return None
    try:
        with av.open(BytesIO(data), mode="r") as container:
            context = container.streams.video[0].codec_context
            return int(context.width), int(context.height)
    except (av.FFmpegError, IndexError):
        return None


async def any_frame_png(
    data: bytes, which: Which, *, mime: str = "video/mp4", drawer: FrameDrawer | None = None
) -> bytes:
    """The first or last frame as PNG bytes, wherever this runs.

    PyAV when installed; otherwise (the browser) ``drawer``, the front end to ask, when given;
    else a frame shipped with the video (the emulator's stock clips); else the newest panel
    shown on the page.

    Args:
        data: The video file's bytes.
        which: ``"first"`` or ``"last"``.
        mime: The video's MIME type, for a front end's ``<video>``.
        drawer: The front end to ask without PyAV (the panel whose card was clicked).

    Returns:
        The frame as PNG bytes.

    Raises:
        FrameUnavailableError: No PyAV, no known frame, and no front end answered.
        ValueError: The file has no decodable video frame (PyAV).
    """
    if has_module("av"):
        return await off_loop(frame_png, data, which)
    if drawer is None:
        known = _frame_sources.known_frame(data, which)
        if known is not None:
            return known
    return await _frame_sources.draw(data, which, mime=mime, drawer=drawer)


async def video_frame(task: Task, which: Which) -> Path:
    """Write the task's first or last frame as a PNG next to its cached video; return it."""
    if task.family_info.kind != "video":
        raise ValueError(f"task {task.id} is an image task; frames come from video tasks")
    data = await task.read_bytes()
    png = await any_frame_png(data, which)
    png = embed(png, {"task_id": task.id, "frame": which, "family": task.family})
    folder = (
        Path(task.local_path).parent
        if task.local_path
        else Path(tempfile.gettempdir()) / "mediagen_nb-frames"
    )
    name = safe_file_name(f"{task.id}.{which}-frame.png")

    def write() -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        return write_atomic(folder / name, png)

    return await off_loop(write)
