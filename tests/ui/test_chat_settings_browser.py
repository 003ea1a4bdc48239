"""The chat form's Settings in JupyterLab, drawn from the catalog's declared list: which rows
show on each protocol and sampling choice, a number rule said next to its field, the tools
example inserted, and every value reaching Copy as code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.ui.frontends import Front, JupyterServer, new_page
from tests.ui.screenshots import save_screenshot

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module")
def chat(browser: Browser, jupyter: JupyterServer) -> Iterator[tuple[Front, Locator]]:
    page = new_page(browser, "light")
    try:
        front = Front.open(page, "lab", jupyter)
        yield front, front.panel("chat")
    finally:
        page.context.close()


def rows(panel: Locator) -> list[str]:
    """The labels of the Settings rows that show, in order."""
    labels = panel.locator(".mg-chat__settings .mg-field:visible .mg-field__label")
    return [text.strip() for text in labels.all_inner_texts()]


def test_settings_rows_follow_the_declaration(
    chat: tuple[Front, Locator], screenshot_dir: Path
) -> None:
    front, panel = chat
    settings = panel.locator("details.mg-chat__settings")
    settings.locator("summary").click()
    expect(settings).to_have_attribute("open", "")
    assert rows(panel) == [
        "System prompt",
        "Sampling",
        "Max reply length",
        "Stop sequences",
        "Tools",
    ]
    panel.locator("[data-name='sampling'] [data-value='temperature']").click()
    expect(panel.locator("input[name='temperature']")).to_be_visible()
    assert "Temperature" in rows(panel)
    assert panel.locator("input[name='temperature']").get_attribute("max") == "2"
    panel.locator("[data-name='protocol'] [data-value='messages']").click()
    expect(panel.locator("input[name='thinking_budget']")).to_be_visible()
    assert rows(panel) == [
        "System prompt", "Sampling", "Temperature", "Max reply length", "Tools", "Thinking budget",
    ]  # fmt: skip
    expect(panel.locator("input[name='temperature']")).to_have_attribute("max", "1")
    panel.get_by_role("button", name="Insert example").click()
    expect(panel.locator("select[name='tool_choice']")).to_be_visible()
    budget = panel.locator("input[name='thinking_budget']")
    budget.fill("100")
    budget.press("Tab")
    expect(panel.locator(".mg-chat__settings .mg-error:visible")).to_have_text(
        "Thinking budget: must be at least 1024"
    )
    expect(panel.locator("summary.mg-chat__summary")).to_have_text("Settings · 1 to fix")
    budget.fill("2048")
    budget.press("Tab")
    expect(panel.locator("summary.mg-chat__summary")).to_have_text("Settings")
    code = panel.locator(".mg-chat__code pre")
    expect(code).to_contain_text('thinking={"type": "enabled", "budget_tokens": 2048}')
    expect(code).to_contain_text("temperature=1.0")
    expect(code).to_contain_text("max_tokens=3072")
    expect(code).to_contain_text("tools=[")
    save_screenshot(panel, screenshot_dir / "chat-settings-messages.png")
    budget.fill("")  # thinking off: the model may then be made to call a tool
    budget.press("Tab")
    panel.locator("select[name='tool_choice']").select_option("required")
    expect(code).to_contain_text('tool_choice={"type": "any"}')
    expect(code).not_to_contain_text("thinking=")
    expect(code).to_contain_text("max_tokens=1024")
    assert not front.errors, front.errors
