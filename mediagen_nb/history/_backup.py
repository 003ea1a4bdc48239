"""Carry the history across: export the ledger's events to a JSON file, import them back.

For where the ledger cannot keep a file (a browser tab keeps it in memory; see
``Ledger.keep_in_memory``), and to move a history between machines. The file holds the
append-only event log (each event's time, kind, action, key, family, model, service, origin
and data), from which the ledger rebuilds every row; the media cache is not included
(a result shows again once it is downloaded). Import adds only the events the ledger does
not hold yet, so importing twice changes nothing. In JupyterLite, ``/drive/...`` is the
browser's own storage, which outlives a reload.

Format::

    {"format": "mediagen_nb-history", "version": 1, "exported": <unix seconds>,
     "events": [{"ts": ..., "kind": "task", "action": "created", "key": ..., "family": ...,
                 "model": ..., "service": ..., "origin": ..., "data": {...}}, ...]}
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Final, cast

from mediagen_nb._hooks import EventKind, LedgerEvent
from mediagen_nb.history._ledger import Ledger, ledger

FORMAT: Final = "mediagen_nb-history"
VERSION: Final = 1
_KINDS: Final = ("task", "chat", "asset", "sweep")
_OPTIONAL_TEXT: Final = ("family", "model", "service", "origin")


def _source(home: Path | str | None) -> Ledger:
    return ledger() if home is None else Ledger(home)


def export_history(path: Path | str, *, home: Path | str | None = None) -> Path:
    """Write every event of the history to a JSON file, to move or keep it.

    Args:
        path: The file to write (its folder is made when missing).
        home: Another history folder than ``$MEDIAGEN_HOME``.

    Returns:
        The path written.
    """
    source = _source(home)
    try:
        events = source.events()
    finally:
        if home is not None:
            source.close()
    fields = ("ts", "kind", "action", "key", "family", "model", "service", "origin", "data")
    document = {
        "format": FORMAT,
        "version": VERSION,
        "exported": time.time(),
        "events": [{name: event.get(name) for name in fields} for event in events],
    }
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return target


def _event(index: int, raw: Any) -> tuple[LedgerEvent, float, str]:
    """One exported event, checked; ValueError naming ``events[i].field`` and the rule."""
    where = f"events[{index}]"
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: must be an object")
    ts = raw.get("ts")
    if not isinstance(ts, int | float) or isinstance(ts, bool):
        raise ValueError(f"{where}.ts: must be a number (Unix seconds)")
    if raw.get("kind") not in _KINDS:
        raise ValueError(f"{where}.kind: must be one of {', '.join(_KINDS)}")
    for name in ("action", "key"):
        if not isinstance(raw.get(name), str) or not raw[name]:
            raise ValueError(f"{where}.{name}: must be a non-empty string")
    for name in _OPTIONAL_TEXT:
        if raw.get(name) is not None and not isinstance(raw[name], str):
            raise ValueError(f"{where}.{name}: must be a string or null")
    data = raw.get("data", {})
    if not isinstance(data, dict):
        raise ValueError(f"{where}.data: must be an object")
    event = LedgerEvent(
        kind=cast(EventKind, raw["kind"]),
        action=raw["action"],
        key=raw["key"],
        family=raw.get("family"),
        model=raw.get("model"),
        data=data,
        service=raw.get("service"),
    )
    return event, float(ts), raw.get("origin") or "imported"


def read_export(path: Path | str) -> list[tuple[LedgerEvent, float, str]]:
    """The events of an export file; ValueError saying what is wrong and where."""
    source = Path(path).expanduser()
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not a history export (invalid JSON: {exc})") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{source}: not a history export (format must be {FORMAT!r})")
    if document.get("version") != VERSION:
        raise ValueError(f"{source}: version must be {VERSION}, got {document.get('version')!r}")
    events = document.get("events")
    if not isinstance(events, list):
        raise ValueError(f"{source}: events must be a list")
    return [_event(i, raw) for i, raw in enumerate(events)]


def import_history(path: Path | str, *, home: Path | str | None = None) -> int:
    """Add the events of an export file that the history does not hold yet.

    The whole file is checked before anything is written; importing twice changes nothing.

    Args:
        path: A file written by :func:`export_history`.
        home: Another history folder than ``$MEDIAGEN_HOME``.

    Returns:
        How many events were added.

    Raises:
        ValueError: The file is not an export, naming the field and the rule.
    """
    events = read_export(path)
    target = _source(home)
    try:
        return target.restore(events)
    finally:
        if home is not None:
            target.close()
