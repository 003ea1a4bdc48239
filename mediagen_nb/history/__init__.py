"""History: an append-only SQLite ledger of every task, chat turn and asset event, a media
cache beside it, a pandas view of it (``history_records``: the same rows without pandas),
export/import of the ledger as JSON, and re-attaching tasks left running by a dead kernel.
The module is itself callable, so ``mediagen_nb.history()`` works once it is imported.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from mediagen_nb.history._backup import export_history, import_history
from mediagen_nb.history._fallback import HistoryUnavailableWarning
from mediagen_nb.history._ledger import Ledger, ledger
from mediagen_nb.history._lineage import lineage, lineage_records
from mediagen_nb.history._records import HistoryRecords, history_records
from mediagen_nb.history._resume import PendingTask, resume, unfinished

if TYPE_CHECKING:
    import pandas as pd

    from mediagen_nb.history._frame import export, history

__all__ = [
    "HistoryRecords",
    "HistoryUnavailableWarning",
    "Ledger",
    "PendingTask",
    "export",
    "export_history",
    "history",
    "history_records",
    "import_history",
    "ledger",
    "lineage",
    "lineage_records",
    "resume",
    "unfinished",
]

_LAZY = {"export", "history"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from mediagen_nb.history import _frame

        return getattr(_frame, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY)


class _CallableModule(types.ModuleType):
    """Module type whose call is :func:`history` (see the module docstring)."""

    def __call__(self, *args: Any, **kwargs: Any) -> pd.DataFrame:
        from mediagen_nb.history._frame import history as _history

        return _history(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
