"""An append-only journal of asset records, so demo-mode assets outlive a kernel restart.

Like the task journal (``_journal``): with ``state_dir`` set, each upload is appended as one
JSON line, each deletion as a tombstone line ``{"id", "deleted": true}``, and a new emulator
replays the file (the latest line of an id wins) and compacts it. Times are absolute clock
times, so a review that was running when the kernel died has finished when it comes back.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mediagen_nb.emulator._assets import Asset

if TYPE_CHECKING:
    from collections.abc import Iterable

ASSET_JOURNAL_NAME: Final = "assets.jsonl"
log = logging.getLogger(__name__)


def _asset_from(record: dict[str, Any]) -> Asset | None:
    try:
        return Asset(**{k: v for k, v in record.items() if k != "deleted"})
    except TypeError as error:
        log.warning("skipping an unreadable emulator asset record: %s", error)
        return None


class AssetJournal:
    """The asset journal file of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / ASSET_JOURNAL_NAME
        self._lock = threading.Lock()

    def load(self) -> tuple[list[Asset], list[str]]:
        """Live assets and deleted ids, in the order they were first recorded."""
        records: dict[str, dict[str, Any]] = {}
        try:
            with self.path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line cut by a killed kernel
                    if isinstance(record, dict) and isinstance(record.get("id"), str):
                        records[record["id"]] = record
        except FileNotFoundError:
            return [], []
        deleted = [key for key, record in records.items() if record.get("deleted") is True]
        assets = [_asset_from(r) for r in records.values() if r.get("deleted") is not True]
        return [a for a in assets if a is not None], deleted

    def _write(self, lines: Iterable[dict[str, Any]], mode: str) -> None:
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        target = self.path if mode == "a" else self.path.with_suffix(".tmp")
        try:
            with self._lock:
                with target.open(mode, encoding="utf-8") as handle:
                    handle.write(text)
                if target != self.path:
                    os.replace(target, self.path)
        except OSError as error:
            log.warning("could not write the emulator asset journal: %s", error)

    def append(self, asset: Asset) -> None:
        """Record an upload; never raises for I/O trouble."""
        self._write([asdict(asset)], "a")

    def append_deleted(self, asset_id: str) -> None:
        """Record a deletion (the id stays invalid after a restart)."""
        self._write([{"id": asset_id, "deleted": True}], "a")

    def rewrite(self, assets: Iterable[Asset], deleted: Iterable[str]) -> None:
        """Replace the file with one line per live asset and per tombstone (atomic)."""
        lines = [asdict(a) for a in assets] + [{"id": d, "deleted": True} for d in deleted]
        self._write(lines, "w")
