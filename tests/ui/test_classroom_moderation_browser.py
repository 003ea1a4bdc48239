"""The teacher's approval queue in a real browser: keys only, axe and contrast in both themes.

A class with ``approve=True`` and one blocked word: three images wait, one prompt was
refused, one chat turn was read. The teacher page shows the queue, the refused prompt and
the chat turn (axe 0 critical/serious, contrast >= 4.5 in light and dark); then, from the
keyboard alone, the teacher looks through the queue (J, ArrowLeft), approves (A) and hides
(H); the projector's wall shows exactly what was approved, and focus never leaves the queue
until it is empty (then it rests on the queue's heading). In JupyterLab, ClassroomPanel's
queue takes the same keys without JupyterLab acting on them (A would insert a cell).
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
from tests.ui.screenshots import save_screenshot

pytestmark = pytest.mark.ui
PROMPTS = ["a paper crane", "a clay teapot", "a glass marble"]


def moderated_class(folder: Path) -> ClassroomHandle:
    room = start_classroom(
        2, upstream="emulator", speed=200, folder=folder, approve=True, blocked=["volcano"]
    )
    with Client(room.codes["student-01"], room.base_url, room.text_base_url) as one:
        for prompt in PROMPTS[:2]:
            one.images.create("nano-banana", prompt=prompt).wait()
        one.chat.completions.create(
            model="gpt-5.4", messages=[{"role": "user", "content": "Name three birds"}]
        )
    with Client(room.codes["student-02"], room.base_url, room.text_base_url) as two:
        two.images.create("nano-banana", prompt=PROMPTS[2]).wait()
        two.images.create("nano-banana", prompt="an erupting volcano")
    return room


@pytest.fixture
def room(tmp_path: Path) -> Iterator[ClassroomHandle]:
    with moderated_class(tmp_path / "class") as handle:
        yield handle


def open_teacher(page: Page, room: ClassroomHandle) -> Locator:
    page.goto(room.teacher_url)
    root = page.locator(".mg-wall[data-mg-ready='1']")
    expect(root.locator(".mg-class-queue__card img")).to_be_visible()
    return root


@pytest.mark.parametrize("theme", THEMES)
def test_teacher_page_with_queue_is_accessible(
    browser: Browser, room: ClassroomHandle, theme: Theme, screenshot_dir: Path
) -> None:
    page = new_page(browser, theme)
    try:
        root = open_teacher(page, room)
        expect(root.locator(".mg-class-queue__count")).to_have_text("3 waiting; showing 1 of 3.")
        expect(root.locator(".mg-class-refusals tbody tr")).to_have_count(1)
        expect(root.locator(".mg-class-refusals tbody")).to_contain_text("an erupting volcano")
        expect(root.locator(".mg-class-chats tbody tr")).to_have_count(1)
        expect(root.locator(".mg-class-chats tbody")).to_contain_text("Name three birds")
        # the teacher sees waiting items' pictures (fetched with the token), the projector not
        expect(root.locator(".mg-class-item img")).to_have_count(3)
        root.locator(".mg-class-item img").first.evaluate(
            "img => img.complete && img.naturalWidth > 0 ? 1 :"
            " new Promise((ok, no) => { img.onload = ok; img.onerror = no; })"
        )
        violations = axe_violations(root)
        measured = contrast(root)
        shade = background_luminance(root)
        print(
            f"\nteacher page with queue {theme}: axe={len(violations)}"
            f" texts={len(measured.measured)} lowest={measured.lowest:.2f}"
        )
        save_screenshot(root, screenshot_dir / f"classroom-queue-{theme}.png")
        assert (shade < 0.2) if theme == "dark" else (shade > 0.8), shade
        assert len(measured.measured) >= 10
        assert not violations, violations
        assert not measured.failures, measured.failures[:12]
    finally:
        page.context.close()


def shown_prompt(root: Locator) -> str:
    return root.locator(".mg-class-queue__card .mg-class-item__prompt").inner_text()


def test_the_queue_works_from_the_keyboard(browser: Browser, room: ClassroomHandle) -> None:
    teacher = new_page(browser, "light")
    projector = new_page(browser, "light")
    try:
        wall = projector.locator(".mg-wall[data-mg-ready='1']")
        projector.goto(room.wall_url)
        expect(wall.locator(".mg-wall-status")).to_have_text("0 on the wall")
        root = open_teacher(teacher, room)
        card = root.locator(".mg-class-queue__card")
        card.focus()
        assert shown_prompt(root) == PROMPTS[0]  # oldest first
        teacher.keyboard.press("j")
        expect(card).to_have_attribute(
            "aria-label", f"Item 2 of 3: image by student-01: {PROMPTS[1]}"
        )
        teacher.keyboard.press("ArrowRight")
        assert shown_prompt(root) == PROMPTS[2]
        teacher.keyboard.press("ArrowLeft")
        teacher.keyboard.press("k")
        assert shown_prompt(root) == PROMPTS[0]
        teacher.keyboard.press("a")  # approve the crane
        expect(root.locator(".mg-class-queue__count")).to_have_text("2 waiting; showing 1 of 2.")
        expect(card).to_be_focused()
        expect(teacher.locator("[aria-live='polite'][role='status']").last).to_have_text(
            f"Approved: image by student-01: {PROMPTS[0]}. 2 waiting.", timeout=5_000
        )
        teacher.keyboard.press("h")  # hide the teapot
        expect(root.locator(".mg-class-queue__count")).to_have_text("1 waiting; showing 1 of 1.")
        assert shown_prompt(root) == PROMPTS[2]
        teacher.keyboard.press("a")  # approve the marble: the queue is empty
        expect(root.locator(".mg-class-queue__title")).to_be_focused()
        expect(root.locator(".mg-class-queue__count")).to_contain_text("Nothing is waiting")
        expect(wall.locator(".mg-class-item")).to_have_count(2, timeout=5_000)
        shown = sorted(wall.locator(".mg-class-item__prompt").all_inner_texts())
        assert shown == sorted([PROMPTS[0], PROMPTS[2]])
        hidden = [i["prompt"] for i in room.items(include_hidden=True) if i["hidden"]]
        assert hidden == [PROMPTS[1]]
    finally:
        teacher.context.close()
        projector.context.close()


def test_the_queue_buttons_work_with_tab_and_enter(browser: Browser, room: ClassroomHandle) -> None:
    page = new_page(browser, "dark")
    try:
        root = open_teacher(page, room)
        root.locator(".mg-class-queue__card").focus()
        page.keyboard.press("Tab")
        expect(root.locator("[data-mg-action='queue-approve']")).to_be_focused()
        page.keyboard.press("Enter")
        expect(root.locator(".mg-class-queue__count")).to_have_text("2 waiting; showing 1 of 2.")
        expect(root.locator("[data-mg-action='queue-approve']")).to_be_focused()
        expect(root.locator(".mg-wall-status")).to_have_text("1 on the wall", timeout=5_000)
        assert [i["prompt"] for i in room.items()] == [PROMPTS[0]]
    finally:
        page.context.close()


PANEL_NOTEBOOK = "notebooks/_classroom_queue.ipynb"
PANEL_CELLS = [
    "import tempfile\nfrom pathlib import Path\nimport mediagen_nb as mg\n"
    "room = mg.start_classroom(1, upstream='emulator', speed=200, approve=True,"
    " folder=Path(tempfile.mkdtemp()))",
    "with mg.Client(room.codes['student-01'], room.base_url, room.text_base_url) as student:\n"
    "    for prompt in ['a red kite', 'a blue boat']:\n"
    "        student.images.create('nano-banana', prompt=prompt).wait()",
    "panel = mg.ClassroomPanel(room, export_dir=tempfile.mkdtemp())\npanel",
]


def write_notebook(root: Path) -> None:
    cells: list[dict[str, object]] = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        for src in PANEL_CELLS
    ]
    kernel = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4}
    notebook["nbformat_minor"] = 5
    (root / PANEL_NOTEBOOK).write_text(json.dumps(notebook), encoding="utf-8")


def test_panel_queue_keys_in_jupyterlab(browser: Browser, jupyter: JupyterServer) -> None:
    write_notebook(jupyter.root)
    page = new_page(browser, "light")
    try:
        front = Front.open(page, "lab", jupyter, "light", notebook=PANEL_NOTEBOOK)
        root = page.locator(".mg-panel.mg-panel--classroom[data-mg-ready='1']")
        card = root.locator(".mg-class-queue__card")
        expect(card.locator("img")).to_be_visible(timeout=60_000)
        cells = page.locator(".jp-Notebook .jp-Cell")
        expect(cells).to_have_count(len(PANEL_CELLS))
        card.focus()
        page.keyboard.press("j")
        expect(card).to_contain_text("a blue boat")
        page.keyboard.press("a")
        expect(root.locator(".mg-class-queue__count")).to_have_text(
            "1 waiting; showing 1 of 1.", timeout=10_000
        )
        expect(card).to_contain_text("a red kite")
        page.keyboard.press("h")
        expect(root.locator(".mg-class-queue__title")).to_be_focused()
        expect(root.locator(".mg-class-item[data-hidden='1']")).to_have_count(1, timeout=10_000)
        expect(root.locator(".mg-class-item__tag")).to_have_count(0)
        expect(cells).to_have_count(len(PANEL_CELLS))  # JupyterLab inserted no cell
        assert not front.errors, front.errors
    finally:
        page.context.close()
