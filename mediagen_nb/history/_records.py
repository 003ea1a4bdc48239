"""The history as plain records (a list of dicts), and a CSV of them: no pandas needed.

:func:`history_records` gives the rows of :func:`mediagen_nb.history` as dicts with the same
columns (``COLUMNS``) and order, for where pandas is missing (the browser) or not wanted.
"""

from __future__ import annotations

import csv
import json
import warnings
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mediagen_nb.history._fallback import HistoryUnavailableWarning
from mediagen_nb.history._ledger import Ledger, ledger

COLUMNS: tuple[str, ...] = (
    "time",
    "kind",
    "family",
    "model",
    "prompt",
    "parameters",
    "task_id",
    "status",
    "elapsed",
    "polls",
    "remote_url",
    "url_expires",
    "local_file",
    "error",
    "text",
    "usage",
    "updated",
    "service",
    "path",
    "request",
    "sweep_id",
    "parents",
)
"""Columns of :func:`history` and :func:`history_records`, in display order."""

RENAMED = {"time": "created", "parameters": "params", "task_id": "key"}
"""Record column -> ledger item column, where they differ."""
TIME_COLUMNS = ("time", "updated", "url_expires")
DICT_COLUMNS = ("parameters", "usage", "request", "parents")
"""Columns holding dicts (``parents``: a list of ids), written as JSON text by exports."""
PANDAS_HINT = (
    "pandas is not installed here (in a browser kernel it cannot be installed offline); "
    "mediagen_nb.history_records() gives the same rows as a list of dicts, or install "
    "pandas (%pip install pandas) for the DataFrame"
)


class HistoryRecords(list[dict[str, Any]]):
    """The rows, newest first; ``problem`` is the history's notice (None while all is well),
    ``problem_expected`` whether it is the platform's normal state (a browser tab) rather
    than a failure."""

    problem: str | None = None
    problem_expected: bool = False


def _time(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, UTC)
    return None


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return kind(value)
    return None


def _record(row: Mapping[str, Any]) -> dict[str, Any]:
    out = {column: row.get(RENAMED.get(column, column)) for column in COLUMNS}
    for column in TIME_COLUMNS:
        out[column] = _time(out[column])
    out["elapsed"] = _number(out["elapsed"], float)
    out["polls"] = _number(out["polls"], int)
    out["parents"] = list(out["parents"] or [])
    return out


def history_records(
    kind: str | Iterable[str] | None = None,
    status: str | Iterable[str] | None = None,
    model: str | Iterable[str] | None = None,
    text: str | None = None,
    home: Path | str | None = None,
    *,
    warn: bool = True,
    sweep_id: str | Iterable[str] | None = None,
) -> HistoryRecords:
    """The rows of :func:`mediagen_nb.history` as dicts, newest first (no pandas needed).

    When the history cannot keep its file (or keeps it in this browser tab's memory only),
    a ``HistoryUnavailableWarning`` says so and ``.problem`` holds the same sentence.

    Args:
        kind: ``task``, ``chat`` or ``asset`` (one, or several); None: all.
        status: Statuses to keep (``completed``, ``failed``...), matched exactly.
        model: Model names to keep, matched exactly.
        text: A case-insensitive piece of the prompt, answer, error, id or model.
        home: Another history folder than ``$MEDIAGEN_HOME``.
        warn: Emit the ``HistoryUnavailableWarning``.
        sweep_id: Keep the cells of one sweep (``plan.sweep_id``).

    Returns:
        A list of dicts, one per task, chat turn or asset, with ``.problem``.
    """
    source = ledger() if home is None else Ledger(home)
    try:
        rows = source.items(kind=kind, status=status, model=model, text=text, sweep_id=sweep_id)
        problem = source.problem
        expected = source.problem_expected
    finally:
        if home is not None:
            source.close()
    if problem is not None and warn:
        warnings.warn(HistoryUnavailableWarning(problem), stacklevel=2)
    records = HistoryRecords(_record(row) for row in rows)
    records.problem = problem
    records.problem_expected = expected
    return records


def _cell(value: Any) -> Any:
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return "" if value is None else value


def write_csv(records: Iterable[Mapping[str, Any]], target: Path) -> Path:
    """``records`` as CSV (dict columns as JSON text), written without pandas."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(COLUMNS)
        for record in records:
            writer.writerow([_cell(record.get(column)) for column in COLUMNS])
    return target
