"""Lineage: what an item was made from, back to the first picture, as history rows.

:func:`lineage_records` follows the rows' ``parents`` back: ancestors oldest first, then the
item, each with a ``generation`` (0: the item). A parent the history lacks is a row with only
its id and status ``unknown``, so a gap shows. Cycles cannot loop.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb.history._ledger import Ledger, ledger
from mediagen_nb.history._records import COLUMNS, HistoryRecords, _record

if TYPE_CHECKING:
    import pandas as pd

MAX_ANCESTORS = 1_000
"""A bound on the rows one lineage returns (a long chain of continues stays far below)."""


def _row(source: Ledger, key: str) -> dict[str, Any] | None:
    for kind in ("task", "asset"):
        found = source.item(kind, key)
        if found is not None:
            return found
    return None


def _unknown(key: str) -> dict[str, Any]:
    record: dict[str, Any] = dict.fromkeys(COLUMNS)
    record.update(task_id=key, status="unknown", parents=[])
    return record


def _walk(source: Ledger, task_id: str) -> list[dict[str, Any]]:
    """Records of the item and every ancestor, each with its smallest ``generation``."""
    found: dict[str, dict[str, Any]] = {}
    frontier = [(task_id, 0)]
    while frontier and len(found) < MAX_ANCESTORS:
        key, generation = frontier.pop(0)
        if key in found:
            continue
        row = _row(source, key)
        if row is None and generation == 0:
            raise KeyError(f"no task or asset {task_id!r} in the history")
        record = _record(row) if row is not None else _unknown(key)
        record["generation"] = generation
        found[key] = record
        frontier += [(parent, generation + 1) for parent in record["parents"]]
    return list(found.values())


def _oldest_first(record: dict[str, Any]) -> tuple[bool, float, int]:
    """Unknown parents (no time) first, then by creation time, farther generations first."""
    time = record["time"]
    return (time is not None, time.timestamp() if time is not None else 0.0, -record["generation"])


def lineage_records(task_id: str, home: Path | str | None = None) -> HistoryRecords:
    """The item ``task_id`` and its ancestors as history records, oldest first, item last.

    Args:
        task_id: A task (or asset) id of the history.
        home: Another history folder than ``$MEDIAGEN_HOME``.

    Returns:
        Records with the columns of :func:`mediagen_nb.history_records` plus ``generation``.

    Raises:
        KeyError: The history has no item ``task_id``.
    """
    source = ledger() if home is None else Ledger(home)
    try:
        records = _walk(source, task_id)
    finally:
        if home is not None:
            source.close()
    item, ancestors = records[0], records[1:]
    ancestors.sort(key=_oldest_first)
    return HistoryRecords([*ancestors, item])


def lineage(task_id: str, home: Path | str | None = None) -> pd.DataFrame:
    """The chain an item was made from as a DataFrame: ancestors oldest first, then the item.

    Args:
        task_id: A task (or asset) id of the history.
        home: Another history folder than ``$MEDIAGEN_HOME``.

    Returns:
        The columns of :func:`mediagen_nb.history` plus ``generation`` (0: the item itself).

    Raises:
        KeyError: The history has no item ``task_id``.
    """
    from mediagen_nb.history._frame import to_frame

    records = lineage_records(task_id, home)
    frame = to_frame(records)
    frame["generation"] = [r["generation"] for r in records]
    return frame
