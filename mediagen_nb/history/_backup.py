"""Carry the history across: export the ledger's events to a JSON file, import them back.

Import adds only the events the ledger lacks, so importing twice changes nothing; a media
path outside the importing history's own media folder is dropped and counted.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, cast

from mediagen_nb._hooks import EventKind, LedgerEvent
from mediagen_nb.history._ledger import Ledger, ledger
from mediagen_nb.history._media import inside, media_path, safe_suffix, write_atomic

log = logging.getLogger("mediagen_nb.history")

FORMAT: Final = "mediagen_nb-history"
VERSION: Final = 1
_KINDS: Final = ("task", "chat", "asset", "sweep")
_OPTIONAL_TEXT: Final = ("family", "model", "service", "origin")


def _source(home: Path | str | None) -> Ledger:
    return ledger() if home is None else Ledger(home)


def export_document(source: Ledger, *, media: bool = True) -> dict[str, Any]:
    """The export of ``source``'s history as a JSON-ready document (module docstring)."""
    events = source.events()
    fields = ("ts", "kind", "action", "key", "family", "model", "service", "origin", "data")
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "exported": time.time(),
        "events": [{name: event.get(name) for name in fields} for event in events],
    }
    if media:
        document["media"] = _media_of(source)
    return document


def _media_of(source: Ledger) -> list[dict[str, str]]:
    carried: dict[str, dict[str, str]] = {}
    for item in source.items():
        local = item.get("local_file")
        key = str(item["key"])
        if key in carried or not isinstance(local, str) or not Path(local).is_file():
            continue
        data = base64.b64encode(Path(local).read_bytes()).decode("ascii")
        carried[key] = {"key": key, "suffix": Path(local).suffix, "base64": data}
    return list(carried.values())


def export_history(path: Path | str, *, home: Path | str | None = None, media: bool = True) -> Path:
    """Write every event of the history to a JSON file, to move or keep it.

    Args:
        path: The file to write (its folder is made when missing).
        home: Another history folder than ``$MEDIAGEN_HOME``.
        media: Carry the cached result files too (an import then shows the pictures).

    Returns:
        The path written.
    """
    source = _source(home)
    try:
        document = export_document(source, media=media)
    finally:
        if home is not None:
            source.close()
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


Media = dict[str, tuple[str, bytes]]
"""Carried result files: key -> (suffix, bytes)."""


def parse_export(text: str, source: str) -> tuple[list[tuple[LedgerEvent, float, str]], Media]:
    """The events and carried files of an export's text; ValueError saying what is wrong
    and where (``source`` names the file in the message)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source}: not a history export (invalid JSON: {exc})") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{source}: not a history export (format must be {FORMAT!r})")
    if document.get("version") != VERSION:
        raise ValueError(f"{source}: version must be {VERSION}, got {document.get('version')!r}")
    events = document.get("events")
    if not isinstance(events, list):
        raise ValueError(f"{source}: events must be a list")
    return [_event(i, raw) for i, raw in enumerate(events)], _media(document.get("media", []))


def _media(raw: Any) -> Media:
    if not isinstance(raw, list):
        raise ValueError("media: must be a list")
    out: Media = {}
    for index, entry in enumerate(raw):
        where = f"media[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise ValueError(f"{where}.key: must be a non-empty string")
        try:
            data = base64.b64decode(str(entry.get("base64", "")), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"{where}.base64: must be base64 ({exc})") from exc
        out[entry["key"]] = (safe_suffix(str(entry.get("suffix") or "")), data)
    return out


def read_export(path: Path | str) -> list[tuple[LedgerEvent, float, str]]:
    """The events of an export file; ValueError saying what is wrong and where."""
    source = Path(path).expanduser()
    return parse_export(source.read_text(encoding="utf-8"), str(source))[0]


def restore_document(
    target: Ledger, events: list[tuple[LedgerEvent, float, str]], media: Media
) -> tuple[int, int]:
    """Write the carried files into ``target``'s media cache, point their events there, drop
    every other media path outside that cache (``_keep_media_inside``), and add the events
    ``target`` does not hold yet. Returns (events added, media paths dropped)."""
    for key, (suffix, data) in media.items():
        path = str(write_atomic(media_path(target.media_dir, key, suffix), data))
        for event, _ts, _origin in events:
            if event.key == key and "local_file" in event.data:
                event.data["local_file"] = path
    kept, dropped = _keep_media_inside(events, target.media_dir)
    return target.restore(kept), dropped


class ImportCount(int):
    """How many events an import added (an ``int``); ``dropped``: how many media paths it
    refused because they lie outside the history's media folder."""

    dropped: int

    def __new__(cls, added: int, dropped: int = 0) -> ImportCount:
        count = super().__new__(cls, added)
        count.dropped = dropped
        return count


def _keep_media_inside(
    events: list[tuple[LedgerEvent, float, str]], media_root: Path
) -> tuple[list[tuple[LedgerEvent, float, str]], int]:
    """The events without any ``local_file`` outside ``media_root`` (a ``stored`` event
    holding one is left out whole), and how many such paths there were."""
    kept: list[tuple[LedgerEvent, float, str]] = []
    dropped = 0
    for event, ts, origin in events:
        clean = event
        if "local_file" in event.data and inside(media_root, event.data["local_file"]) is None:
            dropped += 1
            if event.action == "stored":
                continue
            clean = replace(event, data={k: v for k, v in event.data.items() if k != "local_file"})
        kept.append((clean, ts, origin))
    return kept, dropped


def import_history(path: Path | str, *, home: Path | str | None = None) -> ImportCount:
    """Add the events of an export file that the history does not hold yet.

    The whole file is checked before anything is written; importing twice changes nothing.
    Media paths outside the history's own media folder are dropped (see the module
    docstring) and a warning says how many.

    Args:
        path: The export file (see the module docstring for its format).
        home: The history folder to import into (default: ``$MEDIAGEN_HOME``).

    Returns:
        How many events were added (an ``int``); its ``dropped`` counts refused media paths.

    Raises:
        ValueError: The file is not a history export; the message names the field.
    """
    source = Path(path).expanduser()
    events, media = parse_export(source.read_text(encoding="utf-8"), str(source))
    target = _source(home)
    try:
        added, dropped = restore_document(target, events, media)
    finally:
        if home is not None:
            target.close()
    if dropped:
        log.warning(
            "history import: %d media paths lie outside this history's media folder %s and "
            "were dropped (the results show again once downloaded)",
            dropped,
            target.media_dir,
        )
    return ImportCount(added, dropped)
