"""The polling rules the client's tasks and the classroom's tracker share (``poll_pace``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from mediagen_nb.catalog import Family, families, family
from mediagen_nb.classroom._tracker import Tracker
from mediagen_nb.client import PollPace, poll_pace
from mediagen_nb.client._pace import DEADLINE_FLOOR_S, MIN_POLL_INTERVAL_S


def test_the_pace_follows_the_catalog_and_the_speed() -> None:
    seedance = family("seedance")
    model = seedance.models[0]
    assert poll_pace(seedance, model) == PollPace(10.0, max(600.0, 3 * seedance.eta(model)[1]))
    fast = poll_pace(seedance, model, 40.0)
    assert fast.interval == pytest.approx(0.25)
    assert fast.deadline == pytest.approx(max(600.0, 3 * seedance.eta(model)[1]) / 40.0)


def _model(fam: Family) -> str:
    return fam.models[-1] if fam.models else ""


def test_floors_hold_at_any_speed() -> None:
    for fam in families():
        pace = poll_pace(fam, _model(fam), 1_000_000.0)
        assert (pace.interval, pace.deadline) == (MIN_POLL_INTERVAL_S, DEADLINE_FLOOR_S)


def test_an_unknown_family_is_polled_every_five_seconds_for_half_an_hour() -> None:
    assert poll_pace(None, "mystery-1") == PollPace(5.0, 1800.0)
    assert poll_pace(None, "mystery-1", 2.0) == PollPace(2.5, 900.0)


def test_a_longer_clip_waits_longer_where_the_eta_grows_with_it() -> None:
    grows = [f for f in families() if f.eta_per_8s]
    assert grows, "the catalog has a family whose ETA grows with the clip"
    fam = grows[0]
    short = poll_pace(fam, fam.models[0], duration=4.0).deadline
    long = poll_pace(fam, fam.models[0], duration=400.0).deadline
    assert long > short


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [
        (None, 10.0),
        ("3", 3.0),
        ("1.5", 1.5),
        (2.0, 2.0),
        ("0", MIN_POLL_INTERVAL_S),
        ("Thu, 01 Jan 1970 00:00:00 GMT", MIN_POLL_INTERVAL_S),
        ("soon", 10.0),
    ],
)
def test_a_busy_answer_waits_its_retry_after_else_one_interval(
    retry_after: float | str | None, expected: float
) -> None:
    assert PollPace(10.0, 600.0).after_busy(retry_after) == expected


def test_the_classroom_tracker_polls_at_the_clients_pace() -> None:
    upstream = SimpleNamespace(speed=30.0)
    state = SimpleNamespace(shared=None)  # one gateway, no shared ledger
    http = SimpleNamespace(timeout=None)
    tracker = Tracker(cast(Any, state), cast(Any, upstream), cast(Any, http), Path("."))
    for fam in families():
        record = cast(Any, SimpleNamespace(family=fam.id, model=_model(fam)))
        assert tracker.pace(record) == poll_pace(fam, _model(fam), 30.0)
        assert tracker.interval(record) == poll_pace(fam, _model(fam), 30.0).interval
    unknown = cast(Any, SimpleNamespace(family="nope", model="x"))
    assert tracker.pace(unknown) == poll_pace(None, "x", 30.0)
