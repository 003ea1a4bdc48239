"""Arriving (what ``mediagen-nb lab`` opens is the playground already running, inside
JupyterLab; its Voila address shows the same as a full-page app) and a fresh Studio that
survives a click on every enabled button.

The Jupyter server of these tests is ``mediagen-nb lab`` itself (see conftest): the
addresses are exactly the ones it printed.
"""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from tests.ui.frontends import PANELS, Front, JupyterServer, new_page
from tests.ui.journey import generate_image

pytestmark = pytest.mark.ui

INTRO = "Demo mode"
FRESH = "notebooks/_fresh_playground.ipynb"
"""A copy of the playground, so the click test gets its own kernel and a fresh Studio."""


def test_printed_address_arrives_in_a_running_studio(
    browser: Browser, jupyter: JupyterServer
) -> None:
    """What ``mediagen-nb lab`` opens: JupyterLab with the playground already running in
    Voila's preview tab (no Run All), the file browser beside it, a short intro above."""
    page = new_page(browser, "light")
    try:
        page.goto(jupyter.arrival_url)
        tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
        expect(tab).to_contain_text("00-playground.ipynb")  # the playground, not the Launcher
        expect(page.locator(".jp-DirListing-item", has_text="00-playground.ipynb")).to_be_visible()
        app = page.frame_locator(".jp-VoilaPreview iframe, iframe").first
        expect(app.locator("h1").first).to_contain_text("mediagen_nb playground")
        expect(app.locator("p", has_text=INTRO)).to_be_visible()
        images = app.locator(".mg-panel--images[data-mg-ready='1']")
        expect(images).to_be_visible(timeout=90_000)  # the Images tab is the one shown
        expect(app.locator(".jp-InputArea-editor, .cm-editor")).to_have_count(0)  # no code
        images.locator("textarea[name='prompt']").fill("a red fox curled up in fresh snow")
        generate = images.locator("[data-mg-action='generate']")
        expect(generate).to_be_enabled()
        expect(generate).to_be_in_viewport()  # no scrolling either
    finally:
        page.context.close()


def test_printed_voila_address_renders_the_playground_as_an_app(
    browser: Browser, jupyter: JupyterServer
) -> None:
    """...and loads nothing from outside the server (an offline classroom network): every
    request to another host is aborted and counted, through a generated picture."""
    page = new_page(browser, "light")
    outside = count_outside_requests(page, jupyter.base)
    try:
        page.goto(jupyter.voila_url)
        expect(page.locator("p", has_text=INTRO)).to_be_visible()
        expect(page.locator(".mg-panel[data-mg-ready='1']").first).to_be_visible(timeout=90_000)
        expect(page.locator(".jp-InputArea-editor, .cm-editor")).to_have_count(0)  # no code
        generate_image(Front(page, "voila"))
        assert outside == []
    finally:
        page.context.close()


def count_outside_requests(page: Page, base: str) -> list[str]:
    """Abort every request of ``page`` that leaves ``base`` and list it."""
    outside: list[str] = []

    def local_only(route: Route) -> None:
        url = route.request.url
        if url.startswith((base, "data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.context.route("**/*", local_only)
    return outside


def enabled_buttons(panel: Locator) -> list[str]:
    """A description of each visible, enabled button (its text or aria-label and index)."""
    described: list[str] = panel.locator("button:visible:enabled").evaluate_all(
        "els => els.map((b, i) => (b.getAttribute('aria-label') || b.textContent).trim())"
    )
    return described


def problems(front: Front, panel: Locator) -> list[str]:
    """What must never be on screen after a click with no input: tracebacks, exception
    names, uncaught page errors, and error text (``.mg-error``) before the user typed."""
    found = list(front.errors)
    found += front.page.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'],"
        " .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"
    ).all_inner_texts()
    text = panel.inner_text()
    found += [word for word in ("Traceback", "Error:", "Exception") if word in text]
    found += [f".mg-error: {t}" for t in panel.locator(".mg-error:visible").all_inner_texts()]
    return found


def test_fresh_studio_survives_a_click_on_every_enabled_button(
    browser: Browser, jupyter: JupyterServer
) -> None:
    shutil.copy(jupyter.root / "notebooks" / "00-playground.ipynb", jupyter.root / FRESH)
    page = new_page(browser, "light")
    try:
        front = Front.open(page, "lab", jupyter, "light", notebook=FRESH)
        clicked: dict[str, list[str]] = {}
        for name in PANELS:
            panel = front.panel(name)
            assert not problems(front, panel), (name, "before any click", problems(front, panel))
            clicked[name] = []
            seen: dict[str, int] = {}
            for label in enabled_buttons(panel):
                occurrence = seen.get(label, 0)
                seen[label] = occurrence + 1
                panel = front.panel(name)
                now = enabled_buttons(panel)
                indexes = [i for i, text in enumerate(now) if text == label]
                if len(indexes) <= occurrence:
                    continue  # an earlier click removed or disabled it (e.g. closed a dialog)
                panel.locator("button:visible:enabled").nth(indexes[occurrence]).click()
                clicked[name].append(label)
                page.keyboard.press("Escape")  # close whatever a click opened (lightbox, menu)
                panel = front.panel(name)
                assert not problems(front, panel), (name, label, problems(front, panel))
        print("\nclicked:", {name: len(labels) for name, labels in clicked.items()})
        for name, labels in clicked.items():
            print(f"  {name}: {labels}")
        assert sum(len(labels) for labels in clicked.values()) >= len(PANELS), clicked
    finally:
        page.context.close()
