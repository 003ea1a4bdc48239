"""One gallery entry of an image or video panel: a task's state, its request and its preview.

A ``Result`` is plain kernel-side state; the panel sends every result's ``to_json()`` in its
``results`` list trait (throttled, at most 4 batches a second for all cards together) and the
preview bytes in its ``media`` dict trait (only when a preview arrives). Preview bytes are
small: a WebP thumbnail for images (``_preview.thumbnail``), the MP4 when within the cap.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from mediagen_nb.catalog import model_title
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._preview import full_image, sniff_mime, thumbnail, video_preview

_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "video/mp4": ".mp4"}
_ids = itertools.count(1)
TERMINAL = ("completed", "failed", "cancelled")


def prompt_of(body: dict[str, Any]) -> str:
    """The prompt of a request body (Seedance keeps it in ``content``)."""
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    for item in body.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text":
            return str(item.get("text", ""))
    return ""


@dataclass
class Result:
    """A task shown in the gallery (newest first)."""

    kind: str
    family: str
    family_title: str
    body: dict[str, Any]
    id: str = field(default_factory=lambda: f"r{next(_ids)}")
    task_id: str = ""
    status: str = "queued"
    elapsed: float = 0.0
    eta: tuple[float, float] = (0.0, 0.0)
    error: str = ""
    note: str = ""
    thumbnail: bytes = b""
    thumbnail_mime: str = "image/webp"
    video: bytes = b""
    video_mime: str = "video/mp4"
    file_name: str = "result"
    local_path: str = ""
    resumed: bool = False
    source: bytes = field(default=b"", repr=False)

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def prompt(self) -> str:
        return prompt_of(self.body)

    @property
    def title(self) -> str:
        """Readable model title (the family's when the model has none)."""
        title = model_title(self.model)
        return title if title != self.model or not self.model else f"{self.family_title} {title}"

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    @property
    def preview_bytes(self) -> bytes:
        """What the browser shows: the thumbnail (images) or the video bytes."""
        return self.video if self.kind == "video" else self.thumbnail

    def code(self) -> str:
        """The client call that makes this request again."""
        return code_for(self.kind, self.body, self.family)  # type: ignore[arg-type]

    def follow(self, task: Any) -> None:
        """Take the state of a client ``Task`` handle."""
        self.task_id = task.id
        self.status = task.status
        self.elapsed = float(task.elapsed)
        if task.error:
            self.error = str(task.error)

    def to_json(self) -> dict[str, Any]:
        """What the front end needs to draw the card (no bytes: those go in ``media``)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "task_id": self.task_id,
            "title": self.title,
            "model": self.model,
            "family": self.family,
            "prompt": self.prompt[:500],
            "status": self.status,
            "elapsed": round(self.elapsed, 1),
            "eta": [round(self.eta[0], 1), round(self.eta[1], 1)],
            "error": self.error,
            "note": self.note,
            "file_name": self.file_name,
            "has_media": bool(self.preview_bytes),
            "resumed": self.resumed,
            "code": self.code(),
        }

    def set_media(self, data: bytes, task_id: str, local_path: str | None) -> None:
        """Build the preview from the result bytes (pure CPU work: fine in a thread)."""
        self.source = data
        self.file_name = f"{task_id}{_SUFFIX.get(sniff_mime(data), '.bin')}"
        if local_path:
            self.local_path = local_path
        if self.kind == "video":
            self.video, self.video_mime, note = video_preview(data)
            if note:
                self.note = note + (f" ({local_path})" if local_path else "")
        else:
            self.thumbnail, self.thumbnail_mime = thumbnail(data)

    def media_json(self) -> dict[str, Any]:
        """The ``media`` trait entry: preview bytes and their MIME type."""
        if self.kind == "video":
            return {"data": self.video, "mime": self.video_mime}
        return {"data": self.thumbnail, "mime": self.thumbnail_mime}

    def full(self) -> tuple[bytes, str]:
        """The bounded full-size image (or the video), for the lightbox and Save."""
        source = self.source
        if not source and self.local_path:
            from pathlib import Path

            source = Path(self.local_path).read_bytes()
        if not source:
            raise ValueError("the result's file is not available any more")
        if self.kind == "video":
            return source, self.video_mime
        return full_image(source)
