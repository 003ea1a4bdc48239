"""``join()`` returns once a panel's background tasks have ended, also when they ended before
it was called and their done callbacks have not run yet (Python 3.12+ returns from
``gather`` over finished tasks without a turn of the loop: ``join`` used to spin for ever)."""

from __future__ import annotations

import asyncio

import pytest

from mediagen_nb.widgets import ImagePanel
from mediagen_nb.widgets._session import Session


async def _quick() -> str:
    return "done"


async def _fails() -> None:
    raise ValueError("the picture could not be read")


@pytest.mark.timeout(60)  # the old join never yields to the loop: only a signal stops it
async def test_join_returns_when_the_tasks_ended_before_their_callbacks_ran() -> None:
    panel = ImagePanel(session=Session())
    tasks = [panel.spawn(_quick(), name=f"quick {n}") for n in range(3)]
    await asyncio.sleep(0)  # they run and end; their done callbacks wait in the loop's queue
    assert all(task.done() for task in tasks)
    assert len(panel._tasks) == 3
    await panel.join()
    assert panel._tasks == set()
    assert panel.running == ()


@pytest.mark.timeout(60)
async def test_join_shows_the_error_of_a_task_that_ended_before_it() -> None:
    panel = ImagePanel(session=Session())
    panel.spawn(_fails(), name="media img_1")
    await asyncio.sleep(0)
    await panel.join()
    assert panel.errors == ["media img_1: ValueError: the picture could not be read"]
