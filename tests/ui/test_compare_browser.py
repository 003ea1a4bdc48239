"""Compare in the Studio in a real browser: JupyterLab 4, Notebook 7, Voila and marimo.

On each front end's playground: Images with Compare on and four models, one Generate makes
four live cards (the time from the click to all four on the page is printed, not asserted),
each ends with its picture; Keep this one moves a card to the gallery; the row's Copy as code
holds the ``mg.sweep(...)`` call; Chat compares two models, one Stop stops both; the History
panel filters the comparison. Then axe (0 critical, 0 serious) and computed contrast (4.5:1)
of the Images and Chat panels in light and dark, photographed at 1400 and 600 px.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.ui.checks import axe_violations, contrast, overflow
from tests.ui.frontends import KINDS, THEMES, Front, JupyterServer, Kind, MarimoServer, Theme
from tests.ui.screenshots import save_screenshot
from tests.ui.test_studio_browser import Pages

pytestmark = pytest.mark.ui

FOUR = ("Nano Banana Pro", "GPT Image 2", "Nano Banana 2")
"""Ticked after the two Compare starts with (the form's model and the next one)."""
PROMPT = "a lighthouse on a cliff at dusk"
MEASURED: tuple[Kind, ...] = ("lab", "voila", "marimo")
DONE_MS = 120_000


@pytest.fixture(scope="module")
def pages(browser: Browser, jupyter: JupyterServer, marimo: MarimoServer) -> Iterator[Pages]:
    opened = Pages(browser, jupyter, marimo)
    try:
        yield opened
    finally:
        opened.close()


def compare_images(front: Front) -> Locator:
    """Compare on, four models, a prompt, Generate: four cards, each ending with its picture.
    Returns the row."""
    panel = front.panel("images")
    panel.locator("input[name='compare']").check()
    picker = panel.locator(".mg-cmp__picker")
    expect(picker).to_be_visible()
    expect(picker.locator("input:checked")).to_have_count(2)
    for title in FOUR:
        box = picker.get_by_role("checkbox", name=title, exact=True)
        if not box.is_checked():
            box.check()
            expect(box).to_be_checked()
    expect(picker.locator("input:checked")).to_have_count(4)
    expect(picker.locator("input:disabled")).not_to_have_count(0)  # a fifth cannot be ticked
    resolution = panel.locator(".mg-cmp__row", has_text="Resolution")
    expect(resolution).to_contain_text("For Nano Banana")
    prompt = panel.locator("textarea[name='compare-prompt']")
    prompt.fill(PROMPT)
    generate = panel.locator("[data-mg-action='generate']")
    expect(generate).to_be_enabled()
    cards = panel.locator(".mg-cmp__row-cards").first.locator(".mg-card")
    before = panel.locator(".mg-cmp__row-cards").count()
    start = time.monotonic()
    generate.click()
    expect(panel.locator(".mg-cmp__row-cards")).to_have_count(before + 1)
    expect(cards).to_have_count(4)
    live = time.monotonic() - start
    print(f"\n{front.kind}: 4 compare cards live {live * 1000:.0f} ms after the click")
    titles = [t.strip() for t in cards.locator(".mg-card__title").all_inner_texts()]
    assert sorted(titles) == sorted(["Nano Banana", *FOUR]), titles
    for i in range(4):
        expect(cards.nth(i)).to_have_attribute("data-status", "completed", timeout=DONE_MS)
        expect(cards.nth(i).locator("img")).to_be_visible()
    return panel.locator(".mg-cmp__row-cards").first


@pytest.mark.parametrize("kind", KINDS)
def test_compare_in_the_studio(pages: Pages, kind: Kind) -> None:
    front = pages.get(kind)
    row = compare_images(front)
    panel = front.panel("images")
    code = panel.locator(".mg-gen__codebox pre").locator("visible=true")
    panel.locator(".mg-gen__codebox summary").locator("visible=true").click()
    expect(code).to_contain_text("mg.sweep('image', model=[")
    expect(code).to_contain_text(".fitted()")
    kept_title = row.locator(".mg-card__title").first.inner_text()
    row.locator(".mg-card").first.get_by_role("button", name=f"Keep this one: {kept_title}").click()
    expect(row.locator(".mg-card")).to_have_count(3)
    gallery = panel.locator(".mg-gen__results > .mg-gallery .mg-card")
    expect(gallery.first).to_contain_text(kept_title)

    chat = front.panel("chat")
    chat.locator("input[name='compare']").check()
    expect(chat.locator(".mg-cmp__picker input:checked")).to_have_count(2)
    chat.locator("textarea[name='message']").fill("Tell me a long story about the sea.")
    chat.locator("[data-mg-action='send']").click()
    answers = chat.locator(".mg-chat__compare-card")
    expect(answers).to_have_count(2)
    for i in range(2):
        expect(answers.nth(i).locator(".mg-chat__compare-text")).not_to_be_empty()
    stop = chat.locator("[data-mg-action='stop']")
    expect(stop).to_be_enabled()
    stop.click()
    for i in range(2):
        expect(answers.nth(i)).to_have_attribute("data-state", "stopped")
    expect(stop).to_be_disabled()

    history = front.panel("history")
    history.locator("[data-mg-action='refresh']").click()
    select = history.locator("select[name='sweep']")
    expect(select.locator("option")).not_to_have_count(1)
    select.select_option(index=1)
    expect(history.locator("tr[data-row-id]")).not_to_have_count(0)
    assert not front.errors, front.errors


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", MEASURED)
def test_compare_accessible_and_readable(
    pages: Pages, kind: Kind, theme: Theme, screenshot_dir: Path
) -> None:
    front = pages.get(kind, theme)
    panel = front.panel("images")
    if not panel.locator(".mg-cmp__row-cards").count():
        compare_images(front)
    for name in ("images", "chat"):
        root = front.panel(name)
        if name == "chat" and not root.locator("input[name='compare']").is_checked():
            root.locator("input[name='compare']").check()
        viewport = front.page.viewport_size
        assert viewport is not None
        front.page.set_viewport_size({"width": 1400, "height": viewport["height"]})
        try:
            save_screenshot(root, screenshot_dir / f"compare-{kind}-{name}-{theme}-1400.png")
            root.evaluate("el => { el.style.width = '600px'; el.style.maxWidth = '600px'; }")
            front.page.wait_for_timeout(100)  # one layout pass after the width change
            save_screenshot(root, screenshot_dir / f"compare-{kind}-{name}-{theme}-600.png")
            report = overflow(root)
        finally:
            root.evaluate("el => { el.style.width = ''; el.style.maxWidth = ''; }")
            front.page.set_viewport_size(viewport)
        print(
            f"\n{kind:6} {theme:5} compare {name:6} at 600 px: {len(report['overflowing'])}"
            f" overflowing, {len(report['unreachable'])} cut off"
        )
        assert not report["overflowing"], report["overflowing"][:10]
        assert not report["unreachable"], report["unreachable"][:10]
        violations = axe_violations(root)
        measured = contrast(root)
        print(
            f"\n{kind:6} {theme:5} compare {name:6} axe critical+serious={len(violations)}"
            f" texts={len(measured.measured)} lowest={measured.lowest:.2f}"
        )
        assert not violations, violations
        assert not measured.failures, measured.failures[:12]
    images = front.panel("images")
    images.locator("input[name='compare']").focus()
    front.page.keyboard.press("Tab")  # the picker is next in the keyboard order
    expect(images.locator(".mg-cmp__picker input").first).to_be_focused()
