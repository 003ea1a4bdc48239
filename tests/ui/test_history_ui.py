"""HistoryPanel in a real JupyterLab: an image row shows its thumbnail, a video row the inline
SVG video badge (drawn, 64x40), and no row has an image that fails to load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_driver import Lab, save_screenshot
from playwright.sync_api import expect

pytestmark = pytest.mark.ui

CELLS = [
    "import mediagen_nb as mg\n"
    "emu = mg.start_emulator(speed=600)\n"
    "client = mg.AsyncClient(\n"
    "    api_key=emu.api_key, base_url=emu.base_url, text_base_url=emu.text_base_url\n"
    ")\n"
    'image = await client.images.create("nano-banana", prompt="a red fox in snow")\n'
    "await image.wait()\n"
    "video = await client.videos.create(\n"
    '    "seedance_1_5_pro_480p", content=[{"type": "text", "text": "waves at dusk"}],'
    " duration=4\n"
    ")\n"
    "await video.wait()\n"
    "print(image.status, video.status)",
    "mg.HistoryPanel()",
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


def test_history_video_row_shows_a_video_badge(lab: Lab, tmp_path: Path) -> None:
    errors: list[str] = []
    lab.page.on("pageerror", lambda exc: errors.append(str(exc)))
    _write_notebook(lab.server.root / "notebooks" / "_history_ui.ipynb")
    lab.open("_history_ui.ipynb")
    lab.run_all()
    page = lab.page
    expect(page.locator(".jp-OutputArea-output", has_text="completed completed")).to_have_count(1)
    table = page.locator(".mediagen-history-table")
    expect(table.locator("tr[data-kind=task]")).to_have_count(2)

    video_row = table.locator("tr[data-kind=task]", has_text="waves at dusk")
    expect(video_row.locator("img")).to_have_count(0)
    badge = video_row.locator("svg.mediagen-thumb-video")
    expect(table.locator("svg")).to_have_count(1)
    expect(badge).to_be_visible()
    expect(badge).to_have_attribute("data-cached", "true")
    box = badge.bounding_box()
    assert box is not None
    assert (round(box["width"]), round(box["height"])) == (64, 40)

    image_row = table.locator("tr[data-kind=task]", has_text="a red fox in snow")
    expect(image_row.locator("img.mediagen-thumb")).to_have_count(1)
    expect(table.locator("img")).to_have_count(1)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.mediagen-history-table img')]"
        ".every(i => i.complete && i.naturalWidth > 0)"
    )
    save_screenshot(page.locator(".mediagen-history-panel"), tmp_path / "history-video.png")
    assert errors == []
