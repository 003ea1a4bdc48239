"""The Assets panel's review: one ``assets.wait_active`` at a time over the rows in review,
and what each status it reports does to a row."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mediagen_nb.catalog._assets import ASSET_ACTIVE, ASSET_FAILED
from mediagen_nb.types import AssetFailure, AssetInfo
from mediagen_nb.widgets._asset_form import AssetRow, failed_reason, reported_reason

if TYPE_CHECKING:
    from mediagen_nb.client import Assets

Update = AssetInfo | AssetFailure
"""What ``wait_active`` reports: a status read, or an id the library listed as failed."""


class ReviewFollower:
    """Follows the review of some assets with ``assets.wait_active``, one wait at a time.

    Args:
        spawn: Runs a coroutine as one of the panel's background tasks.
        on_update: Called with each status the wait reports.
        on_unusable: Called with the id and status of an asset the wait refused (known as
            failed or deleted before it was read).
        on_end: Called once every followed asset is Active or refused.
    """

    def __init__(
        self,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        on_update: Callable[[Update], None],
        on_unusable: Callable[[str, str], None],
        on_end: Callable[[], None],
    ) -> None:
        self._spawn = spawn
        self._on_update = on_update
        self._on_unusable = on_unusable
        self._on_end = on_end
        self._task: asyncio.Task[None] | None = None
        self.ids: list[str] = []
        """The assets followed now."""

    def follow(self, assets: Assets, ids: list[str], every: float) -> None:
        """Follow ``ids``, polling every ``every`` seconds; a running wait over other ids is
        cancelled and a new one started (``wait_active`` takes its ids once)."""
        running = self._task is not None and not self._task.done()
        if running and ids == self.ids:
            return
        if self._task is not None and running:
            self._task.cancel()
        self.ids = ids
        if ids:
            self._task = self._spawn(self._run(assets, list(ids), every))

    async def _run(self, assets: Assets, ids: list[str], every: float) -> None:
        from mediagen_nb.client import AssetNotUsableError

        while ids:
            try:
                await assets.wait_active(
                    ids, timeout=math.inf, poll_interval=every, on_update=self._on_update
                )
            except AssetNotUsableError as exc:  # its row says why; follow the others
                ids = [i for i in ids if i != exc.asset_id]
                self._on_unusable(exc.asset_id, exc.status)
            else:
                ids = []
        self.ids = []
        self._on_end()


def after_review(row: AssetRow, update: Update, *, demo: bool) -> AssetRow | None:
    """The row once ``update`` is applied, or None when it does not change."""
    if isinstance(update, AssetFailure):
        status: str | None = ASSET_FAILED
        reason = update.reason
    else:
        status, reason = update.status, reported_reason(update)
    if not status:
        return None
    text = failed_reason(reason, demo=demo) if status == ASSET_FAILED else ""
    if (row.status, row.reason) == (status, text):
        return None
    return replace(row, status=status, reason=text)


def progress_text(rows: list[AssetRow]) -> str:
    """The status line while reviews run: how many are done, how many are still in review."""
    done = sum(row.status in (ASSET_ACTIVE, ASSET_FAILED) for row in rows)
    pending = sum(row.pending for row in rows)
    return f"{done} reviewed, {pending} in review."
