"""The ledger turns each client event into the right ``items`` row, durably and without secrets."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb._hooks import LedgerEvent, Recorder
from mediagen_nb.history import Ledger, ledger, unfinished
from mediagen_nb.history._schema import SCHEMA_VERSION
from tests._support import FakeClock

SERVICE = "http://127.0.0.1:9/api"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_700_000_000.0)


@pytest.fixture
def led(tmp_path: Path, clock: FakeClock) -> Iterator[Ledger]:
    store = Ledger(tmp_path / "home", clock=clock)
    yield store
    store.close()


def task(
    action: str, key: str = "task_1", family: str | None = "image2", **data: Any
) -> LedgerEvent:
    return LedgerEvent(
        kind="task",
        action=action,
        key=key,
        family=family,
        model="gpt-image-2",
        data=data,
        service=SERVICE,
    )


def test_ledger_is_a_recorder(led: Ledger) -> None:
    recorder: Recorder = led
    assert recorder.cached_media("nothing") is None


def test_file_is_wal_with_schema_version(led: Ledger) -> None:
    led.record(task("created", request={"model": "gpt-image-2", "prompt": "a cat"}))
    assert led.db_path == led.home / "history.sqlite3"
    conn = sqlite3.connect(led.db_path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_task_lifecycle_materialises_one_row(led: Ledger, clock: FakeClock) -> None:
    body = {"model": "gpt-image-2", "prompt": "a red fox", "ratio": "16:9", "quality": "high"}
    led.record(task("created", request=body, path="/v1/image2/images", status="queued"))
    row = led.item("task", "task_1")
    assert row is not None
    assert row["status"] == "queued"
    assert row["prompt"] == "a red fox"
    assert row["params"] == {"ratio": "16:9", "quality": "high"}
    assert row["request"] == body
    assert row["path"] == "/v1/image2/images"
    assert row["family"] == "image2"
    assert row["service"] == SERVICE
    assert row["created"] == clock.now
    assert row["polls"] == 0

    clock.now += 3
    led.record(task("status", status="processing"))
    clock.now += 3
    led.record(task("status", status="processing"))
    row = led.item("task", "task_1")
    assert row is not None
    assert (row["status"], row["polls"], row["elapsed"]) == ("processing", 2, 6.0)

    clock.now += 4
    url = "https://cdn.example/out.png"
    led.record(task("completed", response={"status": "completed", "image_url": url}, polls=3))
    row = led.item("task", "task_1")
    assert row is not None
    assert row["status"] == "completed"
    assert row["remote_url"] == url
    assert row["polls"] == 3
    assert row["elapsed"] == 10.0
    assert row["updated"] == clock.now
    assert row["url_expires"] == clock.now + 24 * 3600  # image2: 24 h (catalog)
    assert row["response"]["image_url"] == url
    assert len(led.events("task_1")) == 4
    assert len(led.items()) == 1


def test_url_expiry_unknown_family_is_none(led: Ledger) -> None:
    led.record(task("completed", family="no-such-family", url="https://x/y.mp4"))
    row = led.item("task", "task_1")
    assert row is not None
    assert row["remote_url"] == "https://x/y.mp4"
    assert row["url_expires"] is None


def test_failed_and_cancelled_tasks(led: Ledger) -> None:
    led.record(task("created", key="a", status="queued"))
    led.record(task("failed", key="a", error="content policy"))
    led.record(task("created", key="b", family="seedance", status="queued"))
    led.record(task("cancelled", key="b"))
    a, b = led.item("task", "a"), led.item("task", "b")
    assert a is not None
    assert b is not None
    assert (a["status"], a["error"]) == ("failed", "content policy")
    assert b["status"] == "cancelled"


def test_rejected_create_is_failed(led: Ledger) -> None:
    led.record(task("created", response={"status": "failed", "error": "ratio: required"}))
    row = led.item("task", "task_1")
    assert row is not None
    assert (row["status"], row["error"]) == ("failed", "ratio: required")


def test_late_status_never_reopens_a_finished_task(led: Ledger) -> None:
    led.record(task("created"))
    led.record(task("completed", url="https://x/1.png"))
    led.record(task("status", status="processing"))
    row = led.item("task", "task_1")
    assert row is not None
    assert row["status"] == "completed"


def test_transient_error_is_cleared_by_completion(led: Ledger) -> None:
    led.record(task("created"))
    led.record(task("error", error="connection reset"))
    row = led.item("task", "task_1")
    assert row is not None
    assert (row["status"], row["error"]) == ("queued", "connection reset")
    led.record(task("completed", url="https://x/1.png"))
    row = led.item("task", "task_1")
    assert row is not None
    assert (row["status"], row["error"]) == ("completed", None)


def test_seedance_prompt_comes_from_content(led: Ledger) -> None:
    body = {
        "model": "seedance_1_5_pro_720p",
        "content": [
            {"type": "text", "text": "waves at dusk"},
            {"type": "image_url", "image_url": {"url": "https://x/a.png"}, "role": "first_frame"},
        ],
        "duration": 5,
    }
    led.record(task("created", family="seedance", request=body))
    row = led.item("task", "task_1")
    assert row is not None
    assert row["prompt"] == "waves at dusk"
    assert row["params"]["duration"] == 5
    assert row["model"] == "gpt-image-2"  # the event's model wins over the body's


def chat(action: str, **data: Any) -> LedgerEvent:
    return LedgerEvent(kind="chat", action=action, key="turn-1", model="gpt-5.4", data=data)


def test_chat_turn_completed(led: Ledger, clock: FakeClock) -> None:
    body = {
        "model": "gpt-5.4",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hello there"}]},
        ],
        "temperature": 0.5,
    }
    led.record(chat("started", request=body, path="/v1/chat/completions"))
    row = led.item("chat", "turn-1")
    assert row is not None
    assert (row["status"], row["prompt"], row["params"]) == (
        "started",
        "hello there",
        {"temperature": 0.5},
    )
    clock.now += 2
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    led.record(chat("completed", text="Hi!", usage=usage))
    row = led.item("chat", "turn-1")
    assert row is not None
    assert (row["status"], row["text"], row["usage"], row["elapsed"]) == (
        "completed",
        "Hi!",
        usage,
        2.0,
    )


def test_chat_turn_incomplete_keeps_partial_text(led: Ledger) -> None:
    led.record(chat("started", request={"model": "gpt-5.4", "messages": []}))
    led.record(chat("incomplete", text="Once upon a", error="stream interrupted"))
    row = led.item("chat", "turn-1")
    assert row is not None
    assert (row["status"], row["text"], row["error"]) == (
        "incomplete",
        "Once upon a",
        "stream interrupted",
    )


def test_chat_turn_failed(led: Ledger) -> None:
    led.record(chat("started"))
    led.record(chat("failed", error="HTTP 400: messages[0].role: must be user"))
    row = led.item("chat", "turn-1")
    assert row is not None
    assert row["status"] == "failed"


def asset(action: str, **data: Any) -> LedgerEvent:
    return LedgerEvent(
        kind="asset", action=action, key="asset-1-abc", family="seedance2", data=data
    )


def test_asset_upload_review_delete(led: Ledger) -> None:
    body = {"assetType": "Image", "url": "https://x/face.png", "name": "face"}
    led.record(asset("uploaded", request=body))
    row = led.item("asset", "asset-1-abc")
    assert row is not None
    assert (row["status"], row["prompt"], row["params"]["assetType"]) == (
        "submitted",
        "face",
        "Image",
    )
    led.record(asset("status", status="Processing"))
    led.record(asset("status", response={"status": "Active", "url": "https://x/face.png"}))
    row = led.item("asset", "asset-1-abc")
    assert row is not None
    assert (row["status"], row["remote_url"], row["polls"]) == ("Active", "https://x/face.png", 0)
    led.record(asset("deleted"))
    row = led.item("asset", "asset-1-abc")
    assert row is not None
    assert row["status"] == "deleted"
    assert led.items(kind="asset", status="deleted")[0]["key"] == "asset-1-abc"


def test_event_without_row_creates_none(led: Ledger) -> None:
    led.record(task("error", key="ghost", error="boom"))
    assert led.item("task", "ghost") is None
    assert [e["action"] for e in led.events("ghost")] == ["error"]


def test_restart_sees_unfinished_tasks(tmp_path: Path, clock: FakeClock) -> None:
    first = Ledger(tmp_path, clock=clock)
    first.record(task("created", key="done"))
    first.record(task("completed", key="done", url="https://x/d.png"))
    first.record(task("created", key="queued-one", family="sora"))
    clock.now += 1
    first.record(task("created", key="running", family="veo"))
    first.record(task("status", key="running", family="veo", status="processing"))
    first.close()
    del first

    after = unfinished(home=tmp_path)
    assert [(p.task_id, p.status, p.family, p.service) for p in after] == [
        ("queued-one", "queued", "sora", SERVICE),
        ("running", "processing", "veo", SERVICE),
    ]
    assert after[0].created.timestamp() == clock.now - 1
    assert after[0].created.tzinfo is not None


MARKER = "sk-MARKER-7d1f0c9e-not-a-real-key"


def test_key_marker_never_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setenv("MEDIAGEN_API_KEY", MARKER)
    store = Ledger(tmp_path, clock=clock)
    store.record(
        task(
            "created",
            request={"model": "gpt-image-2", "prompt": f"say {MARKER}"},
            api_key=MARKER,
            Authorization=f"Bearer {MARKER}",
            headers={"authorization": f"Bearer {MARKER}", "X-Api-Key": MARKER, "accept": "*/*"},
            nested=[{"API-KEY": MARKER}, f"token Bearer {MARKER}"],
        )
    )
    store.record(task("failed", error=f"401 for key {MARKER}"))
    store.record(
        LedgerEvent(
            kind="chat",
            action="completed",
            key=f"turn-{MARKER}",
            model="gpt-5.4",
            data={"text": MARKER},
            service=f"https://{MARKER}@host/api",
        )
    )
    # Without the env var the credential-named entries are still dropped.
    monkeypatch.delenv("MEDIAGEN_API_KEY")
    store.record(
        task("status", key="k2", api_key="other-secret-value", Authorization="Bearer zzz9")
    )
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("history.sqlite3*"))
    assert MARKER.encode() not in raw
    assert b"other-secret-value" not in raw
    assert b"zzz9" not in raw
    assert b"MARKER" not in raw
    row = Ledger(tmp_path).item("task", "task_1")
    assert row is not None
    assert row["prompt"] == "say [redacted]"
    assert row["status"] == "failed"


def test_default_ledger_follows_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "one"))
    first = ledger()
    assert ledger() is first
    assert first.home == (tmp_path / "one").absolute()
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "two"))
    second = ledger()
    assert second is not first
    assert second.home == (tmp_path / "two").absolute()
    second.record(task("created"))
    assert (tmp_path / "two" / "history.sqlite3").is_file()
    assert not (tmp_path / "one").exists()


def test_record_never_raises_and_keeps_event(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the home folder should be")
    store = Ledger(blocker)
    store.record(task("created"))  # must not raise
    assert store.flush() == 1
    blocker.unlink()
    assert store.flush() == 0
    row = store.item("task", "task_1")
    assert row is not None
    assert row["status"] == "queued"
    store.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    store = Ledger(tmp_path)
    store.record(task("created"))
    store.close()
    conn = sqlite3.connect(tmp_path / "history.sqlite3")
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    again = Ledger(tmp_path)
    again.record(task("status", status="processing"))
    assert again.flush() == 1  # never written into a file of a newer schema
    assert [row["status"] for row in again.items()] == ["processing"]  # kept in memory
    assert again.problem is not None
    assert "newer" in again.problem
    check = sqlite3.connect(tmp_path / "history.sqlite3")
    assert check.execute("SELECT count(*) FROM events").fetchone()[0] == 1
    check.close()


def test_version_1_file_is_migrated_in_place(tmp_path: Path) -> None:
    from mediagen_nb.history._schema import MIGRATIONS

    conn = sqlite3.connect(tmp_path / "history.sqlite3", isolation_level=None)
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version (version) VALUES (1)")
    MIGRATIONS[0](conn)
    conn.execute(
        "INSERT INTO items (kind, key, created, updated, status, polls)"
        " VALUES ('task', 'old', 1.0, 2.0, 'processing', 4)"
    )
    conn.close()

    store = Ledger(tmp_path, origin="kernel-x")
    store.record(task("status", key="old", status="processing"))
    row = store.item("task", "old")
    assert row is not None
    assert (row["created"], row["polls"], row["origin"]) == (1.0, 5, "kernel-x")
    assert store.events("old")[0]["origin"] == "kernel-x"
    store.close()
    check = sqlite3.connect(tmp_path / "history.sqlite3")
    assert check.execute("SELECT version FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    check.close()


def test_sweep_id_and_parents_columns(led: Ledger, tmp_path: Path) -> None:
    """A create event's ``sweep_id`` and ``parents`` become columns; later events keep them."""
    led.record(task("created", request={"model": "gpt-image-2", "prompt": "a"}, sweep_id="sw-1"))
    led.record(
        task(
            "created",
            key="task_2",
            request={"model": "gpt-image-2", "prompt": "b"},
            parents=["task_1", "asset://a1", 7, ""],
        )
    )
    led.record(task("status", key="task_2", status="processing"))
    rows = {row["key"]: row for row in led.items()}
    assert rows["task_1"]["sweep_id"] == "sw-1"
    assert rows["task_1"]["parents"] is None
    assert rows["task_2"]["sweep_id"] is None
    assert rows["task_2"]["parents"] == ["task_1", "asset://a1"]
    from mediagen_nb.history import history_records

    records = {r["task_id"]: r for r in history_records(home=led.home, warn=False)}
    assert records["task_1"]["parents"] == []
    assert records["task_2"]["parents"] == ["task_1", "asset://a1"]
    assert records["task_1"]["sweep_id"] == "sw-1"


def test_version_2_file_gains_sweep_and_parents(tmp_path: Path) -> None:
    """A history written before the sweep/lineage columns is migrated in place, rows kept."""
    from mediagen_nb.history import _schema

    home = tmp_path / "old"
    home.mkdir()
    conn = sqlite3.connect(home / "history.sqlite3")
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version (version) VALUES (2)")
    _schema.MIGRATIONS[0](conn)
    _schema.MIGRATIONS[1](conn)
    conn.execute(
        "INSERT INTO items (kind, key, created, updated, status) "
        "VALUES ('task', 'old_1', 1.0, 1.0, 'completed')"
    )
    conn.commit()
    conn.close()
    store = Ledger(home)
    try:
        row = next(r for r in store.items() if r["key"] == "old_1")
        assert row["status"] == "completed"
        assert row["sweep_id"] is None
        assert row["parents"] is None
    finally:
        store.close()
