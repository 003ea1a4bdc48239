"""The media cache writes whole files only, inside its own folder, whatever the key."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history import Ledger
from mediagen_nb.history._media import media_path, safe_name, safe_suffix, write_atomic

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def test_store_records_local_file_on_the_row(tmp_path: Path) -> None:
    store = Ledger(tmp_path)
    store.record(LedgerEvent(kind="task", action="created", key="task_9", family="banana"))
    path = store.store_media("task_9", PNG, ".png")
    assert Path(path).read_bytes() == PNG
    assert Path(path).is_relative_to(tmp_path / "media")
    assert path.endswith("task_9.png")
    row = store.item("task", "task_9")
    assert row is not None
    assert row["local_file"] == path
    assert row["status"] == "queued"  # storing media does not change the status
    assert store.cached_media("task_9") == path
    assert [e["action"] for e in store.events("task_9")] == ["created", "stored"]


def test_cached_media_found_on_disk_without_a_row(tmp_path: Path) -> None:
    store = Ledger(tmp_path)
    path = store.store_media("orphan", b"data", "mp4")
    assert path.endswith("orphan.mp4")
    assert store.item("task", "orphan") is None
    fresh = Ledger(tmp_path)
    assert fresh.cached_media("orphan") == path
    assert fresh.cached_media("orpha") is None
    Path(path).unlink()
    assert fresh.cached_media("orphan") is None


def test_cached_media_does_not_confuse_prefix_keys(tmp_path: Path) -> None:
    store = Ledger(tmp_path)
    other = store.store_media("abc.x", b"1", ".png")
    assert store.cached_media("abc") is None
    mine = store.store_media("abc", b"2", ".png")
    assert store.cached_media("abc") == mine
    assert store.cached_media("abc.x") == other


@pytest.mark.parametrize(
    "key",
    [
        "../../etc/passwd",
        "..",
        ".",
        "",
        "/absolute/path",
        "a/../../b",
        "..\\..\\windows",
        "nul\x00byte",
        "ünïcødé id",
        "x" * 5000,
        ".hidden",
    ],
)
def test_hostile_keys_stay_inside_media_folder(tmp_path: Path, key: str) -> None:
    store = Ledger(tmp_path / "home")
    path = Path(store.store_media(key, b"payload", "../../evil"))
    media = (tmp_path / "home" / "media").resolve()
    assert path.resolve().is_relative_to(media)
    assert path.parent.parent == media
    assert not path.name.startswith(".")
    assert path.suffix == ".bin"
    assert path.read_bytes() == b"payload"
    assert store.cached_media(key) == str(path)
    assert [p.name for p in tmp_path.iterdir()] == ["home"]
    allowed = {"history.sqlite3", "history.sqlite3-wal", "history.sqlite3-shm", "media"}
    assert {p.name for p in (tmp_path / "home").iterdir()} <= allowed


def test_distinct_keys_never_share_a_file() -> None:
    keys = ["a/b", "a_b", "a:b", "a?b", "a b", "../a_b"]
    names = {safe_name(k) for k in keys}
    assert len(names) == len(keys)
    assert safe_name("task_123-abc.def") == "task_123-abc.def"


def test_suffixes() -> None:
    assert safe_suffix("png") == ".png"
    assert safe_suffix(".MP4") == ".mp4"
    assert safe_suffix("./x") == ".bin"
    assert safe_suffix("") == ".bin"


def test_write_is_atomic_when_interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = media_path(tmp_path, "task_1", ".png")
    write_atomic(target, b"old complete file")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk yanked")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk yanked"):
        write_atomic(target, b"new bytes that never fully land")
    monkeypatch.undo()
    assert target.read_bytes() == b"old complete file"
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # temp file removed


def test_store_overwrites_whole_file(tmp_path: Path) -> None:
    store = Ledger(tmp_path)
    first = store.store_media("t", b"A" * 1000, ".png")
    second = store.store_media("t", b"B" * 10, ".png")
    assert first == second
    assert Path(second).read_bytes() == b"B" * 10
