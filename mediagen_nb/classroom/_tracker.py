"""Shared polling: one follower per task polls the upstream at the family's pace.

Students are answered from the gateway's copy; only the follower asks the upstream, stores a
completed result once in the class's media folder, and gives up at a deadline. On a shared
ledger the follower runs on the gateway holding the task's lease.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Final

import httpx2

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.classroom._media import MediaRefusedError, check_address, download
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._upstream import Upstream
from mediagen_nb.client import PollPace, poll_pace
from mediagen_nb.client._tasks import normalize_status

log = logging.getLogger("mediagen_nb.classroom")

MEDIA_TRIES: Final = 4
URL_FIELDS: Final = ("image_url", "video_url")


class Tracker:
    """Follows every task in flight (see the module docstring)."""

    def __init__(
        self, state: ClassState, upstream: Upstream, http: httpx2.AsyncClient, media_dir: Path
    ) -> None:
        self.state = state
        self.upstream = upstream
        self.http = http
        self.media_dir = media_dir
        self._followers: dict[str, asyncio.Task[None]] = {}
        shared = state.shared
        who = shared.holder if shared is not None else "gateway"
        self._agent = {"user-agent": f"mediagen-nb-classroom ({who})"}
        # On a shared ledger a poll ends within the lease renewed just before it.
        self._timeout = httpx2.Timeout(shared.lease_s / 2) if shared is not None else http.timeout

    def follow(self, record: TaskRecord, *, taken_over: bool = False) -> None:
        """Start following ``record`` on the running loop (once per task).

        Args:
            record: The task.
            taken_over: Its lease expired under another gateway, which last polled it at
                least a lease ago: the first poll comes that much sooner.
        """
        if record.done or record.refused or record.id in self._followers:
            return
        first = self.interval(record)
        if taken_over and self.state.shared is not None:
            first = max(0.0, first - self.state.shared.lease_s)
        task = asyncio.get_running_loop().create_task(self._follow(record, first))
        self._followers[record.id] = task
        task.add_done_callback(lambda _t: self._followers.pop(record.id, None))

    @property
    def following(self) -> int:
        """Tasks being followed now."""
        return len(self._followers)

    async def stop(self) -> None:
        """Cancel every follower (their tasks stay in the ledger for the next gateway)."""
        followers = list(self._followers.values())
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)

    def pace(self, record: TaskRecord) -> PollPace:
        """How often and how long ``record`` is polled: the client's rules, at the upstream's
        speed."""
        return poll_pace(FAMILIES.get(record.family), record.model, self.upstream.speed)

    def interval(self, record: TaskRecord) -> float:
        """Seconds between two upstream polls of ``record``."""
        return self.pace(record).interval

    def _deadline_s(self, record: TaskRecord) -> float:
        return self.pace(record).deadline

    async def _follow(self, record: TaskRecord, wait: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._deadline_s(record)
        try:
            while loop.time() < deadline:
                if not await self._wait(record, min(wait, deadline - loop.time())):
                    return  # another gateway follows it now
                wait = await self._poll(record)
                if record.done:
                    return
            minutes = self._deadline_s(record) / 60
            self._finish(record, "failed", f"the gateway stopped waiting after {minutes:.0f} min")
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not leave the task silently stuck
            log.exception("following task %s failed", record.id)
            self._finish(record, "failed", "the gateway could not follow this task")

    async def _wait(self, record: TaskRecord, seconds: float) -> bool:
        """Sleep ``seconds``; on a shared ledger, renew the lease at least every third of it
        and right before the poll. False once another gateway holds the task."""
        shared = self.state.shared
        if shared is None:
            await asyncio.sleep(max(0.0, seconds))
            return True
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        step = shared.lease_s / 3
        while True:
            left = end - loop.time()
            await asyncio.sleep(max(0.0, min(left, step)))
            if not shared.renew_lease(record.id):
                return False
            if left <= step:
                return True

    async def _poll(self, record: TaskRecord) -> float:
        """One upstream poll; returns the seconds to wait before the next."""
        interval = self.interval(record)
        try:
            response = await self.http.get(
                f"{self.upstream.base_url}/v1/result/{record.id}",
                headers={**self.upstream.auth_headers(), **self._agent},
                timeout=self._timeout,
            )
        except httpx2.HTTPError as error:
            log.info("poll of %s failed (%s); trying again", record.id, type(error).__name__)
            return interval
        record.upstream_polls += 1
        self.upstream.note_speed(response.headers)
        status = response.status_code
        if status in (429, 503):
            return self.pace(record).after_busy(response.headers.get("retry-after"))
        if status in (404, 410):
            self._finish(record, "failed", "the service no longer knows this task")
            return interval
        if status >= 400:
            return interval
        try:
            data = response.json()
        except ValueError:
            return interval
        if isinstance(data, dict):
            await self._apply(record, data)
        return interval

    async def _apply(self, record: TaskRecord, data: dict[str, Any]) -> None:
        status = normalize_status(data.get("status"))
        result = {k: v for k, v in data.items() if k not in URL_FIELDS}
        if status == "completed":
            url = next((data[k] for k in URL_FIELDS if isinstance(data.get(k), str)), None)
            if url is None:
                self._finish(record, "failed", "the service finished without a result URL")
                return
            shared = self.state.shared
            if shared is not None and not shared.renew_lease(record.id):
                return  # another gateway follows it now (and fetches it)
            media = await self._fetch(record, url)
            if media is None:
                return  # failed (refused), or try again at the next poll
            record.media = media
            record.result = result
            self._finish(record, "completed", None)
        elif status in ("failed", "cancelled"):
            record.result = result
            error = data.get("error")
            self._finish(record, status, str(error) if error else f"the task was {status}")
        elif status != record.status:
            record.status = status
            record.result = result
            self.state.put_task(record)

    def _finish(self, record: TaskRecord, status: str, error: str | None) -> None:
        record.status = status
        record.error = error
        self.state.put_task(record)
        self.state.ledger.log(record.student, status, record.id, error=error)

    async def _fetch(self, record: TaskRecord, url: str) -> str | None:
        """Download the result once; the stored file's name, or None after a failed try
        (a refused result fails the task: see ``_media``)."""
        headers = self.upstream.auth_headers() if self.upstream.origin_of(url) else {}
        for attempt in range(MEDIA_TRIES):
            try:
                await check_address(url, self.upstream)
                return await download(self.http, url, headers, self.media_dir)
            except MediaRefusedError as refused:
                self._finish(record, "failed", str(refused))
                return None
            except (httpx2.HTTPError, OSError) as error:
                log.info("media of %s: try %d failed (%s)", record.id, attempt + 1, error)
                await asyncio.sleep(min(2.0, 0.1 * 2**attempt))
        return None
