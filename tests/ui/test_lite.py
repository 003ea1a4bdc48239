"""The playground with no server: ``mediagen-nb lite build``, served by a static server on
127.0.0.1 and opened in chromium with every request to another host aborted.

A visitor lands on the Studio, already running in JupyterLite's REPL (Python in the tab,
demo mode in-process), and with nothing but the Studio's own controls: sees a picture, plays
a video, streams a chat reply and stops it, uploads a file to Active, and finds all of it in
the History tab. Zero requests leave 127.0.0.1. Connected to a loopback service that sends
no CORS headers, the Studio says the browser refused it (CORS). The visit measures the figures that
``python -m bench`` prints (``bench/_lite_figures.py``): the site's size, what the visitor
downloaded, the cold load to a ready Studio, Generate to a picture. The landing page in the
dark theme is photographed too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.checks import axe_violations, contrast
from tests.ui.frontends import Front
from tests.ui.journey import (
    CHAT_MESSAGE,
    IMAGE_PROMPT,
    VIDEO_PROMPT,
    chat_and_stop,
    generate_image,
    generate_video,
    upload_asset,
)
from tests.ui.lite import open_lite, serve
from tests.ui.screenshots import save_screenshot

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _lite_figures import record  # noqa: E402 - bench/ is a folder of scripts

pytestmark = [pytest.mark.ui, pytest.mark.slow]

MB = 1e6
ERROR_COLOUR_JS = """el => {
  const probe = document.createElement('span');
  probe.style.color = 'var(--mg-error)';
  el.append(probe);
  const error = getComputedStyle(probe).color;
  probe.remove();
  return [getComputedStyle(el).borderTopColor, error];
}"""
"""The notice's border colour and the panel's error colour, both as computed ``rgb()``."""


def site_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_the_studio_runs_in_the_browser_from_a_static_folder(
    lite_site: Path, browser: Browser, tmp_path: Path, screenshot_dir: Path
) -> None:
    with serve(lite_site) as (url, sent):
        visit = open_lite(browser, url, "light")
        front = visit.front
        link = visit.page.get_by_role("link", name="Open the notebooks in JupyterLab")
        expect(link).to_have_attribute("href", "lab/index.html?path=00-playground.ipynb")
        generate_s = generate_image(front)
        generate_video(front)
        lengths, kept = chat_and_stop(front)
        assert len(lengths) >= 3, lengths  # the reply streamed: seen in several renders
        assert lengths == sorted(lengths), lengths
        assert kept >= lengths[-1] > 0, (lengths, kept)  # Stop kept what had arrived
        upload_asset(front, tmp_path)
        history = front.panel("history")
        rows = history.locator("tr[data-row-id]")
        for text in (IMAGE_PROMPT[:20], VIDEO_PROMPT[:20], CHAT_MESSAGE[:20]):
            expect(rows.filter(has_text=text).first).to_be_visible()
        expect(rows.filter(has_text="Asset").first).to_be_visible()
        says_once_without_red(front)
        save_screenshot(front.panel("images"), screenshot_dir / "lite-images-light.png")
        save_screenshot(visit.page.locator("body"), screenshot_dir / "lite-landing-light.png")
        assert visit.blocked == [], visit.blocked  # nothing asked of any other host
        assert visit.failed == [], visit.failed  # nothing looked for in vain (no 404s)
        assert not front.errors, front.errors
        assert not front.tracebacks(), front.tracebacks()
        record(
            site_mb=site_bytes(lite_site) / MB,
            downloaded_mb=sent.bytes / MB,
            requests=sent.responses,
            cold_load_s=visit.ready_s,
            generate_s=generate_s,
        )
        with serve(tmp_path) as (service, _):  # a loopback "service" that sends no CORS headers
            message = connect_without_cors(front, service.rstrip("/"))
        assert f"the service at {service.rstrip('/')} does not allow requests" in message
        assert "(CORS)" in message
        visit.page.context.close()


def says_once_without_red(front: Front) -> None:
    """With the History tab open: the tab's in-memory history is said once (the Studio's
    notice, as information: a polite status in the text colour, not an alert), demo mode
    names no ``.invalid`` address, and nothing is written to stderr."""
    said = front.page.get_by_text("are kept in this browser")
    expect(said).to_have_count(1)
    expect(said).to_be_visible()
    neutral_notice(front)
    expect(front.page.locator("[data-mime-type='application/vnd.jupyter.stderr']")).to_have_count(0)
    assert ".invalid" not in front.page.locator("body").inner_text()


def neutral_notice(front: Front) -> None:
    """The Studio's notice that the tab keeps history in memory is information: role=status
    (announced politely), drawn in the theme's text colour (not the error colour), axe-clean
    and readable (4.5:1)."""
    notice = front.page.locator(".mg-notice").filter(has_text="kept in this browser")
    expect(notice).to_have_attribute("role", "status")
    expect(notice).to_have_attribute("data-kind", "info")
    border, error = notice.evaluate(ERROR_COLOUR_JS)
    assert border != error, (border, error)  # the border is not the error colour
    measured = contrast(notice)
    assert measured.measured, "the notice's text was not measured"
    assert not measured.failures, measured.failures
    assert not axe_violations(notice)


def connect_without_cors(front: Front, service: str) -> str:
    """Connect the Studio to ``service`` with a key, Generate a picture, and return what the
    Images panel says (the browser refuses the request: the service allows no other origin)."""
    bar = front.page.locator(".mg-bar__connect")
    bar.locator("summary").click()
    bar.locator("input[name='api-key']").fill("a-key-for-the-test")
    bar.locator("input[name='base-url']").fill(f"{service}/api")
    bar.locator("input[name='text-base-url']").fill(f"{service}/gateway")
    bar.locator("[data-mg-action='connect']").click()
    expect(front.page.locator(".mg-chip[data-mode='connected']").first).to_be_visible()
    panel = front.panel("images")
    panel.locator("[data-mg-action='generate']").click()
    said = panel.get_by_text("(CORS)").first
    expect(said).to_be_visible()
    return said.inner_text()


def test_the_landing_page_follows_the_dark_theme(
    lite_site: Path, browser: Browser, screenshot_dir: Path
) -> None:
    with serve(lite_site) as (url, _sent):
        visit = open_lite(browser, url, "dark")
        assert visit.front.dark()
        assert visit.page.evaluate("document.documentElement.dataset.theme") == "dark"
        neutral_notice(visit.front)
        save_screenshot(visit.front.panel("chat"), screenshot_dir / "lite-chat-dark.png")
        save_screenshot(visit.page.locator("body"), screenshot_dir / "lite-landing-dark.png")
        assert visit.blocked == [], visit.blocked
        visit.page.context.close()
