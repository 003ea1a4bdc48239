"""History without pandas, in a browser tab's memory, and carried across by export/import."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import mediagen_nb as mg
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history import HistoryUnavailableWarning, _ledger
from mediagen_nb.history._fallback import BROWSER_NOTICE
from mediagen_nb.history._ledger import Ledger
from mediagen_nb.history._records import COLUMNS
from mediagen_nb.widgets import HistoryPanel, Studio

BlockedRun = Callable[[Sequence[str], str], str]  # the ``run_without`` fixture


def _task(action: str, key: str, **data: Any) -> LedgerEvent:
    return LedgerEvent(
        kind="task", action=action, key=key, family="image2", model="gpt-image-2", data=data
    )


def _fill(store: Ledger) -> None:
    store.record(_task("created", "t1", request={"prompt": "a fox"}, status="queued"))
    store.record(_task("completed", "t1", status="completed", url="http://x/t1.png"))
    store.record(_task("created", "t2", request={"prompt": "a whale"}, status="queued"))
    chat = LedgerEvent(kind="chat", action="started", key="turn-1", model="gpt-5.4", data={})
    store.record(chat)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "one"
    store = Ledger(folder)
    _fill(store)
    store.close()
    return folder


def test_records_have_the_frame_s_columns_and_rows(home: Path) -> None:
    records = mg.history_records(home=home)
    frame = mg.history(home=home)
    assert [list(r) for r in records] == [list(COLUMNS)] * 3
    assert [r["task_id"] for r in records] == list(frame["task_id"])
    first = records[-1]
    assert isinstance(first["time"], datetime)
    assert first["time"].tzinfo is UTC
    same = frame["time"].iloc[-1].to_pydatetime(warn=False)
    assert abs(first["time"] - same) <= timedelta(microseconds=1)
    assert records.problem is None
    assert [r["status"] for r in mg.history_records(home=home, kind="task")] == [
        "queued",
        "completed",
    ]


def test_export_then_import_rebuilds_the_rows(home: Path, tmp_path: Path) -> None:
    saved = mg.export_history(tmp_path / "saved" / "history.json", home=home)
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert document["format"] == "mediagen_nb-history"
    assert len(document["events"]) == 4
    other = tmp_path / "two"
    assert mg.import_history(saved, home=other) == 4
    assert mg.import_history(saved, home=other) == 0  # twice changes nothing
    before = [(r["task_id"], r["status"], r["prompt"]) for r in mg.history_records(home=home)]
    after = [(r["task_id"], r["status"], r["prompt"]) for r in mg.history_records(home=other)]
    assert after == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON"),
        ('{"format": "other"}', "format must be 'mediagen_nb-history'"),
        ('{"format": "mediagen_nb-history", "version": 9}', "version must be 1"),
        ('{"format": "mediagen_nb-history", "version": 1, "events": {}}', "events must be"),
        (
            '{"format": "mediagen_nb-history", "version": 1, "events": [{"ts": 1, "kind": "x"}]}',
            r"events\[0\]\.kind: must be one of task, chat, asset",
        ),
        (
            '{"format": "mediagen_nb-history", "version": 1, "events": '
            '[{"ts": 1, "kind": "task", "action": "created", "key": ""}]}',
            r"events\[0\]\.key: must be a non-empty string",
        ),
    ],
)
def test_import_refuses_a_bad_file_naming_what_is_wrong(
    tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        mg.import_history(bad, home=tmp_path / "target")
    assert mg.history_records(home=tmp_path / "target") == []


def test_a_browser_ledger_keeps_history_in_memory_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_ledger, "is_browser", lambda: True)
    monkeypatch.setattr(_ledger, "_default", None)
    store = _ledger.ledger()
    _fill(store)
    assert store.problem == BROWSER_NOTICE
    assert store.problem_expected is True  # the tab's normal state, not a failure
    assert not store.db_path.exists()  # never written to a file that a reload loses
    assert store.flush() == 0
    assert not store.db_path.exists()
    with pytest.warns(HistoryUnavailableWarning, match="kept in memory"):
        records = mg.history_records()
    assert records.problem == BROWSER_NOTICE
    assert records.problem_expected is True
    assert len(records) == 3
    panel = HistoryPanel()
    panel.set_values(scope="all")
    assert "kept in memory in this browser tab" in panel.notice
    assert panel.notice_kind == "info"  # drawn as a polite status, not as an alert
    assert panel.errors == []
    assert panel.total == 3
    saved = mg.export_history(tmp_path / "tab.json")
    monkeypatch.setattr(_ledger, "_default", None)  # a reload: a new, empty tab
    assert mg.history_records(warn=False) == []
    assert mg.import_history(saved) == 4
    assert [r["task_id"] for r in mg.history_records(warn=False)] == ["turn-1", "t2", "t1"]
    monkeypatch.setattr(_ledger, "_default", None)


def test_in_a_studio_the_browser_notice_shows_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ledger, "is_browser", lambda: True)
    monkeypatch.setattr(_ledger, "_default", None)
    _fill(_ledger.ledger())
    studio = Studio(resume=False, lazy=False)
    assert studio.notice == BROWSER_NOTICE  # the Studio's notice says it ...
    assert studio.notice_kind == "info"  # ... as information: it is the tab's normal state
    assert studio.errors == []
    assert studio.history.notice == ""  # ... and its History tab does not repeat it
    assert studio.history.total == 3
    studio.history.refresh()
    assert studio.history.notice == ""
    alone = HistoryPanel()
    assert (alone.notice, alone.notice_kind) == (BROWSER_NOTICE, "info")  # on its own too
    studio.close()
    monkeypatch.setattr(_ledger, "_default", None)


def test_without_pandas_and_pillow_the_history_panel_works(run_without: BlockedRun) -> None:
    out = run_without(
        ["pandas", "PIL", "av"],
        """
        import asyncio, json, sys
        import mediagen_nb as mg
        from mediagen_nb.widgets import HistoryPanel, Studio

        async def main():
            emu = mg.start_emulator(in_process=True, speed=600)
            async with mg.AsyncClient(
                api_key=emu.api_key, base_url=emu.base_url, text_base_url=emu.text_base_url,
            ) as client:
                task = await client.images.create("gpt-image-2", prompt="a fox", ratio="16:9")
                await task.wait()
                await task.read_bytes()

        asyncio.run(main())
        try:
            mg.history()
            error = ""
        except ImportError as exc:
            error = str(exc)
        panel = HistoryPanel()
        panel.set_values(scope="all")
        csv_path = panel.export()
        print(json.dumps({
            "error": error,
            "records": [r["status"] for r in mg.history_records()],
            "rows": [(r["status"], r["media"], r["thumb"][:22]) for r in panel.rows],
            "csv_lines": len(csv_path.read_text().splitlines()),
            "loaded": sorted(m for m in ("pandas", "PIL") if sys.modules.get(m) is not None),
        }))
        """,
    )
    found = json.loads(out.strip().splitlines()[-1])
    assert "history_records()" in found["error"]
    assert "pandas is not installed" in found["error"]
    assert found["records"] == ["completed"]
    assert found["rows"] == [["completed", "image", "data:image/png;base64,"]]
    assert found["csv_lines"] == 2
    assert found["loaded"] == []
