"""Chat streaming seen in the browser, and the playground rendered by Voila as an app.

The chat test runs its own emulator at speed 1 (real pacing: about 40 deltas over 1.5 s) so
the transcript visibly grows; the playground's default emulator runs 30x faster, too fast to
watch a stream arrive.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from lab_driver import Lab, Server, save_screenshot
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.ui

CHAT_NOTEBOOK = "_ui_chat_stream.ipynb"
CHAT_CELL = """\
import mediagen_nb as mg
from mediagen_nb.widgets import Session

emulator = mg.start_emulator(speed=1)
session = Session(
    api_key=emulator.api_key,
    base_url=emulator.base_url,
    text_base_url=emulator.text_base_url,
)
mg.ChatPanel(session=session)
"""
RECORD_LENGTHS = """() => {
    window.__lengths = [];
    const body = () => {
        const turns = document.querySelectorAll('.mediagen-turn[data-role=assistant]');
        const last = turns[turns.length - 1];
        return last ? last.querySelector('.mediagen-turn-body') : null;
    };
    new MutationObserver(() => {
        const node = body();
        const n = node ? node.textContent.length : 0;
        if (n && window.__lengths.at(-1) !== n) window.__lengths.push(n);
    }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def write_notebook(path: Path, source: str) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, path)


def test_chat_text_streams_in_progressively(lab: Lab, screenshot_dir: Path) -> None:
    write_notebook(lab.server.root / "notebooks" / CHAT_NOTEBOOK, CHAT_CELL)
    lab.open(CHAT_NOTEBOOK)
    lab.run_all()
    panel = lab.page.locator(".mediagen-chat-panel")
    expect(panel.locator(".mediagen-chat")).to_be_visible()
    message = panel.locator(".mediagen-chat-input textarea")
    message.fill("Explain in a few sentences why the sea is salty.")
    message.blur()
    lab.page.evaluate(RECORD_LENGTHS)
    panel.locator("button.mediagen-send").click()
    done = panel.locator(".mediagen-turn[data-role=assistant][data-done=true]")
    expect(done).to_have_count(1)
    final = len(done.locator(".mediagen-turn-body").text_content() or "")
    lengths: list[int] = lab.page.evaluate("window.__lengths")
    assert len(lengths) >= 3, lengths  # several partial renders, not one jump to the end
    assert lengths == sorted(lengths), lengths  # text only ever grows
    assert 0 < lengths[0] < final, (lengths, final)
    save_screenshot(panel, screenshot_dir / "chat.png")


def test_voila_renders_the_studio(page: Page, voila_server: Server, screenshot_dir: Path) -> None:
    page.goto(f"{voila_server.url}/voila/render/00-playground.ipynb")
    studio = page.locator(".mediagen-studio")
    expect(studio).to_be_visible()
    expect(studio.locator(".mediagen-banner")).to_contain_text("demo mode")
    for title in ("Chat", "Images", "Videos", "Assets", "History"):
        expect(studio.locator(".mediagen-tabs .lm-TabBar-tab", has_text=title)).to_be_visible()
    expect(page.locator(".jp-InputArea, .jp-Cell-inputWrapper")).to_have_count(0)  # no code
    save_screenshot(studio, screenshot_dir / "voila.png")
