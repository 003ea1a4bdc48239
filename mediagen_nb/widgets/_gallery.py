"""The gallery of an image or video panel: one ``Result`` per task, and ``GalleryMixin``.

``GalleryMixin`` follows tasks into results, sends them and their previews to the front end
(throttled), and carries the card actions (Cancel, Remove, the full-size file, Save)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Coroutine
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from mediagen_nb._imagesize import image_size
from mediagen_nb._platform import off_loop
from mediagen_nb._provenance import embed, make_record
from mediagen_nb.catalog import FAMILIES, model_title
from mediagen_nb.catalog._controls import controls_for
from mediagen_nb.catalog._form_body import from_body
from mediagen_nb.widgets._base import Throttle
from mediagen_nb.widgets._card_actions import card_actions
from mediagen_nb.widgets._class_models import allowed
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._preview import full_image, sniff_mime, thumbnail, video_preview
from mediagen_nb.widgets._share import share_query
from mediagen_nb.widgets._where import save_note, where

_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "video/mp4": ".mp4"}
_ids = itertools.count(1)
TERMINAL = ("completed", "failed", "cancelled")
FOLLOW_S = 0.25
"""How often a re-attached card reads its task handle (no HTTP: the resume poller polls)."""
T = TypeVar("T")


def prompt_of(body: dict[str, Any], family_id: str) -> str:
    """The prompt of a request body, wherever the family's form puts it."""
    if family_id not in FAMILIES:  # a family no longer in the catalog: the plain field
        prompt = body.get("prompt")
        return prompt if isinstance(prompt, str) else ""
    values = from_body(family_id, body)
    keys = [c.key for c in controls_for(family_id) if c.carry == "prompt"]
    return str(values.get(keys[0]) or "") if keys else ""


def media_size(data: bytes, kind: str) -> tuple[int, int] | None:
    """Pixels of a picture, or a video's frame size (PyAV; None without it)."""
    if kind == "video":
        from mediagen_nb.client._frames import video_size

        return video_size(data)
    return image_size(data)


