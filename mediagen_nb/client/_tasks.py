"""The ``Task`` handle: one image or video task, polled until it ends.

Pace, deadlines and status words: the design page, "How a task is polled".
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never
from urllib.parse import quote

from mediagen_nb._platform import off_loop
from mediagen_nb.catalog import Family, TaskStatus
from mediagen_nb.types import TaskResult

from ._config import get_logger
from ._context import ClientContext
from ._exceptions import (
    APIConnectionError,
    MediagenError,
    RateLimitError,
    ServerError,
    TaskCancelledError,
    TaskFailedError,
    TaskTimeoutError,
)
from ._files import safe_file_name, write_atomic
from ._http import SPEED_HEADER, parse_speed
from ._pace import PollPace, poll_pace
from ._parse import parse_answer
from ._recording import media_suffix

if TYPE_CHECKING:
    from PIL.Image import Image

logger = get_logger("mediagen_nb.client")

OnUpdate = Callable[["Task"], Awaitable[None] | None]
ASSUMED_URL_LIFETIME_S = 24 * 3600.0
"""A result URL's lifetime where the catalog has none (the spec's documented 24 h)."""

_ALIASES: dict[str, TaskStatus] = {
    "queued": "queued",
    "pending": "queued",
    "submitted": "queued",
    "processing": "processing",
    "running": "processing",
    "in_progress": "processing",
    "completed": "completed",
    "succeeded": "completed",
    "success": "completed",
    "failed": "failed",
    "error": "failed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
}


def _resolve(future: asyncio.Future[None], sleeper: asyncio.Future[Any] | None = None) -> None:
    """Wake a pause; an injected sleep that failed passes its exception on."""
    if future.done():
        return
    error = None if sleeper is None or sleeper.cancelled() else sleeper.exception()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(None)


def normalize_status(raw: object) -> TaskStatus:
    """The service's status word as one of the five known statuses (``_ALIASES``)."""
    word = str(raw).strip().lower() if raw is not None else ""
    return _ALIASES.get(word, "processing")


def result_path(task_id: str) -> str:
    """``/v1/result/{id}`` with the id percent-encoded: it comes from the service, and a
    separator or control character in it must neither change the path nor break the URL."""
    return f"/v1/result/{quote(task_id, safe='')}"


