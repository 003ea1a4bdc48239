"""Both asset libraries' records: upload, review over time, lookup, delete (no HTTP here).

Review times, ids, the ``reject`` / ``nsfw`` convention and the memory bounds are described
under "Inside the emulator" in ``docs/reference/design.md``.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from mediagen_nb.emulator._asset_journal import AssetJournal
from mediagen_nb.emulator._runtime import Runtime

LibraryId = Literal["seedance2", "sd2"]
ReviewStatus = Literal["Processing", "Active", "Failed"]

REVIEW_S: Final = (20.0, 60.0)
"""Service seconds an asset review takes (low, high)."""
MAX_ASSETS: Final = 10_000
"""Records kept at most; the oldest are dropped first."""
MAX_TOMBSTONES: Final = 50_000
"""Deletions remembered; a forgotten id stays invalid ("not found", not "was deleted")."""
MAX_URL_CHARS: Final = 2048
REJECT_MARKERS: Final = ("reject", "nsfw")
log = logging.getLogger(__name__)

DeleteListener = Callable[[str, str], object]
"""Called with ``(asset_id, reason)`` after an asset is deleted."""


@dataclass
class Asset:
    """One uploaded reference medium."""

    id: str
    library: LibraryId
    asset_type: str
    url: str
    name: str | None
    created: float
    """Clock time of the upload."""
    ready_at: float
    """Clock time at which the review ends."""
    outcome: ReviewStatus

    def status(self, now: float) -> ReviewStatus:
        """``Processing`` while under review, then ``Active`` or ``Failed``."""
        return "Processing" if now < self.ready_at else self.outcome

    def create_time(self) -> str:
        """``createTime`` as the spec writes it: ``YYYY-MM-DD HH:mm:ss`` (UTC)."""
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(self.created))


def url_problem(url: object) -> str | None:
    """Why ``url`` cannot be submitted (None when it is an acceptable http(s) URL)."""
    if not isinstance(url, str) or not url:
        return "must be a non-empty string"
    if len(url) > MAX_URL_CHARS:
        return f"must be at most {MAX_URL_CHARS} characters"
    if any(ord(ch) < 0x21 or ch == "\x7f" for ch in url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be a publicly reachable http(s) URL"
    return None


def _asset_from(record: dict[str, Any]) -> Asset | None:
    try:
        return Asset(**{k: v for k, v in record.items() if k != "deleted"})
    except TypeError as error:
        log.warning("skipping an unreadable emulator asset record: %s", error)
        return None


class AssetStore:
    """Assets of both libraries, keyed by id.

    It knows nothing of tasks: whoever must react to a deletion (the task store fails the
    pending tasks that use the asset) registers with :meth:`on_delete`.
    """

    def __init__(self, state: Runtime) -> None:
        self._state = state
        self._assets: OrderedDict[str, Asset] = OrderedDict()
        self._deleted: OrderedDict[str, None] = OrderedDict()
        self._journal: AssetJournal | None = None
        self._delete_listeners: list[DeleteListener] = []

    def on_delete(self, listener: DeleteListener) -> None:
        """Call ``listener(asset_id, reason)`` after every deletion."""
        self._delete_listeners.append(listener)

    def use_journal(self, journal: AssetJournal) -> int:
        """Replay ``journal`` (a previous emulator's assets), then record every change in it.

        Returns how many live assets were restored; the file is compacted.
        """
        records, deleted = journal.load()
        assets = [a for a in map(_asset_from, records) if a is not None]
        with self._state.lock:
            for asset_id in deleted:
                self._assets.pop(asset_id, None)
                self._deleted[asset_id] = None
            for asset in assets[-MAX_ASSETS:]:
                if asset.id not in self._deleted:
                    self._assets[asset.id] = asset
            while len(self._deleted) > MAX_TOMBSTONES:
                self._deleted.popitem(last=False)
            journal.rewrite(map(asdict, self._assets.values()), self._deleted)
            self._journal = journal
        return len(self._assets)

    def __len__(self) -> int:
        return len(self._assets)

    def upload(self, library: LibraryId, asset_type: str, url: str, name: str | None) -> Asset:
        """Record a new asset under review and return it."""
        state = self._state
        now = state.now()
        low, high = REVIEW_S
        review = state.scaled(low + (high - low) * state.uniform())
        if library == "seedance2":
            asset_id = f"asset-{int(now * 1000)}-{state.random_hex(4)}"
        else:
            asset_id = f"mx{state.random_hex(10)}"
        rejected = any(marker in url.lower() for marker in REJECT_MARKERS)
        asset = Asset(
            id=asset_id,
            library=library,
            asset_type=asset_type,
            url=url,
            name=name,
            created=now,
            ready_at=now + review,
            outcome="Failed" if rejected else "Active",
        )
        with state.lock:
            self._assets[asset_id] = asset
            while len(self._assets) > MAX_ASSETS:
                self._assets.popitem(last=False)
            state.counters["assets_uploaded"] += 1
        if self._journal is not None:
            self._journal.append(asdict(asset))
        return asset

    def get(self, asset_id: str) -> Asset | None:
        """The live asset with this id, or None (unknown or deleted)."""
        return self._assets.get(asset_id)

    def was_deleted(self, asset_id: str) -> bool:
        """Whether this id belonged to an asset that was deleted (while remembered)."""
        return asset_id in self._deleted

    def delete(self, asset_id: str) -> bool:
        """Delete an asset for good; fail the pending tasks that reference it.

        Returns False when there was no such live asset.
        """
        state = self._state
        with state.lock:
            if self._assets.pop(asset_id, None) is None:
                return False
            self._deleted[asset_id] = None
            while len(self._deleted) > MAX_TOMBSTONES:
                self._deleted.popitem(last=False)
        if self._journal is not None:
            self._journal.append_deleted(asset_id)
        for listener in self._delete_listeners:
            listener(asset_id, f"referenced asset {asset_id} was deleted")
        return True

    def missing_reason(self, asset_id: str) -> str:
        """Message for an id that is not a live asset."""
        if self.was_deleted(asset_id):
            return f"asset {asset_id} was deleted"
        return f"asset {asset_id} not found"

    def reference_problem(self, asset_id: str, now: float) -> str | None:
        """Why a generation request may not use ``asset://{asset_id}`` now (None: usable)."""
        asset = self.get(asset_id)
        if asset is None:
            return self.missing_reason(asset_id)
        status = asset.status(now)
        if status == "Processing":
            return f"asset {asset_id} is still under review (status Processing); retry when Active"
        if status == "Failed":
            return f"asset {asset_id} failed review (status Failed) and cannot be used"
        return None
