"""Reopen restores the references: the pictures a reopened request was made from, still usable.

Each reference URL of the request that the history knows as a task's result is handed to the
client as that task's (so sending it again records the parent); one whose service URL has
expired is replaced by the kept file, hosted again (``AsyncClient.media_url``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._platform import off_loop

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient

MARGIN_S = 600.0
"""A kept URL must stay valid this much longer (scaled by the emulator's speed)."""


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _replace(value: Any, urls: dict[str, str]) -> Any:
    if isinstance(value, str):
        return urls.get(value, value)
    if isinstance(value, dict):
        return {key: _replace(item, urls) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace(item, urls) for item in value]
    return value


def _kept(local: Any) -> bytes | None:
    """The kept file's bytes, or None when there is none (any more)."""
    try:
        return Path(str(local)).read_bytes() if local else None
    except OSError:
        return None


async def restore_references(
    client: AsyncClient, body: dict[str, Any], records: list[dict[str, Any]]
) -> dict[str, Any]:
    """``body`` with every expired result URL it names hosted again from the kept file.

    Args:
        client: The panels' client (it learns which task each URL shows).
        body: The reopened request.
        records: History records (``history_records``) to find the URLs' tasks in.

    Returns:
        The body, its expired references replaced (unchanged when none expired or no file
        is kept; the client then refuses the request naming the field, as for any URL).
    """
    named = set(_strings(body))
    rows = {r["remote_url"]: r for r in records if r.get("remote_url") in named}
    fresh: dict[str, str] = {}
    now = time.time()
    for url, row in rows.items():
        expires = row.get("url_expires")
        margin = MARGIN_S / max(client.speed, 1e-9)
        if expires is None or expires.timestamp() - now > margin:
            client.note_result_url(url, str(row["task_id"]))
            continue
        data = await off_loop(_kept, row.get("local_file"))
        if data is None:
            continue
        fresh[url] = await client.media_url(data, made_from=str(row["task_id"]))
    return _replace(body, fresh) if fresh else body
