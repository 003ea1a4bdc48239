"""JupyterLab switched to Dark while the playground runs in Voila's preview tab: the Studio
follows at once, without a reload (issue 29: it stayed light until a full page load), and
back to Light the same way."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, FrameLocator, Locator, Page, expect

from tests.ui.checks import background_luminance
from tests.ui.frontends import JupyterServer, new_page

pytestmark = pytest.mark.ui

COLOURS_JS = """el => {
  const style = getComputedStyle(el);
  const page = getComputedStyle(el.ownerDocument.body);
  return [style.color, style.getPropertyValue('--mg-bg').trim(), page.backgroundColor];
}"""
"""The panel's text colour, its background token and the Voila page's background."""
TEXT_LUMINANCE_JS = """el => {
  const [r, g, b] = getComputedStyle(el).color.match(/[\\d.]+/g).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}"""


def use_theme(page: Page, name: str) -> None:
    """Settings > Theme > ``name``, as a person does it."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel").get_by_text(name, exact=True).click()
    expect(page.locator("body")).to_have_attribute("data-jp-theme-name", name)


def luminances(panel: Locator) -> tuple[float, float]:
    text: float = panel.evaluate(TEXT_LUMINANCE_JS)
    return text, background_luminance(panel)


def test_the_studio_in_voilas_preview_follows_a_live_theme_switch(
    browser: Browser, jupyter: JupyterServer
) -> None:
    jupyter.set_theme("light")
    page = new_page(browser, "light")
    try:
        page.goto(jupyter.arrival_url)
        app: FrameLocator = page.frame_locator(".jp-VoilaPreview iframe, iframe").first
        expect(app.locator(".mg-panel--images[data-mg-ready='1']")).to_be_visible(timeout=90_000)
        panel = app.locator(".mg-panel--studio").first
        panel.evaluate("el => { el.ownerDocument.defaultView.mgNotReloaded = true; }")
        light = panel.evaluate(COLOURS_JS)
        text, ground = luminances(panel)
        assert text < 0.2 < 0.6 < ground  # dark text on a light page

        use_theme(page, "JupyterLab Dark")
        expect(panel).not_to_have_css("color", light[0])
        dark = panel.evaluate(COLOURS_JS)
        text, ground = luminances(panel)
        assert ground < 0.2 < 0.6 < text  # light text on a dark page
        assert dark[1] != light[1]  # the panel's tokens
        assert dark[2] != light[2]  # and Voila's own page
        assert panel.evaluate("el => el.ownerDocument.defaultView.mgNotReloaded === true")

        use_theme(page, "JupyterLab Light")
        expect(panel).to_have_css("color", light[0])
        assert panel.evaluate(COLOURS_JS) == light  # back exactly to the light theme's colours
        assert panel.evaluate("el => el.ownerDocument.defaultView.mgNotReloaded === true")
    finally:
        page.context.close()
        jupyter.set_theme("light")  # the session's other tests start from the light theme
