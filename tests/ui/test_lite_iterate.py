"""Results become inputs in the in-browser playground (JupyterLite, Python in the tab, no PyAV).

On the site's Studio, light and dark: a picture is made; its card's Animate opens the Videos
tab with the picture as the first frame; the clip's Continue from last frame has the page
draw the clip's last frame on a canvas (the kernel cannot decode video) and puts it there;
both clips complete. Each canvas drawn is counted in the page (the kit's ``toBlob``) with its
size: one, the clip's own. The Images and Videos panels with their card actions pass
axe-core (0 critical, 0 serious) and computed contrast (4.5:1). Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.checks import axe_violations, contrast
from tests.ui.frontends import Front
from tests.ui.journey import GENERATE_TIMEOUT_MS, generate_image
from tests.ui.lite import open_lite, serve
from tests.ui.screenshots import save_screenshot

pytestmark = [pytest.mark.ui, pytest.mark.slow]

COUNT_CANVASES_JS = """() => {
  window.__mgCanvases = [];
  const original = HTMLCanvasElement.prototype.toBlob;
  HTMLCanvasElement.prototype.toBlob = function (...args) {
    window.__mgCanvases.push([this.width, this.height, args[1] || '']);
    return original.apply(this, args);
  };
}"""
"""Record each canvas turned into a file in the Studio's frame: [width, height, type]."""


@pytest.fixture(scope="module")
def site(lite_site: Path) -> Iterator[str]:
    with serve(lite_site) as (url, _sent):
        yield url


def wait_completed(front: Front, panel: str, count: int) -> None:
    cards = front.panel(panel).locator(".mg-card[data-status='completed']")
    expect(cards).to_have_count(count, timeout=GENERATE_TIMEOUT_MS)


def animate_then_continue(front: Front) -> tuple[int, int]:
    """Animate the newest picture, make the clip, continue it; the clip's frame size."""
    generate_image(front)
    card = front.panel("images").locator(".mg-card[data-status='completed']").first
    animate = card.locator("[data-mg-use='animate']")
    expect(animate).not_to_have_attribute("aria-disabled", "true")
    animate.click()
    expect(front.tab("videos")).to_have_attribute("aria-selected", "true", timeout=60_000)
    videos = front.panel("videos")
    field = videos.locator("input[name='first_frame']")
    expect(field).to_have_value(re.compile(r"/media/"), timeout=60_000)
    picture_url = field.input_value()
    videos.locator("[data-mg-action='generate']").click()
    wait_completed(front, "videos", 1)
    clip = videos.locator(".mg-card[data-status='completed']").first
    video = clip.locator("video").first
    front.page.wait_for_function(
        "v => v.readyState >= 1 && v.videoWidth > 0", arg=video.element_handle()
    )
    size = video.evaluate("v => [v.videoWidth, v.videoHeight]")
    front.page.evaluate(COUNT_CANVASES_JS)
    clip.locator("[data-mg-use='continue']").click()
    expect(field).to_have_value(re.compile(r"/media/uploads/"), timeout=60_000)
    assert field.input_value() != picture_url  # the frame, not the picture again
    videos.locator("[data-mg-action='generate']").click()
    wait_completed(front, "videos", 2)
    return int(size[0]), int(size[1])


def accessible(front: Front, theme: str, shots: Path) -> None:
    for name in ("images", "videos"):
        root = front.panel(name)
        uses = root.locator(".mg-card__uses").locator("visible=true")
        expect(uses.first).to_be_visible()
        save_screenshot(root, shots / f"lite-iterate-{name}-{theme}.png")
        violations = axe_violations(root)
        measured = contrast(root)
        print(
            f"\nlite {name:7} {theme:5} card actions={uses.count()} axe={len(violations)}"
            f" lowest contrast={measured.lowest:.2f} (of {len(measured.measured)} texts)"
        )
        assert measured.measured, f"{name}: no text was measured"
        assert not violations, violations
        assert not measured.failures, measured.failures[:12]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_animate_then_continue_in_the_browser(
    site: str, browser: Browser, theme: str, scratch_shots: Path
) -> None:
    visit = open_lite(browser, site, theme)  # type: ignore[arg-type]
    front = visit.front
    try:
        assert front.dark() == (theme == "dark")
        size = animate_then_continue(front)
        canvases = front.page.evaluate("window.__mgCanvases")
        assert canvases == [[size[0], size[1], "image/png"]], (canvases, size)
        accessible(front, theme, scratch_shots)
        assert visit.blocked == [], visit.blocked
        assert visit.failed == [], visit.failed
        assert not front.errors, front.errors
        assert not front.tracebacks(), front.tracebacks()
    finally:
        visit.page.context.close()
