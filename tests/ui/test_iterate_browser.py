"""Results become inputs, in JupyterLab: Animate a picture, Continue from the clip's last frame.

On the playground's Studio: a picture is made; its card's Animate opens the Videos tab with
the picture as the first frame; the clip's Continue from last frame puts its last frame
there; both clips complete. The Images and Videos panels, now holding the card actions, are
then checked with axe-core (0 critical, 0 serious) and computed contrast, light and dark.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.checks import axe_violations, contrast
from tests.ui.frontends import Front, JupyterServer, new_page
from tests.ui.journey import GENERATE_TIMEOUT_MS, generate_image
from tests.ui.screenshots import save_screenshot

pytestmark = pytest.mark.ui


@pytest.fixture(scope="module")
def lab(browser: Browser, jupyter: JupyterServer) -> Iterator[Front]:
    page = new_page(browser, "light")
    try:
        yield Front.open(page, "lab", jupyter, "light")
    finally:
        page.context.close()


def matching(fragment: str) -> re.Pattern[str]:
    return re.compile(re.escape(fragment))


def completed_videos(front: Front, count: int) -> None:
    cards = front.panel("videos").locator(".mg-card[data-status='completed']")
    expect(cards).to_have_count(count, timeout=GENERATE_TIMEOUT_MS)


def test_animate_then_continue(lab: Front) -> None:
    generate_image(lab)
    card = lab.panel("images").locator(".mg-card[data-status='completed']").first
    animate = card.locator("[data-mg-use='animate']")
    expect(animate).to_be_visible()
    expect(animate).not_to_have_attribute("aria-disabled", "true")
    animate.click()
    expect(lab.tab("videos")).to_have_attribute("aria-selected", "true", timeout=30_000)
    field = lab.panel("videos").locator("input[name='first_frame']")
    expect(field).to_have_value(matching("/api/media/"), timeout=30_000)
    before = lab.panel("videos").locator(".mg-card").count()
    lab.panel("videos").locator("[data-mg-action='generate']").click()
    completed_videos(lab, before + 1)
    clip = lab.panel("videos").locator(".mg-card[data-status='completed']").first
    clip.locator("[data-mg-use='continue']").click()
    expect(field).to_have_value(matching("/api/media/uploads/"), timeout=30_000)
    lab.panel("videos").locator("[data-mg-action='generate']").click()
    completed_videos(lab, before + 2)
    assert not lab.errors, lab.errors


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("panel", ["images", "videos"])
def test_card_actions_accessible(lab: Front, panel: str, theme: str, scratch_shots: Path) -> None:
    page = lab.page
    light = "true" if theme == "light" else "false"
    if page.locator("body").get_attribute("data-jp-theme-light") != light:
        page.locator("#jp-MainMenu").get_by_text("Settings", exact=True).click()
        page.get_by_text("Theme", exact=True).hover()
        page.get_by_text(f"JupyterLab {theme.capitalize()}", exact=True).click()
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", light)
    root = lab.panel(panel)
    uses = root.locator(".mg-card__uses").locator("visible=true")
    expect(uses.first).to_be_visible()
    save_screenshot(root, scratch_shots / f"iterate-{panel}-{theme}.png")
    violations = axe_violations(root)
    measured = contrast(root)
    print(
        f"\n{panel:7} {theme:5} card actions={uses.count()} axe={len(violations)}"
        f" lowest contrast={measured.lowest:.2f}"
    )
    assert not violations, violations
    assert not measured.failures, measured.failures[:12]
