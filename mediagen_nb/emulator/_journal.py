"""An append-only journal of task records, so the demo service outlives a kernel restart.

The embedded (demo-mode) emulator dies with its kernel; without a journal, a task that was
still running would be unknown to the next kernel's emulator and could never be finished.
With ``state_dir`` set, every task record is appended as one JSON line when it is created
or changes, and a new emulator replays the file. Records hold absolute clock times (Unix
seconds), so tasks keep progressing while no kernel runs. Media are re-rendered from the
recorded spec on demand; nothing large is written. The file is compacted on load.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.emulator._render import MediaSpec

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mediagen_nb.emulator._tasks import Task

JOURNAL_NAME: Final = "tasks.jsonl"
log = logging.getLogger(__name__)

_FIELDS: Final = (
    "id",
    "model",
    "created",
    "t0",
    "start_at",
    "done_at",
    "outcome",
    "error",
    "rejected",
    "min_interval",
    "media_token",
    "total_tokens",
)


def task_record(task: Task) -> dict[str, Any]:
    """A JSON-able record of a task (without its caches)."""
    record = {name: getattr(task, name) for name in _FIELDS}
    record["family"] = task.family.id
    record["asset_ids"] = list(task.asset_ids)
    record["spec"] = asdict(task.spec) if task.spec is not None else None
    return record


def task_from_record(record: dict[str, Any]) -> Task | None:
    """Rebuild a task from its record; None when the record is unusable."""
    from mediagen_nb.emulator._tasks import Task

    try:
        spec = record.get("spec")
        media = None
        if isinstance(spec, dict):
            media = MediaSpec(**{**spec, "lines": tuple(spec.get("lines", ()))})
        return Task(
            family=FAMILIES[record["family"]],
            spec=media,
            next_poll_at=0.0,
            asset_ids=tuple(record.get("asset_ids", ())),
            **{name: record[name] for name in _FIELDS},
        )
    except (KeyError, TypeError, ValueError) as error:
        log.warning("skipping an unreadable emulator journal record: %s", error)
        return None


class TaskJournal:
    """The journal file of one state directory."""

    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / JOURNAL_NAME
        self._lock = threading.Lock()

    def load(self) -> list[Task]:
        """Every task recorded, the latest record of each id winning."""
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
            return []
        tasks = [task_from_record(r) for r in records.values()]
        return [t for t in tasks if t is not None]

    def append(self, task: Task) -> None:
        """Record a task's current state; never raises for I/O trouble."""
        line = json.dumps(task_record(task), separators=(",", ":")) + "\n"
        try:
            with self._lock, self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
        except OSError as error:
            log.warning("could not write the emulator journal: %s", error)

    def rewrite(self, tasks: Iterable[Task]) -> None:
        """Replace the file with one line per live task (atomic rename)."""
        tmp = self.path.with_suffix(".tmp")
        try:
            with self._lock:
                with tmp.open("w", encoding="utf-8") as handle:
                    for task in tasks:
                        handle.write(json.dumps(task_record(task), separators=(",", ":")) + "\n")
                os.replace(tmp, self.path)
        except OSError as error:
            log.warning("could not compact the emulator journal: %s", error)
