"""A panel's front end as the kernel's video decoder where PyAV is missing (the browser).

Once drawn, the page says ``{"action": "frames", "shown": true}``; the panel offers itself
(``_frame_sources``). ``draw`` sends ``{"kind": "frame", request, which, mime}`` + the video;
the page draws it (``<video>`` onto ``<canvas>``), answers ``{"action": "frame"}`` + the PNG.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

from mediagen_nb import _frame_sources
from mediagen_nb._frame_sources import FrameUnavailableError, Which

if TYPE_CHECKING:
    from mediagen_nb.widgets._base import WidgetPanel


class FrameDrawer:
    """The frame round trip of one panel (see the module docstring)."""

    def __init__(self, panel: WidgetPanel) -> None:
        self._panel = panel
        self._views = 0
        self._ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[bytes]] = {}
        """Requests sent and not yet answered, by request number."""
        panel.on_action("frames", self._shown)
        panel.on_action("frame", self._answered)

    @property
    def offered(self) -> bool:
        """Whether a view of the panel is on the page to draw frames."""
        return self._views > 0

    def _shown(self, message: dict[str, Any]) -> None:
        self._views = max(0, self._views + (1 if message.get("shown") else -1))
        if self._views:
            _frame_sources.add_drawer(self.draw)
        else:
            _frame_sources.remove_drawer(self.draw)

    def _answered(self, message: dict[str, Any]) -> None:
        future = self.waiting.pop(int(message.get("request") or 0), None)
        if future is None or future.done():
            return  # answered after the wait gave up
        buffers = message.get("buffers") or []
        error = str(message.get("error") or "")
        if error or not buffers or not buffers[0]:
            future.set_exception(
                FrameUnavailableError(f"the page could not draw the frame: {error or 'no image'}")
            )
        else:
            future.set_result(bytes(buffers[0]))

    async def draw(self, data: bytes, mime: str, which: Which) -> bytes:
        """Ask the page for the video's ``which`` frame; the PNG bytes it drew.

        Args:
            data: The video file's bytes.
            mime: Its MIME type.
            which: ``"first"`` or ``"last"``.

        Returns:
            The frame as PNG bytes.

        Raises:
            FrameUnavailableError: The page could not draw it.
        """
        request = next(self._ids)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.waiting[request] = future
        try:
            content = {"kind": "frame", "request": request, "which": which, "mime": mime}
            self._panel.send(content, [data])
            return await future
        finally:
            self.waiting.pop(request, None)

    def close(self) -> None:
        """Stop offering the panel and fail every request still waiting."""
        _frame_sources.remove_drawer(self.draw)
        self._views = 0
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(FrameUnavailableError("the panel was closed"))
        self.waiting.clear()
