"""``bench/_lite_figures``: the browser tests' figures of the in-browser playground, kept in
a JSON file and printed by ``python -m bench``; the visitor's test adds its second-visit
figures to the first visit's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import _lite_figures  # noqa: E402 - bench/ is a folder of scripts

FIRST = {
    "site_mb": 52.0,
    "downloaded_mb": 40.2,
    "requests": 140,
    "cold_load_s": 9.0,
    "generate_s": 2.0,
}
SECOND = {"compressed_mb": 25.6, "second_load_s": 3.2, "second_downloaded_mb": 0.01}


@pytest.fixture(autouse=True)
def _folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_BENCH_DIR", str(tmp_path))


def test_both_visits_are_printed_together() -> None:
    assert "not measured on this machine yet" in _lite_figures.summary()
    _lite_figures.record(**FIRST)
    _lite_figures.record(**SECOND)
    lines = _lite_figures.summary().splitlines()
    assert len(lines) == 5
    assert "a visitor downloaded 40.2 MB in 140 requests" in lines[1]
    assert lines[3].endswith("a visitor downloaded 25.6 MB until the Studio was ready")
    assert lines[4].endswith("ready in 3.2 s, 0.01 MB downloaded")


def test_the_first_visit_alone_and_the_second_alone() -> None:
    _lite_figures.record(**SECOND)
    assert len(_lite_figures.summary().splitlines()) == 3
    _lite_figures.record(**FIRST)  # a new first visit starts a new measurement
    assert len(_lite_figures.summary().splitlines()) == 3


def test_a_missing_figure_is_named() -> None:
    with pytest.raises(ValueError, match="missing generate_s"):
        _lite_figures.record(**{k: v for k, v in FIRST.items() if k != "generate_s"})
