"""The history as a pandas DataFrame, and its export to CSV or Parquet.

This is the only module of the package that imports pandas (lazily from the package
``__init__``), so recording from the client never loads it.

Decisions: times (``time``, ``updated``, ``url_expires``) are timezone-aware pandas
Timestamps in **UTC** (``datetime64[ns, UTC]``); call ``.dt.tz_convert(None)`` or
``tz_convert("Europe/Berlin")`` for local display. ``task_id`` holds the row's key: the
service's task id for tasks, the client's turn id for chat turns, the asset id for assets.
``parameters``, ``usage`` and ``request`` are dicts in the frame and JSON text in exports.
Other text columns are ``object`` holding ``str`` or ``None`` (not pandas 3's ``str`` dtype,
whose missing value is NaN), so ``row.error is None`` works in callers.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb.history._fallback import HistoryUnavailableWarning
from mediagen_nb.history._ledger import Ledger, ledger

if TYPE_CHECKING:
    import pandas as pd

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
)
"""Columns of :func:`history`, in display order."""

_RENAMED = {"time": "created", "parameters": "params", "task_id": "key"}
_TIME_COLUMNS = ("time", "updated", "url_expires")
_DICT_COLUMNS = ("parameters", "usage", "request")
_EXPORT_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def _ledger_for(home: Path | str | None) -> Ledger:
    return ledger() if home is None else Ledger(home)


def history(
    kind: str | Iterable[str] | None = None,
    status: str | Iterable[str] | None = None,
    model: str | Iterable[str] | None = None,
    text: str | None = None,
    home: Path | str | None = None,
) -> pd.DataFrame:
    """One row per task, chat turn or asset (``kind`` task / chat / asset), newest first.

    ``kind``, ``status`` and ``model`` match exactly (a string or several); ``text`` is a
    case-insensitive substring of prompt, answer, error, id or model. ``home`` reads another
    history folder than ``$MEDIAGEN_HOME``.

    When the history file cannot be used, the rows come from the in-memory fallback (this
    session's at least), a ``HistoryUnavailableWarning`` says what happened and where, and
    ``frame.attrs["problem"]`` holds the same sentence.
    """
    import pandas as pd

    source = _ledger_for(home)
    try:
        rows = source.items(kind=kind, status=status, model=model, text=text)
        problem = source.problem
    finally:
        if home is not None:
            source.close()
    if problem is not None:
        warnings.warn(HistoryUnavailableWarning(problem), stacklevel=2)
    records = [{c: row.get(_RENAMED.get(c, c)) for c in COLUMNS} for row in rows]
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    for column in _TIME_COLUMNS:
        seconds = pd.to_numeric(frame[column], errors="coerce").astype("float64")
        frame[column] = pd.to_datetime(seconds, unit="s", utc=True).astype("datetime64[ns, UTC]")
    frame["elapsed"] = pd.to_numeric(frame["elapsed"], errors="coerce").astype("float64")
    frame["polls"] = pd.to_numeric(frame["polls"], errors="coerce").astype("Int64")
    for column in COLUMNS:
        if column not in _TIME_COLUMNS and column not in {"elapsed", "polls"}:
            frame[column] = frame[column].astype(object)
    if problem is not None:
        frame.attrs["problem"] = problem
    return frame


def _as_json(value: Any) -> Any:
    if isinstance(value, Mapping | list):
        return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return value


def export(
    path: Path | str,
    frame: pd.DataFrame | None = None,
    *,
    home: Path | str | None = None,
    **filters: Any,
) -> Path:
    """Write the history (or ``frame``) to ``path``: CSV for ``.csv``, Parquet for
    ``.parquet`` / ``.pq``. Dict columns become JSON text so both formats keep them.

    ``filters`` are those of :func:`history` when no frame is given. Returns the path.
    """
    target = Path(path).expanduser()
    fmt = _EXPORT_SUFFIXES.get(target.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(_EXPORT_SUFFIXES))
        msg = f"cannot export to {target.name!r}: suffix must be one of {known}"
        raise ValueError(msg)
    data = history(home=home, **filters) if frame is None else frame.copy()
    for column in _DICT_COLUMNS:
        if column in data.columns:
            data[column] = data[column].map(_as_json).astype(object)
    target.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        data.to_csv(target, index=False)
    else:
        data.to_parquet(target, index=False)
    return target
