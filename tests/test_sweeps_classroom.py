"""A sweep through the classroom gateway: a cell the class refuses shows the class's sentence."""

from __future__ import annotations

import mediagen_nb as mg
from mediagen_nb.classroom import ClassroomHandle, Limits, Rules
from tests._classroom_helpers import student


async def test_a_refused_cell_shows_the_classs_sentence(classroom: ClassroomHandle) -> None:
    classroom.set_rules(Rules(limits=Limits(images=2)))
    plan = mg.sweep("image", model="nano-banana", prompt=["one", "two", "three"])
    async with student(classroom, next(iter(classroom.codes.values()))) as client:
        frame = await plan.run(concurrency=1, client=client)
    assert frame["status"].tolist() == ["completed", "completed", "failed"]
    assert frame["error"].tolist()[2] == "your class allows 2 images each; you have used 2"
    assert frame["task_id"].notna().all()  # the refusal is a (failed) task, as the class says
