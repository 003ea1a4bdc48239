"""The teacher's views stay cheap and safe: ``/wall/api/state`` reads each task and each
student a bounded number of times, not students x tasks (row 11 of issue 31), and the
gallery's CSV never hands a spreadsheet a formula (row 13)."""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb.classroom._codes import Roster
from mediagen_nb.classroom._export import export_zip
from mediagen_nb.classroom._ledger import SqliteClassLedger
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._rules import Rules
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._wall import teacher_state

READS = [0]


class CountedRecord(TaskRecord):
    """A task that counts every read of its fields (the work a view does per task)."""

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("__"):
            READS[0] += 1
        return super().__getattribute__(name)


@pytest.fixture
def state(tmp_path: Path) -> Iterator[ClassState]:
    ledger = SqliteClassLedger(tmp_path)
    try:
        yield ClassState(ledger, Roster(), Rules())
    finally:
        ledger.close()


def task(n: int, student: str, **fields: Any) -> TaskRecord:
    values: dict[str, Any] = {
        "id": f"t{n}",
        "student": student,
        "kind": "image",
        "family": "image2",
        "model": "gpt-image-2",
        "prompt": f"prompt {n}",
        "status": "completed",
        "created": 1_750_000_000.0 + n,
        "updated": 1_750_000_000.0 + n,
        "media": f"file{n:08d}.png",
    }
    values.update(fields)
    return CountedRecord(**values)


def test_the_teacher_state_reads_grow_with_students_plus_tasks(state: ClassState) -> None:
    students = 1_000
    names = [state.roster.add(f"student-{n:04d}").name for n in range(students)]
    tasks = [task(n, names[n]) for n in range(students)]  # one image each
    tasks += [  # and as many refusals, which count for nobody
        task(students + n, names[n], status="failed", media=None, refused=True)
        for n in range(students)
    ]
    state.load(tasks, {names[0]: 42})
    READS[0] = 0
    view = teacher_state(state, {})
    reads = READS[0]
    print(f"{students} students, {len(tasks)} tasks: {reads} field reads")
    assert reads < 30 * (students + len(tasks))  # students x tasks would be 2,000,000
    usage = {row["student"]: row for row in view["usage"]}
    assert len(usage) == students
    assert {row["images"] for row in usage.values()} == {1}
    assert usage[names[0]]["chat_tokens"] == 42
    assert sum(row["chat_tokens"] for row in usage.values()) == 42
    assert len(view["items"]) == students


FORMULAS = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx", '=HYPERLINK("http://x")']


def test_gallery_csv_cells_never_start_a_formula(state: ClassState, tmp_path: Path) -> None:
    media = tmp_path / "media"
    media.mkdir()
    prompts = [*FORMULAS, "a calm lake", "2+2 cats"]
    for n, prompt in enumerate(prompts):
        record = task(n, state.roster.add(f"student-{n}").name, prompt=prompt)
        (media / str(record.media)).write_bytes(b"\x89PNG\r\n\x1a\n")
        state.put_task(record)
    with zipfile.ZipFile(io.BytesIO(export_zip(state, media))) as archive:
        text = archive.read("gallery.csv").decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    cells = {row["prompt"] for row in rows}
    assert len(rows) == len(prompts)
    assert not any(
        c.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows for c in row.values()
    )
    assert cells == {"'" + p for p in FORMULAS} | {"a calm lake", "2+2 cats"}
