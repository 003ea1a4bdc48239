"""Where a class lives: its ledger (SQLite in the folder, or PostgreSQL) and its upstream."""

from __future__ import annotations

from pathlib import Path

from mediagen_nb import _env
from mediagen_nb.classroom._ledger import ClassLedger, SqliteClassLedger
from mediagen_nb.classroom._pg_ledger import PostgresClassLedger, is_postgres_url
from mediagen_nb.classroom._shared import LEASE_S
from mediagen_nb.classroom._upstream import Upstream, UpstreamChoice, resolve_upstream


def open_upstream(
    choice: UpstreamChoice | Upstream, folder: Path, speed: float, *, shared: bool
) -> Upstream:
    """The upstream; gateways sharing a ledger must share it too (an emulator of their own
    would not know the tasks the others created)."""
    if shared and choice == "emulator":
        raise ValueError(
            "gateways sharing a ledger need one upstream: upstream='service' "
            "(the service, or one emulator's URLs and key in the environment)"
        )
    up = resolve_upstream(choice, folder, speed=speed)
    if shared and up.emulator is not None:
        up.stop()
        raise ValueError(
            f"gateways sharing a ledger need one upstream: set {_env.API_KEY} and the "
            "service's URLs, or pass an Upstream"
        )
    return up


def open_ledger(ledger: str | None, folder: Path, lease: float = LEASE_S) -> ClassLedger:
    """The class's ledger: SQLite in ``folder`` (None), or PostgreSQL at a URL.

    Raises:
        ValueError: ``ledger`` is neither None nor a ``postgresql://`` URL (the URL is not
            repeated: it may hold a password).
    """
    if ledger is None:
        return SqliteClassLedger(folder)
    if not is_postgres_url(ledger):
        raise ValueError(
            "ledger must be a postgresql://user@host:port/database URL "
            "(leave it out for SQLite in the class folder)"
        )
    return PostgresClassLedger(ledger, lease_s=lease)
