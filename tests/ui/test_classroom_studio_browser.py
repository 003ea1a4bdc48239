"""A student's Studio connected to a classroom gateway in JupyterLab, both themes: the Connect
form with the student's code, then only the class's models (its default chosen), a first chat
that succeeds, and the "left" line after a generation; and the teacher's usage table, each
count against its limit. axe 0 critical/serious and contrast >= 4.5:1 in light and dark."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from mediagen_nb.classroom import ClassroomHandle, Limits, start_classroom
from mediagen_nb.client import Client
from tests.ui.checks import axe_violations, background_luminance, contrast
from tests.ui.frontends import THEMES, Front, JupyterServer, Theme, new_page
from tests.ui.screenshots import save_screenshot

pytestmark = pytest.mark.ui

MODELS = ["nano-banana", "nano-banana-2", "claude-haiku-4-5", "gpt-5.4-low"]


def _cells(theme: Theme) -> list[str]:
    return [
        "import json, tempfile\nfrom pathlib import Path\nimport mediagen_nb as mg\n"
        "from mediagen_nb.classroom import Limits\n"
        f"room = mg.start_classroom(['ann'], models={MODELS!r},"
        " limits=Limits(images=2, chat_tokens=5000), upstream='emulator', speed=200,"
        " folder=Path(tempfile.mkdtemp()))\n"
        f"Path('_class_{theme}.json').write_text(json.dumps({{'code': room.codes['ann'],"
        " 'base_url': room.base_url, 'text_base_url': room.text_base_url}))",
        "studio = mg.Studio(resume=False)\nstudio",
    ]


def _write_notebook(path: Path, cells: list[str]) -> None:
    kernel = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "source": s,
                "outputs": [],
                "execution_count": None,
            }
            for s in cells
        ],
        "metadata": {"kernelspec": kernel},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _measure(root: Locator, theme: Theme, label: str) -> None:
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


def _class_settings(path: Path, within: float = 60.0) -> dict[str, str]:
    deadline = time.monotonic() + within
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"the notebook did not write {path.name}")
        time.sleep(0.2)
    settings: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return settings


@pytest.mark.parametrize("theme", THEMES)
def test_student_studio_on_a_classroom_gateway(
    browser: Browser, jupyter: JupyterServer, theme: Theme, screenshot_dir: Path
) -> None:
    notebook = f"notebooks/_classroom_studio_{theme}.ipynb"
    _write_notebook(jupyter.root / notebook, _cells(theme))
    page = new_page(browser, theme)
    try:
        front = Front.open(page, "lab", jupyter, theme, notebook=notebook)
        studio = page.locator(".mg-panel.mg-panel--studio[data-mg-ready='1']")
        expect(studio.locator(".mg-bar__mode[data-mode='demo']")).to_be_visible()
        settings = _class_settings(jupyter.root / "notebooks" / f"_class_{theme}.json")
        studio.locator(".mg-bar__connect > summary").click()
        studio.locator("input[name='api-key']").fill(settings["code"])
        studio.locator("input[name='base-url']").fill(settings["base_url"])
        studio.locator("input[name='text-base-url']").fill(settings["text_base_url"])
        studio.locator(".mg-bar__connect [data-mg-action='connect']").click()
        expect(studio.locator(".mg-bar__mode[data-mode='connected']")).to_be_visible()
        left = studio.locator(".mg-bar__left")
        expect(left).to_have_text("2 of 2 images left · 5,000 chat tokens left")

        chat = front.panel("chat")
        model = chat.locator("select[name='model']")
        expect(model).to_have_value("gpt-5.4-low")  # the class's default
        offered = model.locator("option").evaluate_all("os => os.map(o => o.value)")
        assert offered == ["gpt-5.4-low", "claude-haiku-4-5"]
        chat.locator("textarea[name='message']").fill("Say hello to the class")
        chat.locator("[data-mg-action='send']").click()
        reply = chat.locator(".mg-msg--assistant").last
        expect(reply).to_have_attribute("data-state", "complete")
        expect(left).not_to_have_text("2 of 2 images left · 5,000 chat tokens left")
        expect(left).to_contain_text("2 of 2 images left")

        images = front.panel("images")
        images.locator("textarea[name='prompt']").fill("a lighthouse at dusk")
        images.locator("[data-mg-action='generate']").click()
        expect(images.locator(".mg-card[data-status='completed']").first).to_be_visible()
        expect(left).to_contain_text("1 of 2 images left")
        card = images.locator(".mg-card[data-status='completed']").first
        animate = card.locator("[data-mg-use='animate']")  # the class allows no video model
        expect(animate).to_have_attribute("aria-disabled", "true")
        expect(animate).to_have_attribute("title", "your class cannot make videos")
        expect(card.locator("[data-mg-use='reference']")).not_to_have_attribute(
            "aria-disabled", "true"
        )
        _measure(studio, theme, "Studio on a classroom gateway")
        save_screenshot(studio, screenshot_dir / f"studio-classroom-{theme}.png")
        assert not front.errors, front.errors
    finally:
        page.context.close()


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClassroomHandle]:
    """One student over the chat cap, one image of two made; a second student unused."""
    folder = tmp_path_factory.mktemp("capped-class")
    limits = Limits(images=2, chat_tokens=40)
    with start_classroom(2, limits=limits, upstream="emulator", speed=200, folder=folder) as room:
        with Client(room.codes["student-01"], room.base_url, room.text_base_url) as c:
            c.images.create("nano-banana", prompt="a paper boat").wait()
            c.chat.completions.create(
                model="gpt-5.4-low",
                messages=[{"role": "user", "content": "Tell me a long story about a boat"}],
            )
        yield room


@pytest.mark.parametrize("theme", THEMES)
def test_usage_table_shows_counts_against_limits(
    browser: Browser, capped: ClassroomHandle, theme: Theme, screenshot_dir: Path
) -> None:
    used = capped.usage()[0]["chat_tokens"]
    assert used > 40
    page = new_page(browser, theme)
    try:
        page.goto(capped.teacher_url)
        wall = page.locator(".mg-wall[data-mg-ready='1']")
        row = wall.locator(".mg-class-usage tr[data-row-key='student-01']")
        expect(row).to_be_visible()
        cells = row.locator("[role='cell']")
        texts = cells.all_inner_texts()
        assert [t.split("\n")[-1].strip() for t in texts[2:]] == [
            "1 of 2",
            "0",
            "0",
            f"{used:,} of 40 tokens",
        ]
        full = row.locator(".mg-class-count[data-full='1']")
        expect(full).to_have_text(f"{used:,} of 40 tokens")
        other = wall.locator(".mg-class-usage tr[data-row-key='student-02'] .mg-class-count")
        expect(other).to_have_text(["0 of 2", "0 of 40 tokens"])
        _measure(wall, theme, "teacher page usage")
        save_screenshot(wall.locator(".mg-wall-teacher"), screenshot_dir / f"usage-{theme}.png")
    finally:
        page.context.close()