@dataclass
class Result:
    """A task shown in the gallery (newest first): plain kernel-side state, sent to the front
    end as ``to_json()`` in the panel's ``results`` trait and its preview in ``media``.

    Attributes:
        kind: ``"image"`` or ``"video"``.
        family: The catalog family id of the request.
        family_title: The family's name as the card shows it.
        body: The request body as sent.
        id: The card's id in the gallery (not the task's).
        task_id: The service's task id ("" until the create answer).
        status: The task's status (``queued``, ``processing``, ``completed``...).
        elapsed: Seconds since the task was created.
        eta: The family's expected duration, as (low, high) seconds.
        error: Why the task failed ("" otherwise).
        note: A line the card shows under the preview (e.g. why there is none).
        thumbnail: The image preview's bytes (WebP, small).
        thumbnail_mime: The MIME type of ``thumbnail``.
        video: The video preview's bytes (empty when too large to send).
        video_mime: The MIME type of ``video``.
        file_name: The name Save offers.
        local_path: Where the result's file is in the local media cache.
        resumed: The task was re-attached after a kernel restart.
        parents: Ids of the tasks and assets the request was made from.
        url: The result's service URL ("" until completed).
        url_expires: When ``url`` stops working (Unix seconds), if known.
        size: The picture's pixels (a video's frame size), read from the file's header.
        source: The result's full bytes, kept for Save and the card actions.
    """

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
    parents: list[str] = field(default_factory=list)
    """Ids of the tasks and assets the request was made from (its inputs)."""
    url: str = ""
    """The result's service URL ("" until completed)."""
    url_expires: float | None = None
    size: tuple[int, int] | None = None
    """The picture's pixels (a video's frame size), read from the file's header."""
    source: bytes = field(default=b"", repr=False)
    _code: str | None = field(default=None, repr=False)
    _actions: list[dict[str, Any]] | None = field(default=None, repr=False)
    _actions_for: frozenset[str] | None = field(default=None, repr=False)

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def prompt(self) -> str:
        return prompt_of(self.body, self.family)

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
        """The client call that makes this request again (built once: the body never changes)."""
        if self._code is None:
            self._code = code_for(self.kind, self.body, self.family)  # type: ignore[arg-type]
        return self._code

    def follow(self, task: Any) -> None:
        """Take the state of a client ``Task`` handle."""
        self.task_id = task.id
        self.parents = list(getattr(task, "parents", None) or [])
        self.url = str(getattr(task, "url", None) or "")
        self.url_expires = getattr(task, "url_expires", None)
        self.status = task.status
        self.elapsed = float(task.elapsed)
        if task.error:
            self.error = str(task.error)

    def to_json(self, models: frozenset[str] | None = None) -> dict[str, Any]:
        """What the front end needs to draw the card (no bytes: those go in ``media``);
        ``models``: what a class allows (None: every model), for the card's actions."""
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
            "share": share_query(self.kind, self.body),
            "parents": self.parents,
            "actions": self.actions_json(models),
        }

    def actions_json(self, models: frozenset[str] | None = None) -> list[dict[str, Any]]:
        """The card's Animate / Use as ... / Continue actions (``_card_actions``) once done,
        offering only families with a model the class allows (``models``; None: all)."""
        if self.status != "completed" or not (self.source or self.local_path):
            return []
        if self._actions is None or self._actions_for != models:  # the picture never changes
            actions = card_actions(self.kind, self.size, models)
            self._actions, self._actions_for = [a.to_json() for a in actions], models
        return self._actions

    def set_media(self, data: bytes, task_id: str, local_path: str | None) -> None:
        """Build the preview from the result bytes (pure CPU work: fine in a thread)."""
        self.source = data
        self.file_name = f"{task_id}{_SUFFIX.get(sniff_mime(data), '.bin')}"
        if local_path:
            self.local_path = local_path
        self.size = media_size(data, self.kind)
        if self.kind == "video":
            self.video, self.video_mime, note = video_preview(data)
            if note:
                self.note = note + (f" ({where(local_path)})" if local_path else "")
        else:
            try:
                self.thumbnail, self.thumbnail_mime = thumbnail(data)
            except ValueError as exc:  # no Pillow here and an image it cannot shrink
                self.note = str(exc) + (f" ({where(local_path)})" if local_path else "")

    def media_json(self) -> dict[str, Any]:
        """The ``media`` trait entry: preview bytes and their MIME type."""
        if self.kind == "video":
            return {"data": self.video, "mime": self.video_mime}
        return {"data": self.thumbnail, "mime": self.thumbnail_mime}

    def full(self) -> tuple[bytes, str]:
        """The bounded full-size image (or the video), for the lightbox and Save, carrying
        the request (``_provenance``: a PNG text chunk, an MP4 box; JPEG has no room)."""
        source = self.source
        if not source and self.local_path:
            from pathlib import Path

            source = Path(self.local_path).read_bytes()
        if not source:
            raise ValueError("the result's file is not available any more")
        data, mime = (source, self.video_mime) if self.kind == "video" else full_image(source)
        record = make_record(self.task_id, self.family, self.body, self.parents)
        return embed(data, record), mime  # Save keeps the request inside (PNG, MP4)


