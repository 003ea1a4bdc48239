"""One event as the ledger writes it: prepared once (before any I/O), written to a database.

``prepare`` cleans, redacts and serialises the event (what fails there becomes a visible
stand-in); ``write`` is one transaction: the ``events`` insert and the ``items`` row.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb._sqlite import immediate
from mediagen_nb.history._materialise import apply_event
from mediagen_nb.history._redact import redact, scrub_text
from mediagen_nb.history._safe import poison_stand_in, safe_event
from mediagen_nb.history._schema import ITEM_COLUMNS, JSON_COLUMNS


def url_lifetime(family_id: str | None) -> float | None:
    """The catalog's result-URL lifetime of a family, or None when unknown.

    Imported lazily so the ledger works (without expiry times) before the catalog exists
    or for families it does not know.
    """
    if not family_id:
        return None
    try:
        from mediagen_nb.catalog import family

        lifetime = family(family_id).url_lifetime_s
    except (ImportError, LookupError, AttributeError, ValueError):
        return None
    return float(lifetime) if lifetime is not None else None


@dataclass(frozen=True)
class Prepared:
    """An event ready to write: clean text, no secrets, ``data`` plain JSON."""

    kind: str
    action: str
    key: str
    family: str | None
    model: str | None
    service: str | None
    data: dict[str, Any]
    data_json: str


def _prepare(event: LedgerEvent) -> Prepared:
    clean = safe_event(event)
    data_json = json.dumps(redact(dict(clean.data)), default=str, ensure_ascii=False)
    family, model, service = (
        scrub_text(v) if v is not None else None for v in (clean.family, clean.model, clean.service)
    )
    return Prepared(
        kind=clean.kind,
        action=clean.action,
        key=scrub_text(clean.key),
        family=family,
        model=model,
        service=service,
        data=json.loads(data_json),
        data_json=data_json,
    )


def prepare(event: LedgerEvent) -> Prepared:
    """``event`` ready to write, or its stand-in when its data cannot be recorded."""
    try:
        return _prepare(event)
    except Exception as exc:
        return _prepare(poison_stand_in(event, exc))


def encode(item: Mapping[str, Any]) -> list[Any]:
    """An ``items`` row as SQL parameters (JSON columns as text)."""
    return [
        json.dumps(item[c], default=str, ensure_ascii=False)
        if c in JSON_COLUMNS and item[c] is not None
        else item[c]
        for c in ITEM_COLUMNS
    ]


def decode(row: sqlite3.Row) -> dict[str, Any]:
    """A database row as a dict, JSON columns decoded."""
    item = {k: row[k] for k in row.keys()}  # noqa: SIM118 - sqlite3.Row is not a Mapping
    for column in JSON_COLUMNS:
        if item.get(column) is not None:
            item[column] = json.loads(item[column])
    return item


_UPSERT = (
    f"INSERT INTO items ({', '.join(ITEM_COLUMNS)})"
    f" VALUES ({', '.join('?' for _ in ITEM_COLUMNS)})"
    f" ON CONFLICT (kind, key) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in ITEM_COLUMNS[2:])
)


def _apply(conn: sqlite3.Connection, row: Prepared, ts: float, origin: str) -> None:
    conn.execute(
        "INSERT INTO events (ts, kind, action, key, family, model, service, data, origin)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            ts,
            row.kind,
            row.action,
            row.key,
            row.family,
            row.model,
            row.service,
            row.data_json,
            origin,
        ),
    )
    current = conn.execute(
        "SELECT * FROM items WHERE kind = ? AND key = ?", (row.kind, row.key)
    ).fetchone()
    item = apply_event(
        decode(current) if current is not None else None,
        kind=row.kind,
        action=row.action,
        key=row.key,
        ts=ts,
        data=row.data,
        family=row.family,
        model=row.model,
        service=row.service,
        url_lifetime=url_lifetime,
    )
    if item is not None:
        item["origin"] = origin
        conn.execute(_UPSERT, encode(item))


def event_ids(conn: sqlite3.Connection) -> set[tuple[Any, ...]]:
    """What tells the database's events apart: (time, kind, action, key, origin). A restore
    skips the events a ledger holds already; a browser tab compares its saves with the store."""
    return {tuple(row) for row in conn.execute("SELECT ts, kind, action, key, origin FROM events")}


def write(conn: sqlite3.Connection, row: Prepared, ts: float, origin: str) -> None:
    """Append ``row`` and update its item in one transaction of ``conn``."""
    with immediate(conn):
        _apply(conn, row, ts, origin)
