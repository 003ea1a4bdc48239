"""Image and video panels in a real JupyterLab: Generate clicked in the browser, the task
card reaches ``completed`` and shows the preview that travelled over the widget comm."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import Lab

pytestmark = pytest.mark.ui

CELLS = [
    "from mediagen_nb import ImagePanel, VideoPanel\n"
    'img = ImagePanel(model="nano-banana")\n'
    'img.form.field("prompt").input.value = "a red fox in snow"\n'
    "img",
    'vid = VideoPanel(model="seedance_1_5_pro_480p")\n'
    'vid.form.field("content").text.value = "waves at dusk"\n'
    "vid",
]


def _write_notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
        for src in CELLS
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))


def test_generate_in_browser_shows_previews(lab: Lab, tmp_path: Path) -> None:
    errors: list[str] = []
    lab.page.on("pageerror", lambda exc: errors.append(str(exc)))
    _write_notebook(lab.server.root / "notebooks" / "_generate_ui.ipynb")
    lab.open("_generate_ui.ipynb")
    lab.run_all()
    page = lab.page
    buttons = page.locator(".mediagen-generate")
    expect(buttons).to_have_count(2)
    expect(buttons.first).to_be_enabled()
    buttons.first.click()
    buttons.nth(1).click()

    image_card = page.locator(
        '.mediagen-task-card[data-status="completed"]:has(img.mediagen-preview)'
    )
    expect(image_card).to_have_count(1)
    expect(image_card.locator("img.mediagen-preview")).to_be_visible()
    video_card = page.locator(
        '.mediagen-task-card[data-status="completed"]:has(video.mediagen-preview)'
    )
    expect(video_card).to_have_count(1)
    # the src may be set just after the element appears: wait for it, do not read it once
    expect(video_card.locator("video.mediagen-preview")).to_have_attribute("src", re.compile(r"\S"))

    image_card.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "image-panel.png"))
    image_card.locator("img.mediagen-preview").click()  # full size, sent on demand
    expect(page.locator(".mediagen-overlay img.mediagen-full")).to_be_visible()
    page.screenshot(path=str(tmp_path / "generate-panels.png"))
    overlay = image_card.locator(".mediagen-overlay")
    overlay.click()
    expect(overlay).to_be_hidden()
    assert errors == []
