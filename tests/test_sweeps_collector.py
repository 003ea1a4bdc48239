"""A large sweep keeps its live objects out of Python's full collections, and gives them back.

Bench figure 12 (10,000 cells) stalled the event loop for up to 350 ms, every stall a full
collection that found nothing to free (``gc.callbacks`` timed them at 266-336 ms). While a
run of ``LARGE_RUN`` cells or more is under way, the survivors of each full collection are
frozen; when the last such run ends they are unfrozen.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import mediagen_nb as mg
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.sweeps import _collector
from mediagen_nb.sweeps._collector import LARGE_RUN, settled_survivors


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    """Each test starts with nothing frozen and leaves nothing frozen or hooked."""
    assert gc.get_freeze_count() == 0
    yield
    leftover = _collector._after_collection in gc.callbacks
    if leftover:
        gc.callbacks.remove(_collector._after_collection)
    gc.unfreeze()
    _collector._runs = 0
    assert not leftover, "a run left its collector hook behind"


def survivors(count: int = 2_000) -> list[dict[str, Any]]:
    """Container objects a collection tracks (and that survive it while kept)."""
    return [{"cell": [i]} for i in range(count)]


def test_a_large_run_freezes_each_full_collections_survivors_and_unfreezes_at_its_end() -> None:
    gc.disable()  # only the collections asked for here run (and call the hook)
    try:
        large_run_freezes_survivors()
    finally:
        gc.enable()
    assert gc.get_freeze_count() == 0
    assert _collector._after_collection not in gc.callbacks


def large_run_freezes_survivors() -> None:
    with settled_survivors(LARGE_RUN) as used:
        assert used
        kept = survivors()
        gc.collect()
        frozen = gc.get_freeze_count()  # (frozen objects freed by refcount leave the count)
        assert frozen >= len(kept)
        more = survivors()
        gc.collect(1)  # a younger collection freezes nothing
        assert gc.get_freeze_count() <= frozen
        gc.collect()
        assert gc.get_freeze_count() >= len(kept) + len(more)
        assert gc.get_freeze_count() > frozen


def test_a_small_run_leaves_the_collector_alone() -> None:
    with settled_survivors(LARGE_RUN - 1) as used:
        assert not used
        _kept = survivors()
        gc.collect()
        assert gc.get_freeze_count() == 0
    assert _collector._after_collection not in gc.callbacks


def test_runs_at_once_unfreeze_when_the_last_one_ends() -> None:
    with settled_survivors(LARGE_RUN) as first:
        with settled_survivors(LARGE_RUN) as second:
            assert first
            assert second
            _kept = survivors()
            gc.collect()
            assert gc.get_freeze_count() > 0
        gc.collect()
        assert gc.get_freeze_count() > 0  # the first run is still going
        assert gc.callbacks.count(_collector._after_collection) == 1
    assert gc.get_freeze_count() == 0


def test_objects_frozen_by_someone_else_are_left_frozen() -> None:
    _theirs = survivors()
    gc.collect()
    gc.freeze()
    before = gc.get_freeze_count()
    try:
        with settled_survivors(LARGE_RUN * 10) as used:
            assert not used  # unfreezing at the end would undo their freeze
            assert _collector._after_collection not in gc.callbacks
            _kept = survivors()
            gc.collect()
            assert gc.get_freeze_count() <= before  # nothing more was frozen
        assert gc.get_freeze_count() >= len(_theirs)  # and theirs stay frozen
    finally:
        gc.unfreeze()


@pytest.mark.emulator(speed=600.0)
async def test_a_sweep_run_settles_survivors_while_it_runs_only(
    emulator: EmulatorHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_collector, "LARGE_RUN", 4)  # 4 cells stand for a large sweep here
    plan = mg.sweep("image", model="gpt-image-2", prompt=["a fox", "an owl", "a cat", "a dog"])
    frozen_during: list[int] = []

    def collected(_index: int) -> None:
        gc.collect()
        frozen_during.append(gc.get_freeze_count())

    plan.on_change(collected)
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        frame = await plan.run(concurrency=4, client=client)
    assert frame["status"].tolist() == ["completed"] * 4
    assert frozen_during
    assert max(frozen_during) > 0
    assert gc.get_freeze_count() == 0
    assert _collector._after_collection not in gc.callbacks
