"""An append-only journal of task records, so the demo service outlives a kernel restart.

With ``state_dir`` set, each record is a JSON line with absolute times; a new emulator replays
and compacts the file. Records are plain dicts: the task store converts, no store is imported.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

JOURNAL_NAME: Final = "tasks.jsonl"
log = logging.getLogger(__name__)

Record = dict[str, Any]
"""One JSON line: an object with a string ``id``."""


def read_records(path: Path) -> dict[str, Record]:
    """Every record of a JSON-lines file by id, the latest line of an id winning.

    Lines cut by a killed kernel and lines that are not objects with a string ``id`` are
    skipped; a missing file has no records.
    """
    records: dict[str, Record] = {}
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a killed kernel
                if isinstance(record, dict) and isinstance(record.get("id"), str):
                    records[record["id"]] = record
    except FileNotFoundError:
        return {}
    return records


def write_records(path: Path, records: Iterable[Record], lock: threading.Lock, mode: str) -> None:
    """Append (``mode="a"``) or replace atomically (``"w"``); never raises for I/O trouble."""
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    target = path if mode == "a" else path.with_suffix(".tmp")
    try:
        with lock:
            with target.open(mode, encoding="utf-8") as handle:
                handle.write(text)
            if target != path:
                os.replace(target, path)
    except OSError as error:
        log.warning("could not write the emulator journal %s: %s", path.name, error)


class TaskJournal:
    """The task journal file of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / JOURNAL_NAME
        self._lock = threading.Lock()

    def load(self) -> list[Record]:
        """Every task record, the latest record of each id winning."""
        return list(read_records(self.path).values())

    def append(self, record: Record) -> None:
        """Record a task's current state; never raises for I/O trouble."""
        write_records(self.path, [record], self._lock, "a")

    def rewrite(self, records: Iterable[Record]) -> None:
        """Replace the file with these records (atomic rename)."""
        write_records(self.path, records, self._lock, "w")
