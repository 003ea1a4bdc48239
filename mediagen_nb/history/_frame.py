"""The history as a pandas DataFrame, and its export to CSV or Parquet.

The only module of the package that imports pandas (lazily), so recording never loads it;
the rows come from ``_records.history_records``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._platform import has_module
from mediagen_nb.history._fallback import HistoryUnavailableWarning
from mediagen_nb.history._records import (
    COLUMNS,
    DICT_COLUMNS,
    PANDAS_HINT,
    TIME_COLUMNS,
    HistoryRecords,
    history_records,
    write_csv,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "export", "history", "to_frame"]

_EXPORT_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def _pandas() -> Any:
    """The pandas module, or an ImportError that says what to use instead."""
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(f"mediagen_nb.history() returns a DataFrame, but {PANDAS_HINT}") from exc
    return pd


def history(
    kind: str | Iterable[str] | None = None,
    status: str | Iterable[str] | None = None,
    model: str | Iterable[str] | None = None,
    text: str | None = None,
    home: Path | str | None = None,
    *,
    sweep_id: str | Iterable[str] | None = None,
) -> pd.DataFrame:
    """One row per task, chat turn or asset, newest first, as a pandas DataFrame.

    When the history file cannot be used, the rows come from the in-memory fallback (this
    session's at least), a ``HistoryUnavailableWarning`` says what happened and where, and
    ``frame.attrs["problem"]`` holds the same sentence.

    Args:
        kind: ``task``, ``chat`` or ``asset`` (one, or several); None: all.
        status: Statuses to keep (``completed``, ``failed``...), matched exactly.
        model: Model names to keep, matched exactly.
        text: A case-insensitive piece of the prompt, answer, error, id or model.
        home: Another history folder than ``$MEDIAGEN_HOME``.
        sweep_id: Keep the cells of one sweep (``plan.sweep_id``).

    Returns:
        The rows as a DataFrame.

    Raises:
        ImportError: pandas is not installed (a browser kernel): use
            :func:`mediagen_nb.history_records`, the same rows as dicts.
    """
    _pandas()
    records = history_records(kind, status, model, text, home, warn=False, sweep_id=sweep_id)
    if records.problem is not None:
        warnings.warn(HistoryUnavailableWarning(records.problem), stacklevel=2)
    return to_frame(records)


def _seconds(value: Any) -> Any:
    """A record's datetime as Unix seconds (the frame converts them in one vectorised step)."""
    return value.timestamp() if isinstance(value, datetime) else value


def to_frame(records: HistoryRecords | list[dict[str, Any]]) -> pd.DataFrame:
    """The DataFrame of :func:`history` from its records (dtypes in the module docstring)."""
    pdm = _pandas()
    rows = [{c: _seconds(record.get(c)) for c in COLUMNS} for record in records]
    frame = pdm.DataFrame.from_records(rows, columns=list(COLUMNS))
    for column in TIME_COLUMNS:
        numeric = pdm.to_numeric(frame[column], errors="coerce").astype("float64")
        frame[column] = pdm.to_datetime(numeric, unit="s", utc=True).astype("datetime64[ns, UTC]")
    frame["elapsed"] = pdm.to_numeric(frame["elapsed"], errors="coerce").astype("float64")
    frame["polls"] = pdm.to_numeric(frame["polls"], errors="coerce").astype("Int64")
    for column in COLUMNS:
        if column not in TIME_COLUMNS and column not in {"elapsed", "polls"}:
            frame[column] = frame[column].astype(object)
    problem = getattr(records, "problem", None)
    if problem is not None:
        frame.attrs["problem"] = problem
    result: pd.DataFrame = frame
    return result


def _as_json(value: Any) -> Any:
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return value


def export(
    path: Path | str,
    frame: pd.DataFrame | list[dict[str, Any]] | None = None,
    *,
    home: Path | str | None = None,
    **filters: Any,
) -> Path:
    """Write the history's rows to a CSV or Parquet file (by the file's suffix).

    Dict columns become JSON text so both formats keep them. Without pandas, CSV only.

    Args:
        path: The file: ``.csv``, or ``.parquet`` / ``.pq``.
        frame: The rows to write (a DataFrame or records); None: the history's.
        home: Another history folder than ``$MEDIAGEN_HOME``.
        **filters: Those of :func:`history`, when no frame is given.

    Returns:
        The path written.

    Raises:
        ValueError: Another suffix.
        ImportError: Parquet without pandas.
    """
    target = Path(path).expanduser()
    fmt = _EXPORT_SUFFIXES.get(target.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(_EXPORT_SUFFIXES))
        msg = f"cannot export to {target.name!r}: suffix must be one of {known}"
        raise ValueError(msg)
    if not has_module("pandas"):
        if fmt != "csv":
            raise ImportError(f"Parquet export needs pandas: {PANDAS_HINT}")
        records = history_records(home=home, warn=False, **filters) if frame is None else frame
        if not isinstance(records, list):
            raise TypeError(f"frame must be a list of records here, got {type(frame).__name__}")
        return write_csv(records, target)
    if frame is None:
        data = history(home=home, **filters)
    else:
        data = to_frame(frame) if isinstance(frame, list) else frame.copy()
    for column in DICT_COLUMNS:
        if column in data.columns:
            data[column] = data[column].map(_as_json).astype(object)
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        data.to_csv(target, index=False)
    else:
        data.to_parquet(target, index=False)
    return target
