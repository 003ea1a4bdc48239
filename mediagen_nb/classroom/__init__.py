"""A classroom gateway: one key, many students, budgets, shared polling and a live wall.

``start_classroom(...)`` serves the whole service interface on a loopback port and forwards
to the real service (key from the teacher's environment) or the built-in emulator. Students
use a code instead of the key (``_codes``); the teacher's rules refuse what a class should
not spend (``_rules``, ``_refusals``); each create and chat is one pipeline that reserves
its budget in the ledger before forwarding and settles it after (``_pipeline``); one
follower per task polls the upstream at the family's pace however often students poll
(``_tracker``); results are stored once and shown on the wall (``_wall``); a ledger keeps
everything across restarts (``_ledger``); several gateways share one class through
PostgreSQL (``_pg_ledger``), each task in flight followed by the gateway holding its lease.

Layering: this package imports catalog, types, the client's helpers and the emulator; the
client and the emulator never import it, and no widget but ``ClassroomPanel`` does.
``ClassroomPanel`` (the teacher's anywidget, ``_panel``) is loaded on first use, so the
gateway and its CLI never import ipywidgets.
"""

from typing import TYPE_CHECKING, Any

from mediagen_nb.classroom._codes import Roster, Student, read_roster
from mediagen_nb.classroom._ledger import ClassLedger, SqliteClassLedger
from mediagen_nb.classroom._pg_ledger import PostgresClassLedger
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._rules import Limits, Rules, Usage
from mediagen_nb.classroom._server import ClassroomHandle, start_classroom
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
