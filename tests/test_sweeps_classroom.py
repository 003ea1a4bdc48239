"""A sweep through the classroom gateway: a cell the class refuses shows the class's sentence."""

from __future__ import annotations

import pytest

import mediagen_nb as mg
from mediagen_nb.classroom import ClassroomHandle, Limits, Rules
from mediagen_nb.sweeps import BudgetWarning
from tests._classroom_helpers import student


async def test_a_refused_cell_shows_the_classs_sentence(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(limits=Limits(images=2)))
    plan = mg.sweep("image", model="nano-banana", prompt=["one", "two", "three"])
    async with student(classroom, next(iter(classroom.codes.values()))) as client:
        with pytest.warns(BudgetWarning, match="2 of 3 cells fit your budget"):
            frame = await plan.run(concurrency=1, client=client)
    assert frame["status"].tolist() == ["completed", "completed", "failed"]
    assert frame["error"].tolist()[2] == "your class allows 2 images each; you have used 2"
    assert frame["task_id"].notna().all()  # the refusal is a (failed) task, as the class says


async def test_the_plan_says_before_running_how_many_cells_fit(
    classroom: ClassroomHandle,
) -> None:
    """Through a gateway a plan knows what fits before it sends anything, warns when not all
    of it does, and keeps the sentence with its result; off a gateway it says nothing."""
    classroom.set_rules(Rules(limits=Limits(images=2)))
    plan = mg.sweep("image", model="nano-banana", prompt=["one", "two", "three", "four"])
    code = next(iter(classroom.codes.values()))
    async with student(classroom, code) as client:
        before = await plan.fits(client)
        assert before == "2 of 4 cells fit your budget (2 of 2 images left)"
        with pytest.warns(BudgetWarning, match="2 of 4 cells fit your budget"):
            frame = await plan.run(concurrency=1, client=client)
        assert frame.attrs["budget"] == before
        assert frame["status"].tolist() == ["completed", "completed", "failed", "failed"]
        assert await plan.fits(client) == "0 of 4 cells fit your budget (0 of 2 images left)"
    small = mg.sweep("image", model="nano-banana", prompt=["a fox"])
    async with student(classroom, code) as client:  # spent: even one cell does not fit
        with pytest.warns(BudgetWarning, match="0 of 1 cells"):
            await small.run(client=client)


async def test_off_a_gateway_the_plan_has_no_budget(emulator: mg.EmulatorHandle) -> None:
    plan = mg.sweep("image", model="nano-banana", prompt=["one", "two"])
    async with mg.AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as c:
        assert await plan.fits(c) is None
        frame = await plan.run(client=c)
    assert plan.budget is None
    assert "budget" not in frame.attrs
