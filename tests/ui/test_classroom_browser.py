"""The classroom wall page and ClassroomPanel in a real browser: axe and contrast, both themes.

The wall is opened twice per theme: as the projector sees it (view only) and as the teacher
(token in the address's fragment: controls and usage), after one student made an image;
hiding that image from the teacher's page empties the projector's wall. ClassroomPanel is
run in JupyterLab from a small notebook that starts a class and makes one image.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from mediagen_nb.classroom import ClassroomHandle, start_classroom
from mediagen_nb.client import Client
from tests.ui.checks import axe_violations, background_luminance, contrast
from tests.ui.frontends import THEMES, Front, JupyterServer, Theme, new_page

pytestmark = pytest.mark.ui

PANEL_NOTEBOOK = "notebooks/_classroom_panel.ipynb"
CELLS = [
    "import tempfile\nfrom pathlib import Path\nimport mediagen_nb as mg\n"
    "room = mg.start_classroom(2, upstream='emulator', speed=200,"
    " folder=Path(tempfile.mkdtemp()))",
    "with mg.Client(room.codes['student-01'], room.base_url, room.text_base_url) as student:\n"
    "    student.images.create('nano-banana', prompt='a paper crane').wait()",
    "panel = mg.ClassroomPanel(room, export_dir=tempfile.mkdtemp())\npanel",
]


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassroomHandle]:
    folder = tmp_path_factory.mktemp("classroom")
    with start_classroom(2, upstream="emulator", speed=200, folder=folder) as handle:
        with Client(handle.codes["student-01"], handle.base_url, handle.text_base_url) as c:
            c.images.create("nano-banana", prompt="a paper crane over a pond").wait()
        yield handle


def measure(root: Locator, theme: Theme, label: str) -> None:
    violations = axe_violations(root)
    measured = contrast(root)
    shade = background_luminance(root)
    print(
        f"\n{label} {theme}: axe={len(violations)} texts={len(measured.measured)}"
        f" lowest={measured.lowest:.2f}"
    )
    assert (shade < 0.2) if theme == "dark" else (shade > 0.8), shade
    assert len(measured.measured) >= 3
    assert not violations, violations
    assert not measured.failures, measured.failures[:12]


def open_wall(page: Page, url: str) -> Locator:
    page.goto(url)
    root = page.locator(".mg-wall[data-mg-ready='1']")
    expect(root.locator(".mg-class-item").first).to_be_visible()
    return root


@pytest.mark.parametrize("theme", THEMES)
def test_wall_page_accessible_in_both_themes(
    browser: Browser, room: ClassroomHandle, theme: Theme
) -> None:
    room.hide(room.items(include_hidden=True)[0]["id"], hidden=False)
    projector = new_page(browser, theme)
    teacher = new_page(browser, theme)
    try:
        wall = open_wall(projector, room.wall_url)
        expect(wall.locator(".mg-wall-teacher")).to_be_hidden()
        measure(wall, theme, "wall")
        controls = open_wall(teacher, room.teacher_url)
        expect(controls.locator(".mg-class-usage tbody tr")).to_have_count(2)
        measure(controls, theme, "wall (teacher)")
        controls.locator("[data-mg-action='hide']").first.click()
        expect(wall.locator(".mg-class-item")).to_have_count(0, timeout=5_000)
        expect(wall.locator(".mg-class-empty")).to_be_visible()
    finally:
        projector.context.close()
        teacher.context.close()


def write_notebook(root: Path) -> None:
    cells: list[dict[str, object]] = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        for src in CELLS
    ]
    kernel = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4}
    notebook["nbformat_minor"] = 5
    (root / PANEL_NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")


@pytest.mark.parametrize("theme", THEMES)
def test_classroom_panel_accessible_in_both_themes(
    browser: Browser, jupyter: JupyterServer, theme: Theme
) -> None:
    write_notebook(jupyter.root)
    page = new_page(browser, theme)
    try:
        front = Front.open(page, "lab", jupyter, theme, notebook=PANEL_NOTEBOOK)
        root = page.locator(".mg-panel.mg-panel--classroom[data-mg-ready='1']")
        expect(root.locator(".mg-class-item img")).to_have_count(1, timeout=60_000)
        expect(root.locator(".mg-class-usage tbody tr")).to_have_count(2)
        measure(root, theme, "ClassroomPanel")
        assert not front.errors, front.errors
    finally:
        page.context.close()


def test_wall_letterboxes_wide_pictures_and_follows_the_teacher_link(
    browser: Browser, room: ClassroomHandle
) -> None:
    """A 16:9 picture sits whole inside its square tile (letterboxed, not cropped), and pasting
    the teacher's link into the tab that shows the plain wall turns it into the teacher's
    page without a reload (only the fragment changed)."""
    with Client(room.codes["student-02"], room.base_url, room.text_base_url) as student:
        student.images.create("gpt-image-2", prompt="a wide harbour at dawn", ratio="16:9").wait()
    page = new_page(browser, "light")
    try:
        wall = open_wall(page, room.wall_url)
        wide = wall.locator(".mg-class-item", has_text="a wide harbour at dawn").locator("img")
        expect(wide).to_be_visible()
        wide.evaluate(
            "img => img.complete && img.naturalWidth > 0 ? 1 :"
            " new Promise((ok, no) => { img.onload = ok; img.onerror = no; })"
        )
        shape = wide.evaluate(
            "img => ({fit: getComputedStyle(img).objectFit, w: img.naturalWidth,"
            " h: img.naturalHeight, boxW: img.clientWidth, boxH: img.clientHeight})"
        )
        assert abs(shape["w"] / shape["h"] - 16 / 9) < 0.02, shape  # the picture is wide
        assert abs(shape["boxW"] / shape["boxH"] - 1) < 0.02, shape  # in a square tile
        assert shape["fit"] == "contain", shape  # scaled to fit whole: bars, no crop
        expect(wall.locator(".mg-wall-teacher")).to_be_hidden()
        page.evaluate("window.mgSamePage = true")
        fragment = room.teacher_url.split("#", 1)[1]
        page.evaluate(f"location.hash = {json.dumps(fragment)}")
        expect(wall.locator(".mg-wall-teacher")).to_be_visible()
        expect(wall.locator(".mg-class-usage tbody tr")).to_have_count(2)
        expect(wall.locator("[data-mg-action='hide']").first).to_be_visible()
        assert page.evaluate("window.mgSamePage") is True  # no reload
        page.evaluate("location.hash = ''")
        expect(wall.locator(".mg-wall-teacher")).to_be_hidden()
        expect(wall.locator("[data-mg-action='hide']")).to_have_count(0)
    finally:
        page.context.close()
