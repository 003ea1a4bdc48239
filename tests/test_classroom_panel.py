"""ClassroomPanel driven from Python, and the wall page's composed front end."""

from __future__ import annotations

import zipfile
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.classroom import ClassroomHandle, ClassroomPanel, start_classroom
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import student, upstream_of


def exported(folder: Path) -> list[Path]:
    return sorted(folder.glob("class-gallery-*.zip"))


def zip_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


async def make_image(classroom: ClassroomHandle, prompt: str) -> str:
    async with student(classroom, next(iter(classroom.codes.values()))) as client:
        task = await client.images.create("nano-banana", prompt=prompt)
        await task.wait(timeout=30)
    return task.id


async def test_panel_shows_hides_pauses_and_exports(
    classroom: ClassroomHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the notebook's folder: the note names the zip relative to it
    panel = ClassroomPanel(classroom, export_dir=tmp_path / "exports", refresh_s=0.05)
    assert panel.items == []
    assert [row["student"] for row in panel.usage] == ["student-01", "student-02", "student-03"]
    task_id = await make_image(classroom, "a fox in the snow")
    panel.refresh()
    assert [(i["id"], i["student"], i["prompt"], i["hidden"]) for i in panel.items] == [
        (task_id, "student-01", "a fox in the snow", False)
    ]
    assert panel.items[0]["src"].startswith("data:image/jpeg;base64,")
    panel.handle_action({"action": "hide", "id": task_id, "hidden": True})
    assert classroom.items() == []
    assert panel.items[0]["hidden"] is True
    panel.handle_action({"action": "pause", "paused": True})
    assert classroom.paused
    assert panel.paused
    panel.handle_action({"action": "hide", "id": "no-such-task"})
    assert panel.errors[-1].startswith("KeyError")
    panel.handle_action({"action": "export"})
    written = exported(tmp_path / "exports")
    assert len(written) == 1
    assert panel.export_note == f"Gallery saved to exports/{written[0].name}"
    assert panel.export_file == str(written[0].absolute())
    assert zip_names(written[0]) == ["gallery.csv"]  # the only item is hidden
    assert panel.text_summary() == (
        f"Classroom (paused): 3 students, 0 items on the wall; wall at {classroom.wall_url}"
    )
    panel.close()


async def test_wall_page_and_its_front_end_are_served(classroom: ClassroomHandle) -> None:
    async with httpx2.AsyncClient(base_url=classroom.root_url) as http:
        page = await http.get("/wall")
        script = await http.get("/wall/static/wall.js")
        style = await http.get("/wall/static/wall.css")
        missing = await http.get("/wall/static/other.js")
    assert page.headers["content-type"].startswith("text/html")
    assert '<main class="mg-panel mg-wall"' in page.text
    assert script.headers["content-type"].startswith("text/javascript")
    for name in (
        "function mgEl(",
        "function mgTable(",
        "function mgClassGallery(",
        "setup(wall);",
    ):
        assert name in script.text
    assert ".mg-panel {" in style.text
    assert ".mg-class-gallery {" in style.text
    assert missing.status_code == 404


async def test_studio_connect_form_joins_the_class(classroom: ClassroomHandle) -> None:
    """What a student pastes into the Studio's Connect form: the code and both addresses."""
    from mediagen_nb.widgets import Studio
    from mediagen_nb.widgets._session import Session

    studio = Studio(session=Session(), resume=False)
    try:
        studio.handle_action(
            {
                "action": "connect",
                "key": classroom.codes["student-03"],
                "base_url": classroom.base_url,
                "text_base_url": classroom.text_base_url,
            }
        )
        assert studio.errors == []
        reply = await studio.session.client.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "hello"}]
        )
    finally:
        studio.close()
        await studio.session.aclose()
    assert reply.choices[0].message.content
    assert [row["chat_tokens"] > 0 for row in classroom.usage()] == [False, False, True]


async def test_panel_approval_queue_driven_from_python(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    with start_classroom(
        2,
        upstream=upstream_of(marker_emulator),
        folder=tmp_path / "class",
        approve=True,
        blocked=["volcano"],
    ) as room:
        panel = ClassroomPanel(room, export_dir=tmp_path, refresh_s=0.05)
        assert (panel.approval, panel.queue) == (True, [])
        first = await make_image(room, "a lighthouse")
        second = await make_image(room, "a windmill")
        async with student(room, room.codes["student-02"]) as client:
            await client.images.create("nano-banana", prompt="an erupting volcano")
            await client.chat.completions.create(
                model="gpt-5.4", messages=[{"role": "user", "content": "Name a bird"}]
            )
        panel.refresh()
        assert [(i["id"], i["waiting"]) for i in panel.queue] == [(first, True), (second, True)]
        assert all(i["src"].startswith("data:image/jpeg;base64,") for i in panel.queue)
        assert [i["waiting"] for i in panel.items] == [True, True]
        assert [(r["student"], r["prompt"]) for r in panel.refusals] == [
            ("student-02", "an erupting volcano")
        ]
        assert [(c["student"], c["prompt"]) for c in panel.chats] == [("student-02", "Name a bird")]
        assert panel.chats[0]["answer"]
        assert panel.chats[0]["tokens"] > 0
        assert panel.approve() == first  # the first one waiting, as the A key does
        panel.handle_action({"action": "hide", "id": second, "hidden": True})
        assert (panel.queue, [i["id"] for i in room.items()]) == ([], [first])
        assert panel.approve() is None
        assert panel.text_summary().startswith(
            "Classroom (running): 2 students, 1 items on the wall, 0 waiting for approval"
        )
        panel.handle_action({"action": "approve", "id": "no-such-task"})
        assert panel.errors[-1].startswith("KeyError")
        panel.close()
