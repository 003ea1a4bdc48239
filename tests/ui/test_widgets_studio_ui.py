"""Studio in a real JupyterLab: banner and tabs render, a chat reply streams into the
anywidget transcript (Markdown rendered in the browser), and the History tab lists it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.ui.conftest import Lab

pytestmark = pytest.mark.ui

CELLS = [
    "from mediagen_nb import Studio\nstudio = Studio()\nstudio",
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


def test_studio_chat_streams_in_the_browser(lab: Lab, tmp_path: Path) -> None:
    _write_notebook(lab.server.root / "notebooks" / "_studio_ui.ipynb")
    lab.open("_studio_ui.ipynb")
    lab.run_all()
    page = lab.page
    banner = page.locator(".mediagen-banner")
    expect(banner).to_contain_text("demo mode (built-in emulator)")
    for title in ("Chat", "Images", "Videos", "Assets", "History"):
        expect(page.locator(".lm-TabBar-tabLabel", has_text=title).first).to_be_visible()
    expect(page.locator(".mediagen-chat")).to_have_count(1)

    page.locator(".mediagen-chat-input textarea").fill("Explain streaming with a short list")
    send = page.locator(".mediagen-send")
    expect(send).to_be_enabled()
    send.click()
    done = page.locator(".mediagen-turn[data-role=assistant][data-done=true]")
    expect(done).to_have_count(1)
    expect(done).to_have_attribute("data-state", "complete")
    body = done.locator(".mediagen-turn-body")
    expect(body.locator("p").first).to_be_visible()
    assert len(body.inner_text()) > 50
    expect(done.locator(".mediagen-turn-foot")).to_contain_text("usage")
    page.screenshot(path=str(tmp_path / "studio-chat.png"))

    page.locator(".lm-TabBar-tabLabel", has_text="Assets").first.click()
    page.locator(".mediagen-asset-urls textarea").fill("https://example.com/people/carol.png")
    page.locator(".mediagen-asset-submit").click()
    active = page.locator(".mediagen-asset[data-status=Active]")
    expect(active).to_have_count(1)
    copy = page.locator("button.mediagen-copy")
    expect(copy).to_be_visible()
    copy.click()  # headless chromium may refuse the clipboard; the kernel is told either way
    expect(page.locator(".mediagen-asset-clipboard input")).to_have_value(
        re.compile(r"^asset://asset-")
    )
    page.screenshot(path=str(tmp_path / "studio-assets.png"))

    page.locator(".lm-TabBar-tabLabel", has_text="History").first.click()
    expect(page.locator(".mediagen-history-table tr[data-kind=chat]")).to_have_count(1)
    expect(page.locator(".mediagen-history-table tr[data-kind=asset]")).to_have_count(1)
    page.screenshot(path=str(tmp_path / "studio-history.png"))
