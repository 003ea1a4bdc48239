"""Compare in the in-browser playground (``mediagen-nb lite build``, no server, Python in the
tab): four image models side by side from one Generate, each card ending with its picture,
axe-clean and readable in light and dark, with nothing asked of any host but 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.ui.checks import axe_violations, contrast
from tests.ui.frontends import THEMES, Theme
from tests.ui.lite import open_lite, serve
from tests.ui.screenshots import save_screenshot
from tests.ui.test_compare_browser import compare_images

pytestmark = [pytest.mark.ui, pytest.mark.slow]


@pytest.mark.parametrize("theme", THEMES)
def test_compare_runs_in_the_browser_playground(
    lite_site: Path, browser: Browser, theme: Theme, screenshot_dir: Path
) -> None:
    with serve(lite_site) as (url, _sent):
        visit = open_lite(browser, url, theme)
        front = visit.front
        row = compare_images(front)
        root = front.panel("images")
        save_screenshot(root, screenshot_dir / f"compare-lite-images-{theme}.png")
        violations = axe_violations(root)
        measured = contrast(root)
        print(
            f"\nlite   {theme:5} compare images axe critical+serious={len(violations)}"
            f" texts={len(measured.measured)} lowest={measured.lowest:.2f}"
        )
        assert row.locator(".mg-card[data-status='completed']").count() == 4
        assert not violations, violations
        assert not measured.failures, measured.failures[:12]
        assert visit.blocked == [], visit.blocked
        assert not front.errors, front.errors
        assert not front.tracebacks(), front.tracebacks()
        visit.page.context.close()