class GalleryMixin:
    """The gallery half of a generate panel: results, previews, card actions, following.

    Mixed into ``GeneratePanel`` (a ``WidgetPanel``), whose ``__init__`` sets ``_results``,
    ``_handles``, ``_throttle`` and ``_media_dirty``, and whose ``_push`` sends them.
    """

    kind: str
    session: Any
    results: Any
    media: Any
    sending: Any
    save_note: Any
    save_path: Any
    _results: list[Result]
    _handles: dict[str, Any]
    _throttle: Throttle
    _media_dirty: bool
    _sending: int

    if TYPE_CHECKING:  # provided by WidgetPanel (declared here for the type checker only)

        def spawn(
            self, coro: Coroutine[Any, Any, T], *, name: str | None = None
        ) -> asyncio.Task[T]: ...

        def send(self, content: dict[str, Any], buffers: list[bytes] | None = None) -> None: ...

        def hold_sync(self) -> AbstractContextManager[Any]: ...

    def follow(self, task: Any, *, resumed: bool = True) -> Result:
        """Show a task started elsewhere (re-attached after a restart) and follow it."""
        fam = task.family_info
        result = Result(
            kind=self.kind,
            family=fam.id,
            family_title=fam.title,
            body=dict(task.request or {"model": task.model}),
            eta=fam.eta(task.model, None),
            resumed=resumed,
        )
        result.follow(task)
        self._add(result, task)
        self.spawn(self._follow(task, result, poll=False), name=f"follow {task.id}")
        return result

    async def _follow(self, task: Any, result: Result, *, poll: bool = True) -> None:
        from mediagen_nb.client import TaskCancelledError, TaskFailedError, TaskTimeoutError

        def update(handle: Any) -> None:
            result.follow(handle)
            self._throttle.request()

        completed = False
        try:
            if poll:
                await task.wait(on_update=update)
                completed = True
            else:  # another poller (history.resume) polls; only read the handle
                while not task.done:
                    update(task)
                    await asyncio.sleep(FOLLOW_S)
                completed = task.status == "completed"
        except (TaskFailedError, TaskCancelledError):
            pass
        except TaskTimeoutError as exc:
            result.error = f"stopped waiting: {exc}"
        except Exception as exc:
            result.error = f"{type(exc).__name__}: {exc}"
            update(task)
            await self._throttle.drain()
            raise
        finally:
            self._handles.pop(result.id, None)
        if completed:
            data = await task.read_bytes()
            await off_loop(result.set_media, data, task.id, task.local_path)
            self._media_dirty = True
        update(task)
        await self._throttle.drain()

    # --- the gallery ------------------------------------------------------------------------

    @property
    def cards(self) -> list[Result]:
        """The gallery's results, newest first."""
        return list(self._results)

    @property
    def updates_sent(self) -> int:
        """Throttled gallery update batches sent so far (tests check the rate)."""
        return self._throttle.applied

    def _add(self, result: Result, task: Any) -> None:
        self._results.insert(0, result)
        if not task.done:
            self._handles[result.id] = task
        self._throttle.request()  # at once, or with the next batch (a burst is one message)

    def _find(self, result_id: str) -> Result:
        for result in self._results:
            if result.id == result_id:
                return result
        raise KeyError(f"no result {result_id!r} in the gallery")

    def cancel(self, result_id: str) -> None:
        """Cancel a running card's task (recorded in the ledger before the card shows it)."""
        result = self._find(result_id)
        task = self._handles.get(result_id)
        if task is not None and task.cancel():
            result.follow(task)
            self._throttle.request()

    def remove(self, result_id: str) -> None:
        """Take a card off the gallery (its running task is cancelled first)."""
        result = self._find(result_id)
        if not result.done:
            self.cancel(result_id)
        self._results.remove(result)
        self._media_dirty = True
        self._throttle.flush()

    def send_full(self, result_id: str, purpose: str = "view") -> None:
        """Send the bounded full-size file to the browser (lightbox or Save), not kept."""
        result = self._find(result_id)
        data, mime = result.full()
        self.send({"kind": "full", "id": result_id, "mime": mime, "purpose": purpose}, [data])

    def saved(self, result_id: str) -> None:
        """Say in the panel where a Save went: the browser downloaded the file under its name
        (into its own downloads folder), and where the original is, in the user's terms
        (``_where.save_note``); ``save_path`` keeps its full path (the note's tooltip)."""
        result = self._find(result_id)
        with self.hold_sync():
            self.save_path = result.local_path
            self.save_note = save_note(result.file_name, result.local_path)

    def _all_results(self) -> list[Result]:
        """Every card shown (the gallery's; Compare adds its rows' cards)."""
        return list(self._results)

    def _push_rows(self) -> None:
        """Send other card lists with the gallery's batch (Compare's rows)."""

    def _push(self) -> None:
        self.sending = self._sending
        models = allowed(self.session.classroom)
        self.results = [r.to_json(models) for r in self._results]
        self._push_rows()
        if self._media_dirty:
            self._media_dirty = False
            self.media = {r.id: r.media_json() for r in self._all_results() if r.preview_bytes}
