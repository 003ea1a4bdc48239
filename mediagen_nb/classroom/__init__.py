"""A classroom gateway: one key, many students, budgets, shared polling and a live wall.

``start_classroom(...)`` serves the whole service interface to students, who use a code
instead of the key, and forwards to the real service or the built-in emulator. The teacher's
``ClassroomPanel`` is loaded on first use, so the gateway never imports ipywidgets.
"""

from typing import TYPE_CHECKING, Any

from mediagen_nb.classroom._codes import Roster, Student, read_roster
from mediagen_nb.classroom._handle import ClassroomHandle
from mediagen_nb.classroom._ledger import ClassLedger, SqliteClassLedger
from mediagen_nb.classroom._pg_ledger import PostgresClassLedger
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._rules import Limits, Rules, Usage
from mediagen_nb.classroom._server import start_classroom
from mediagen_nb.classroom._upstream import Upstream

if TYPE_CHECKING:
    from mediagen_nb.classroom._panel import ClassroomPanel

__all__ = [
    "ClassLedger",
    "ClassroomHandle",
    "ClassroomPanel",
    "Limits",
    "PostgresClassLedger",
    "Roster",
    "Rules",
    "SqliteClassLedger",
    "Student",
    "TaskRecord",
    "Upstream",
    "Usage",
    "read_roster",
    "start_classroom",
]


def __getattr__(name: str) -> Any:
    if name == "ClassroomPanel":
        from mediagen_nb.classroom._panel import ClassroomPanel

        return ClassroomPanel
    raise AttributeError(f"module 'mediagen_nb.classroom' has no attribute {name!r}")
