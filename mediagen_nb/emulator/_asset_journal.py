"""An append-only journal of asset records, so demo-mode assets outlive a kernel restart.

Uploads are JSON lines, deletions tombstones; a new emulator replays and compacts the file.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from mediagen_nb.emulator._journal import Record, read_records, write_records

ASSET_JOURNAL_NAME: Final = "assets.jsonl"


class AssetJournal:
    """The asset journal file of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / ASSET_JOURNAL_NAME
        self._lock = threading.Lock()

    def load(self) -> tuple[list[Record], list[str]]:
        """Live asset records and deleted ids, in the order they were first recorded."""
        records = read_records(self.path)
        deleted = [key for key, record in records.items() if record.get("deleted") is True]
        live = [r for r in records.values() if r.get("deleted") is not True]
        return live, deleted

    def append(self, record: Record) -> None:
        """Record an upload; never raises for I/O trouble."""
        write_records(self.path, [record], self._lock, "a")

    def append_deleted(self, asset_id: str) -> None:
        """Record a deletion (the id stays invalid after a restart)."""
        write_records(self.path, [{"id": asset_id, "deleted": True}], self._lock, "a")

    def rewrite(self, records: Iterable[Record], deleted: Iterable[str]) -> None:
        """Replace the file with one line per live asset and per tombstone (atomic)."""
        lines = [*records, *({"id": d, "deleted": True} for d in deleted)]
        write_records(self.path, lines, self._lock, "w")