class Task:
    """Handle on one image/video task: ``await task.wait()``, then read or download the result.

    Attributes: ``id``, ``family`` (family id), ``model``, ``status``, ``result`` (the last
    ``TaskResult``), ``error``, ``url``, ``polls`` (result requests made), ``elapsed``
    (seconds since this handle was made, frozen at a terminal state), ``created_at`` (Unix
    seconds, from the service), ``request`` (the create body), ``local_path`` (cached media).

    The client makes tasks (``images.create``, ``videos.create``, ``tasks.attach``); code
    seldom builds one itself.

    Args:
        context: The client's shared state (transport, clock, recorder).
        id: The task's id on the service.
        family: Its model family in the catalog.
        model: The model name.
        status: Its status as last known.
        result: The last result answer, when one is known.
        request: The create body.
        speed: The emulator's speed-up (1 for the real service), scaling the polling.
    """

    def __init__(
        self,
        context: ClientContext,
        *,
        id: str,
        family: Family,
        model: str,
        status: TaskStatus,
        result: TaskResult | None = None,
        request: dict[str, Any] | None = None,
        speed: float = 1.0,
    ) -> None:
        self._ctx = context
        self.id = id
        self.family = family.id
        self.family_info = family
        self.model = model
        self.status: TaskStatus = status
        self.result = result
        self.request = request
        self.speed = speed
        self.polls = 0
        self.local_path: str | None = None
        self.parents: list[str] = []
        """Ids of the tasks and assets this task was made from (its request's inputs)."""
        self.url_expires: float | None = None
        """Unix time the result URL stops working (see ``_note_url``; None: no URL yet)."""
        self.created_at = float(result.created) if result and result.created else time.time()
        self._started = context.clock()
        self._ended: float | None = None
        self._bytes: bytes | None = None
        self._cancel = asyncio.Event()
        self._wake: asyncio.Future[None] | None = None
        """The future a running ``_pause`` waits on (resolved early by ``cancel``)."""
        self._cancelled_locally = False
        self._stale = result is None
        """True for a re-attached handle: its status is a guess until the first refresh."""
        if self.done:
            self._ended = self._started
        self._note_url()

    def __repr__(self) -> str:
        return (
            f"Task(id={self.id!r}, family={self.family!r}, model={self.model!r}, "
            f"status={self.status!r}, polls={self.polls})"
        )

    @property
    def done(self) -> bool:
        """True in a terminal state (completed, failed, cancelled)."""
        return self.status in ("completed", "failed", "cancelled")

    @property
    def error(self) -> str | None:
        """The service's error text when failed."""
        return self.result.error if self.result is not None else None

    @property
    def url(self) -> str | None:
        """``image_url`` or ``video_url`` once completed."""
        return self.result.media_url if self.result is not None else None

    @property
    def elapsed(self) -> float:
        """Seconds from handle creation until now, or until the terminal state was seen."""
        end = self._ended if self._ended is not None else self._ctx.clock()
        return max(0.0, end - self._started)

    @property
    def poll_interval(self) -> float:
        """Seconds between result polls: the family's minimum for this model over speed
        (see ``poll_pace``)."""
        return self._pace().interval

    def default_timeout(self) -> float:
        """Deadline used by ``wait`` without ``timeout``, in seconds.

        ``max(600 s, 3 x the catalog's upper ETA) / speed``, never below 10 s; the speed is
        clamped to ``[1, 1000]``, so no header makes it longer than the real service's.
        """
        return self._pace().deadline

    def _pace(self) -> PollPace:
        """The polling rules at the current speed (the speed can change while polling)."""
        duration = self.request.get("duration") if self.request else None
        seconds = float(duration) if isinstance(duration, int | float) and duration > 0 else None
        return poll_pace(self.family_info, self.model, self.speed, duration=seconds)

    async def refresh(self) -> Task:
        """Fetch ``GET /v1/result/{id}`` once and update this handle."""
        data, response = await self._ctx.core.request(
            "GET", "base", result_path(self.id), idempotent=True
        )
        self.polls += 1
        self._stale = False
        speed = parse_speed(response.headers.get(SPEED_HEADER))
        self.speed = speed if speed is not None else 1.0
        self._apply(parse_answer(TaskResult, data, response))
        return self

    def _apply(self, result: TaskResult) -> None:
        if self._cancelled_locally:
            self.result = result
            return
        previous = self.status
        self.result = result
        if result.created:
            self.created_at = float(result.created)
        self.status = normalize_status(result.status)
        if self.status == previous:
            return
        rec = self._ctx.recorder
        if self.done:
            self._ended = self._ctx.clock()
        # every status event carries the poll count and elapsed time for the history row
        common: dict[str, Any] = {
            "family": self.family,
            "model": self.model,
            "polls": self.polls,
            "elapsed": self.elapsed,
        }
        rec.event("task", "status", self.id, status=self.status, **common)
        if self.status == "completed":
            self._note_url()
            rec.event(
                "task",
                "completed",
                self.id,
                url=self.url,
                result=result.model_dump(mode="json"),
                **common,
            )
        elif self.status == "failed":
            rec.event("task", "failed", self.id, error=self.error, **common)
        elif self.status == "cancelled":
            rec.event("task", "cancelled", self.id, **common)

    def _note_url(self) -> None:
        """When the result URL expires: now plus the family's lifetime (24 h where the spec
        gives none), over the emulator's speed, whose clock runs that much faster."""
        if self.url is None or self.url_expires is not None:
            return
        lifetime = self.family_info.url_lifetime_s or ASSUMED_URL_LIFETIME_S
        self.url_expires = time.time() + lifetime / self.speed
        self._ctx.note_url(self.url, self.id)

    async def wait(
        self,
        timeout: float | None = None,  # noqa: ASYNC109 - a polling deadline, not an I/O timeout
        on_update: OnUpdate | None = None,
        on_status: OnUpdate | None = None,
    ) -> Task:
        """Poll until the task ends, at its family's pace; return this handle when completed.

        Args:
            timeout: Seconds to wait at most (default ``default_timeout``).
            on_update: ``on_update(task)`` (sync or async) runs after every poll, also when
                nothing changed (a clock, a poll counter).
            on_status: ``on_status(task)`` (sync or async) runs only when the status changes
                (``queued`` -> ``processing`` -> ``completed``), not for the status the wait
                starts from: ``on_status=lambda t: print(t.status)`` prints each step once.

        Returns:
            This handle, completed and its media kept.

        Raises:
            TaskFailedError: The service reports the task failed.
            TaskCancelledError: The task was cancelled (here or by the service).
            TaskTimeoutError: ``timeout`` seconds passed first. Whatever the service's
                headers say, the wait ends by then, plus at most one poll's transport
                retries (``max_retries`` waits of at most 60 s each).
        """
        if self._stale:
            await self.refresh()
        limit = self.default_timeout() if timeout is None else timeout
        deadline = self._ctx.clock() + limit
        seen = self.status
        while True:
            status = self.status
            if self._cancelled_locally:
                raise TaskCancelledError(self.id, local=True)
            match status:
                case "completed":
                    await self._keep_media()
                    return self
                case "failed":
                    raise TaskFailedError(self.id, self.error)
                case "cancelled":
                    raise TaskCancelledError(self.id, local=False)
                case "queued" | "processing":
                    if await self._poll_once(deadline, limit, status):
                        await self._notify(on_update)
                        if self.status != seen:
                            seen = self.status
                            await self._notify(on_status)
                case _:
                    assert_never(status)

    async def _notify(self, on_update: OnUpdate | None) -> None:
        """Run ``on_update(self)``, awaiting it when it is a coroutine function."""
        if on_update is None:
            return
        outcome = on_update(self)
        if inspect.isawaitable(outcome):
            await outcome

    async def _poll_once(self, deadline: float, limit: float, status: TaskStatus) -> bool:
        """Sleep one interval (less near the deadline) and refresh; False if nothing new."""
        remaining = deadline - self._ctx.clock()
        if remaining <= 0:
            raise TaskTimeoutError(self.id, timeout=limit, status=status)
        await self._pause(min(self.poll_interval, remaining))
        if self._cancelled_locally:
            return False
        try:
            await self.refresh()
        except RateLimitError as exc:
            wanted = self._pace().after_busy(exc.retry_after)
            await self._pause(min(wanted, max(0.0, deadline - self._ctx.clock())))
            return False
        except (ServerError, APIConnectionError) as exc:
            # The transport already retried this poll; a short outage must not end a wait
            # whose deadline is far away. Polling is idempotent, so try again next interval.
            logger.info("poll of task %s failed (%s); polling again", self.id, exc)
            return False
        return True

    async def _pause(self, delay: float) -> None:
        """Sleep ``delay`` seconds, waking early if ``cancel`` is called.

        One future that the timer or ``cancel`` resolves: with a thousand tasks polling,
        a pause is the most frequent thing the loop does, and two helper tasks plus
        ``asyncio.wait`` per poll were a visible share of its time. An injected sleep
        function (tests) runs as one task that resolves the same future.
        """
        if self._cancel.is_set():
            return
        loop = asyncio.get_running_loop()
        wake: asyncio.Future[None] = loop.create_future()
        self._wake = wake
        stop: asyncio.TimerHandle | asyncio.Task[Any]
        if self._ctx.sleep is asyncio.sleep:
            stop = loop.call_later(delay, _resolve, wake)
        else:
            stop = asyncio.ensure_future(self._ctx.sleep(delay))
            stop.add_done_callback(lambda done: _resolve(wake, done))
        try:
            await wake
        finally:
            self._wake = None
            stop.cancel()

    def cancel(self) -> bool:
        """Stop waiting for this task and mark it cancelled here; False if it already ended.

        The spec shows no cancel endpoint, so nothing is sent: the service may still finish the
        task. A running ``wait`` raises ``TaskCancelledError`` (``local=True``).
        """
        if self.done:
            return False
        self._cancelled_locally = True
        self.status = "cancelled"
        self._ended = self._ctx.clock()
        self._cancel.set()
        if self._wake is not None:
            _resolve(self._wake)
        self._ctx.recorder.event(
            "task", "cancelled", self.id, family=self.family, model=self.model, local=True
        )
        return True

    async def _keep_media(self) -> None:
        """On completion, download the result once into the recorder's media cache."""
        rec = self._ctx.recorder
        if not rec.enabled or self.local_path is not None:
            return
        cached = rec.cached_media(self.id)
        if cached is not None:
            self.local_path = cached
            return
        try:
            data = await self._fetch()
        except MediagenError as exc:
            logger.warning("could not download the result of task %s: %s", self.id, exc)
            rec.event("task", "error", self.id, family=self.family, error=str(exc))
            return
        self.local_path = rec.store_media(self.id, data, media_suffix(data, self.family_info.kind))

    async def _fetch(self) -> bytes:
        if self._bytes is None:
            url = self.url
            if self.status != "completed" or not url:
                raise MediagenError(
                    f"task {self.id} has no result yet (status {self.status}); "
                    "await task.wait() first"
                )
            self._bytes = await self._ctx.core.download(url, self.family_info.kind)
        return self._bytes

    async def read_bytes(self) -> bytes:
        """The result's bytes: from the media cache if kept there, else downloaded (once)."""
        if self._bytes is not None:
            return self._bytes
        cached = self.local_path or self._ctx.recorder.cached_media(self.id)
        if cached is not None:
            try:
                kept = await off_loop(Path(cached).read_bytes)
            except OSError as exc:
                logger.warning("cached media %s unreadable (%s); downloading", cached, exc)
            else:
                if kept:
                    self._bytes = kept
                    return kept
                logger.warning("cached media %s is empty; downloading", cached)
                self.local_path = None
        data = await self._fetch()
        rec = self._ctx.recorder
        if rec.enabled and self.local_path is None:
            self.local_path = rec.store_media(
                self.id, data, media_suffix(data, self.family_info.kind)
            )
        return data

    async def download(self, path: str | Path) -> Path:
        """Write the result to a file; the bytes come from the media cache when kept there.

        The id comes from the service, so the name made of it is sanitised: the file always
        lands inside the directory. The write is atomic (temporary file, then rename).

        Args:
            path: A file to write, or an existing directory, which gets ``{id}{suffix}``
                (``.png``, ``.mp4``... from the file's content).

        Returns:
            The file written.

        Raises:
            MediagenError: The task has not completed (``await task.wait()`` first).
            ResponseTooLargeError: The result is larger than the client's download limit.
            APIError: The result URL answered with an error (an expired URL, for one).
            APIConnectionError: The result URL did not answer.
            OSError: The file cannot be written.
        """
        data = await self.read_bytes()
        name = safe_file_name(f"{self.id}{media_suffix(data, self.family_info.kind)}")

        def write() -> Path:
            target = Path(path)
            if target.is_dir():
                target = target / name
            return write_atomic(target, data)

        return await off_loop(write)

    async def save(self, path: str | Path) -> Path:
        """Like ``download``, with the request that made it inside the file.

        The model, parameters, prompt, task id and parents are written into the file's
        metadata; where the format has no room, into ``<name>.mediagen.json`` beside it.
        ``mediagen_nb.read_request(path)`` reads them back.

        Args:
            path: A file to write, or an existing directory, which gets ``{id}{suffix}``.

        Returns:
            The media file written.

        Raises:
            MediagenError: The task has not completed (``await task.wait()`` first).
            APIError: The result could not be downloaded.
            APIConnectionError: The result URL did not answer.
            OSError: The file cannot be written.
        """
        from ._saved import save_task

        return await save_task(self, path)

    async def first_frame(self) -> Path:
        """The video's first frame as a PNG in the media cache (PyAV, or in the browser a
        panel on the page draws it; see ``_frames``)."""
        from ._frames import video_frame

        return await video_frame(self, "first")

    async def last_frame(self) -> Path:
        """The video's last frame as a PNG in the media cache: the first frame of the next."""
        from ._frames import video_frame

        return await video_frame(self, "last")

    async def image(self) -> Image:
        """The result as a PIL image (image tasks; PIL is imported only here)."""
        try:
            from PIL import Image as PILImage
        except ImportError as exc:  # the browser: Pillow cannot be installed there
            raise ImportError(
                "task.image() needs Pillow (pip install pillow); "
                "await task.read_bytes() gives the file's bytes without it"
            ) from exc
        data = await self.read_bytes()
        picture = PILImage.open(BytesIO(data))
        picture.load()
        return picture
