"""``history()`` is a faithful, filterable DataFrame view of the ledger; exports round-trip."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import mediagen_nb
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history import Ledger, export, history
from mediagen_nb.history._frame import COLUMNS
from tests._support import FakeClock

T0 = 1_700_000_000.0


@pytest.fixture
def home(tmp_path: Path) -> Path:
    clock = FakeClock(T0)
    store = Ledger(tmp_path, clock=clock)
    store.record(
        LedgerEvent(
            kind="task",
            action="created",
            key="img-1",
            family="image2",
            model="gpt-image-2",
            data={"request": {"model": "gpt-image-2", "prompt": "A red Fox", "ratio": "1:1"}},
            service="http://svc/api",
        )
    )
    clock.now += 5
    store.record(
        LedgerEvent(
            kind="task",
            action="completed",
            key="img-1",
            family="image2",
            data={"url": "https://cdn/x.png", "polls": 2},
        )
    )
    store.store_media("img-1", b"png", ".png")
    clock.now += 10
    store.record(
        LedgerEvent(
            kind="task",
            action="created",
            key="vid-1",
            family="sora",
            model="neutralSora2Pro",
            data={"request": {"model": "neutralSora2Pro", "prompt": "ocean", "duration": 8}},
        )
    )
    clock.now += 10
    store.record(
        LedgerEvent(
            kind="chat",
            action="completed",
            key="turn-1",
            model="claude-opus-4-6",
            data={"text": "Foxes are canids.", "usage": {"input_tokens": 3, "output_tokens": 4}},
        )
    )
    clock.now += 10
    store.record(
        LedgerEvent(kind="asset", action="uploaded", key="asset-1", data={"status": "submitted"})
    )
    store.close()
    return tmp_path


def test_columns_dtypes_and_order(home: Path) -> None:
    frame = history(home=home)
    assert tuple(frame.columns) == COLUMNS
    assert list(frame["task_id"]) == ["asset-1", "turn-1", "vid-1", "img-1"]  # newest first
    assert str(frame["time"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["url_expires"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["polls"].dtype) == "Int64"
    assert frame["elapsed"].dtype == "float64"
    img = frame.set_index("task_id").loc["img-1"]
    assert img["time"] == pd.Timestamp(T0, unit="s", tz="UTC")
    assert img["status"] == "completed"
    assert img["prompt"] == "A red Fox"
    assert img["parameters"] == {"ratio": "1:1"}
    assert img["elapsed"] == 5.0
    assert img["polls"] == 2
    assert img["remote_url"] == "https://cdn/x.png"
    assert img["url_expires"] == pd.Timestamp(T0 + 5 + 86400, unit="s", tz="UTC")
    assert str(img["local_file"]).endswith("img-1.png")
    chat = frame.set_index("task_id").loc["turn-1"]
    assert chat["text"] == "Foxes are canids."
    assert chat["usage"] == {"input_tokens": 3, "output_tokens": 4}


def test_filters(home: Path) -> None:
    assert list(history(kind="task", home=home)["task_id"]) == ["vid-1", "img-1"]
    assert list(history(status="queued", home=home)["task_id"]) == ["vid-1"]
    assert list(history(status=["completed"], kind="chat", home=home)["task_id"]) == ["turn-1"]
    assert list(history(model="neutralSora2Pro", home=home)["task_id"]) == ["vid-1"]
    assert list(history(text="fox", home=home)["task_id"]) == ["turn-1", "img-1"]
    assert history(text="no such words", home=home).empty


def test_empty_history_has_columns_and_dtypes(tmp_path: Path) -> None:
    frame = history(home=tmp_path / "fresh")
    assert frame.empty
    assert tuple(frame.columns) == COLUMNS
    assert str(frame["time"].dtype) == "datetime64[ns, UTC]"


def test_default_home_and_callable_package(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_HOME", str(home))
    assert len(history()) == 4
    assert len(mediagen_nb.history()) == 4  # the subpackage module is callable
    assert len(sys.modules["mediagen_nb.history"].history(kind="chat")) == 1


def test_export_csv_roundtrip(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path / "out" / "h.csv", home=home)
    back = pd.read_csv(out)
    assert list(back.columns) == list(COLUMNS)
    assert list(back["task_id"]) == ["asset-1", "turn-1", "vid-1", "img-1"]
    params = back.set_index("task_id").loc["img-1", "parameters"]
    assert json.loads(str(params)) == {"ratio": "1:1"}


def test_export_parquet_roundtrip(home: Path, tmp_path: Path) -> None:
    out = export(tmp_path / "h.parquet", kind="task", home=home)
    back = pd.read_parquet(out)
    assert list(back["task_id"]) == ["vid-1", "img-1"]
    assert str(back["time"].dtype).startswith("datetime64")
    assert str(back["time"].dt.tz) == "UTC"
    assert json.loads(str(back.loc[1, "parameters"])) == {"ratio": "1:1"}


def test_export_of_a_given_frame(home: Path, tmp_path: Path) -> None:
    frame = history(home=home).head(1)
    back = pd.read_csv(export(tmp_path / "one.csv", frame))
    assert list(back["task_id"]) == ["asset-1"]
    assert isinstance(frame["parameters"].iloc[0], dict | type(None))  # caller's frame untouched


def test_export_rejects_unknown_suffix(home: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.csv"):
        export(tmp_path / "h.xlsx", home=home)


def test_importing_history_does_not_import_pandas() -> None:
    code = "import mediagen_nb.history, sys; print('pandas' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
