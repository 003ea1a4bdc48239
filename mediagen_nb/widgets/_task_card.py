"""``TaskCard``: live status and inline preview of one image or video task (anywidget).

The front end is ``static/task_card.js`` (hand-written ES module, no build step). Status
changes are applied through a ``Throttle`` (at most 4 comm messages per second per card);
the browser ticks elapsed time and "next poll" locally between updates. Preview bytes travel
over the comm (the browser may not reach the service host): a small JPEG thumbnail, the
bounded full image only on request, the video when small enough (see ``_preview``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets as t

from mediagen_nb.widgets._base import Throttle
from mediagen_nb.widgets._preview import full_image, thumbnail, video_preview

STATIC = Path(__file__).parent / "static"
CancelCallback = Callable[["TaskCard"], None]


class TaskCard(anywidget.AnyWidget):
    """One task's card; the panel feeds it with ``update()`` and ``set_media()``."""

    _esm = STATIC / "task_card.js"
    _css = STATIC / "task_card.css"

    task_id = t.Unicode("").tag(sync=True)
    """Service task id ("" until the create response arrives)."""
    label = t.Unicode("").tag(sync=True)
    """Family title and model, e.g. ``Nano Banana · nano-banana-pro``."""
    prompt = t.Unicode("").tag(sync=True)
    """The prompt (tooltip and image alt text)."""
    kind = t.Unicode("image").tag(sync=True)
    """``image`` or ``video``: which preview to build."""
    status = t.Unicode("queued").tag(sync=True)
    """queued, processing, completed, failed or cancelled."""
    elapsed = t.Float(0.0).tag(sync=True)
    """Seconds since the task was created, at the last update."""
    eta_low = t.Float(0.0).tag(sync=True)
    """Lower estimate of the generation time in seconds (catalog)."""
    eta_high = t.Float(0.0).tag(sync=True)
    """Upper estimate of the generation time in seconds (catalog); the progress bar's end."""
    polls = t.Int(0).tag(sync=True)
    """Result polls made so far."""
    next_poll = t.Float(0.0).tag(sync=True)
    """Seconds until the next poll, at the last update (0: none planned)."""
    error = t.Unicode("").tag(sync=True)
    """The service's error text (failed), or why waiting stopped."""
    note = t.Unicode("").tag(sync=True)
    """A softer remark, e.g. that a large video was not sent to the browser."""
    thumbnail = t.Bytes(b"").tag(sync=True)
    """Small image preview (JPEG, at most 512 px)."""
    thumbnail_mime = t.Unicode("image/jpeg").tag(sync=True)
    """MIME type of ``thumbnail``."""
    full = t.Bytes(b"").tag(sync=True)
    """Bounded full-size image, sent only when the user clicks or saves."""
    full_mime = t.Unicode("image/png").tag(sync=True)
    """MIME type of ``full``."""
    video = t.Bytes(b"").tag(sync=True)
    """The MP4 preview (empty when above the preview limit)."""
    video_mime = t.Unicode("video/mp4").tag(sync=True)
    """MIME type of ``video``."""
    file_name = t.Unicode("result").tag(sync=True)
    """Name offered by the Save button."""
    local_path = t.Unicode("").tag(sync=False)
    """Where the media cache keeps the full file (kernel side only)."""

    def __init__(
        self,
        *,
        label: str = "",
        kind: str = "image",
        prompt: str = "",
        eta: tuple[float, float] = (0.0, 0.0),
        **kwargs: Any,
    ) -> None:
        unknown = set(kwargs) - set(self.trait_names())
        if unknown:
            raise TypeError(f"TaskCard got unknown arguments: {', '.join(sorted(unknown))}")
        super().__init__(
            label=label, kind=kind, prompt=prompt, eta_low=eta[0], eta_high=eta[1], **kwargs
        )
        self._pending: dict[str, Any] = {}
        self._throttle = Throttle(self, self._apply)
        self._cancel_callbacks: list[CancelCallback] = []
        self._source: bytes = b""
        self.on_msg(self._on_custom_msg)

    def __repr__(self) -> str:
        parts = [f"{self.label}", self.task_id or "(no id yet)", self.status]
        if self.error:
            parts.append(f"error: {self.error}")
        if self.local_path:
            parts.append(f"file: {self.local_path}")
        return "TaskCard: " + " · ".join(p for p in parts if p)

    @property
    def updates_sent(self) -> int:
        """Throttled update batches sent so far (tests check the rate)."""
        return self._throttle.applied

    # --- state ------------------------------------------------------------------------------

    def update(self, **values: Any) -> None:
        """Queue trait changes (``status=``, ``polls=``...); sent at most 4 times per second."""
        unknown = set(values) - set(self.trait_names())
        if unknown:
            raise TypeError(f"unknown TaskCard fields: {', '.join(sorted(unknown))}")
        self._pending.update(values)
        self._throttle.request()

    def update_from(self, task: Any) -> None:
        """Queue the state of a client ``Task`` handle."""
        self.update(
            task_id=task.id,
            status=task.status,
            elapsed=float(task.elapsed),
            polls=int(task.polls),
            next_poll=0.0 if task.done else float(task.poll_interval),
            error=task.error or "",
        )

    def _apply(self) -> None:
        pending, self._pending = self._pending, {}
        for name, value in pending.items():
            setattr(self, name, value)

    def flush(self) -> None:
        """Send queued changes now."""
        self._throttle.flush()

    async def drain(self) -> None:
        """Wait until queued changes have been sent."""
        await self._throttle.drain()

    def set_media(self, data: bytes, *, file_name: str, local_path: str | None = None) -> None:
        """Build the preview from the result bytes (thumbnail, or video within the cap)."""
        self._source = data
        if local_path:
            self.local_path = local_path
        self.update(**media_values(self.kind, data, file_name, local_path))

    async def set_media_async(
        self, data: bytes, *, file_name: str, local_path: str | None = None
    ) -> None:
        """``set_media`` with the image work done in a thread (the loop stays responsive)."""
        self._source = data
        if local_path:
            self.local_path = local_path
        values = await asyncio.to_thread(media_values, self.kind, data, file_name, local_path)
        self.update(**values)

    @property
    def preview_bytes(self) -> bytes:
        """What the browser shows: the thumbnail (images) or the video bytes."""
        return bytes(self.video if self.kind == "video" else self.thumbnail)

    def load_full(self) -> None:
        """Send the bounded full-size image (on the user's click or Save)."""
        source = self._source
        if not source and self.local_path:
            source = Path(self.local_path).read_bytes()
        if not source or self.kind != "image":
            return
        data, mime = full_image(source)
        self.update(full=data, full_mime=mime)

    # --- cancel -----------------------------------------------------------------------------

    def on_cancel(self, callback: CancelCallback, remove: bool = False) -> None:
        """Call ``callback(card)`` when Cancel is pressed (or ``cancel()`` called)."""
        if remove:
            if callback in self._cancel_callbacks:
                self._cancel_callbacks.remove(callback)
        elif callback not in self._cancel_callbacks:
            self._cancel_callbacks.append(callback)

    def cancel(self) -> None:
        """Programmatic Cancel button."""
        for callback in list(self._cancel_callbacks):
            callback(self)

    def _on_custom_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        action = content.get("action") if isinstance(content, dict) else None
        if action == "cancel":
            self.cancel()
        elif action == "full":
            try:
                self.load_full()
            except Exception as exc:  # shown on the card: a browser click has no error area
                self.update(note=f"full-size image unavailable: {type(exc).__name__}: {exc}")


def media_values(kind: str, data: bytes, file_name: str, local_path: str | None) -> dict[str, Any]:
    """Trait values of a result's preview (pure; safe to run in a worker thread)."""
    values: dict[str, Any] = {"file_name": file_name}
    if kind == "video":
        video, mime, note = video_preview(data)
        values |= {"video": video, "video_mime": mime}
        if note:
            values["note"] = note + (f" ({local_path})" if local_path else "")
    else:
        thumb, mime = thumbnail(data)
        values |= {"thumbnail": thumb, "thumbnail_mime": mime}
    return values
