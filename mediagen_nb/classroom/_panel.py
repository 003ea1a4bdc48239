"""``ClassroomPanel``: the teacher's view of a running gateway, as one anywidget.

The wall's teacher controls in the notebook, with previews made by the kernel (the browser
may not reach the gateway). The one classroom module that imports widget code.
"""

from __future__ import annotations

import asyncio
import base64
import io
import time
from pathlib import Path
from typing import Any, Final

import traitlets as t

from mediagen_nb.classroom._handle import ClassroomHandle
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._wall import TEACHER_CHATS, TEACHER_REFUSALS
from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._where import shown_path

PREVIEW_PX: Final = 256


def preview_url(path: Path) -> str:
    """A small JPEG of the image at ``path`` as a ``data:`` URL ("" when it cannot be read)."""
    try:
        from PIL import Image

        with Image.open(path) as picture:
            picture.thumbnail((PREVIEW_PX, PREVIEW_PX))
            out = io.BytesIO()
            picture.convert("RGB").save(out, "JPEG", quality=80)
    except (ImportError, OSError, ValueError):
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


class ClassroomPanel(WidgetPanel):
    """The teacher's panel for a running classroom: the wall's items with previews, hide,
    usage per student, pause and export.

    Args:
        classroom: The handle ``start_classroom`` returned.
        export_dir: The folder the gallery's zip is exported to.
        refresh_s: Seconds between refreshes of items and usage.
        **kwargs: Passed to the panel base (``session=``).
    """

    _esm = esm("classroom_parts.js", "classroom_queue.js", "classroom.js")
    _css = css("classroom.css")
    title = "Classroom"

    items = t.List(t.Dict()).tag(sync=True)
    """Wall items, newest first (hidden ones included, marked), with previews for images."""
    approval = t.Bool(False).tag(sync=True)
    """Whether the wall shows only approved items (the queue is shown then)."""
    queue = t.List(t.Dict()).tag(sync=True)
    """Items waiting for approval, oldest first, with previews."""
    refusals = t.List(t.Dict()).tag(sync=True)
    """Prompts the class's rules refused, newest first."""
    chats = t.List(t.Dict()).tag(sync=True)
    """Students' chat turns, newest first: prompt, answer excerpt, tokens."""
    usage = t.List(t.Dict()).tag(sync=True)
    """One row per student: access, images, videos, running tasks, chat tokens."""
    paused = t.Bool(False).tag(sync=True)
    """Whether the class is paused."""
    wall_url = t.Unicode("").tag(sync=True)
    """The wall's address (view only; the teacher token is never synced)."""
    export_note = t.Unicode("").tag(sync=True)
    export_file = t.Unicode("").tag(sync=True)
    """The last gallery zip's absolute path (the export note's tooltip)."""
    """Where the last export went."""

    def __init__(
        self,
        classroom: ClassroomHandle,
        *,
        export_dir: str | Path = ".",
        refresh_s: float = 1.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.classroom = classroom
        self.export_dir = Path(export_dir)
        self.refresh_s = refresh_s
        self._seen = -1
        self._previews: dict[str, str] = {}
        self.wall_url = classroom.wall_url
        self.on_action(
            "hide", lambda m: self.hide(str(m.get("id", "")), bool(m.get("hidden", True)))
        )
        self.on_action("approve", lambda m: self.approve(str(m.get("id", ""))))
        self.on_action("pause", lambda m: self.pause(bool(m.get("paused", True))))
        self.on_action("export", lambda _m: self.export())
        self.refresh()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self.spawn(self._follow(), name="classroom-panel")

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.refresh_s)
            self.refresh()

    def _item(self, task: TaskRecord, waiting: bool = False) -> dict[str, Any]:
        src = ""
        if task.kind == "image" and task.media:
            src = self._previews.get(task.id) or preview_url(self.classroom.media_dir / task.media)
            self._previews[task.id] = src
        return {
            "id": task.id,
            "student": task.student,
            "prompt": task.prompt,
            "kind": task.kind,
            "model": task.model,
            "src": src,
            "hidden": task.hidden,
            "waiting": waiting,
        }

    def refresh(self) -> None:
        """Show the class as it is now (nothing is sent when nothing changed)."""
        state = self.classroom.state
        if state.version == self._seen:
            return
        self._seen = state.version
        tasks = state.wall_items(include_hidden=True)
        waiting = state.waiting()
        ids = {task.id for task in waiting}
        with self.hold_sync():
            self.items = [self._item(task, task.id in ids) for task in tasks]
            self.approval = state.moderation.approve
            self.queue = [self._item(task, True) for task in waiting]
            self.refusals = self.classroom.refusals()[:TEACHER_REFUSALS]
            self.chats = self.classroom.chats(limit=TEACHER_CHATS)
            self.usage = state.usage_table()
            self.paused = state.rules.paused

    def hide(self, task_id: str, hidden: bool = True) -> None:
        """Hide an item from the wall (``hidden=False``: show it again)."""
        self.classroom.hide(task_id, hidden)
        self.refresh()

    def approve(self, task_id: str | None = None) -> str | None:
        """Approve an item for the wall, as the queue's Approve button does.

        Args:
            task_id: the item (None: the first one waiting).

        Returns:
            The id approved, or None when nothing was waiting.

        Raises:
            KeyError: no item with this id in the class.
        """
        if task_id is None:
            self.refresh()  # the queue as it is now, not as the last tick saw it
            task_id = self.queue[0]["id"] if self.queue else None
            if task_id is None:
                return None
        self.classroom.approve(task_id)
        self.refresh()
        return task_id

    def pause(self, paused: bool = True) -> None:
        """Pause (or resume) the class."""
        if paused:
            self.classroom.pause()
        else:
            self.classroom.resume()
        self.refresh()

    def export(self, path: str | Path | None = None) -> Path:
        """Write the gallery zip (default: ``export_dir/class-gallery-<time>.zip``)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = Path(path) if path is not None else self.export_dir / f"class-gallery-{stamp}.zip"
        written = self.classroom.export(target)
        self.export_note = f"Gallery saved to {shown_path(written)}"
        self.export_file = str(written.absolute())
        return written

    def text_summary(self) -> str:
        """Readable text where widgets cannot load."""
        shown = sum(not item["hidden"] and not item["waiting"] for item in self.items)
        state = "paused" if self.paused else "running"
        waiting = f", {len(self.queue)} waiting for approval" if self.approval else ""
        return (
            f"Classroom ({state}): {len(self.usage)} students, {shown} items on the wall"
            f"{waiting}; wall at {self.wall_url}"
        )
