"""The Studio in a real browser, in JupyterLab 4, Notebook 7, Voila and marimo.

For each front end one page opens the playground and takes the newcomer's journey (an image
seen, a video played, a chat reply streamed and stopped, an asset uploaded by file until
Active, a History row reopened). The same page, now holding result cards, badges, a reply
and an asset row, is then measured panel by panel in the light and the dark theme:
axe-core (0 critical, 0 serious) and the computed contrast of every text element (4.5:1, 3:1
for large text); each panel is photographed in both themes. JupyterLab and Notebook 7
switch theme live (Settings → Theme), marimo follows ``prefers-color-scheme`` (switched
with ``emulate_media``), Voila reloads with ``?theme=dark`` (a fresh kernel: its galleries
are empty, the History of the session's folder is not).

Pages are opened once per front end and kept for the module (each costs a kernel start), so
the measurements of a front end run only after its journey; a measurement whose journey
failed still runs, on whatever the page shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.checks import axe_violations, background_luminance, contrast, overflow
from tests.ui.frontends import (
    KINDS,
    PANELS,
    THEMES,
    Front,
    JupyterServer,
    Kind,
    MarimoServer,
    Theme,
    new_page,
)
from tests.ui.journey import (
    IMAGE_PROMPT,
    chat_and_stop,
    generate_image,
    generate_video,
    reopen_from_history,
    upload_asset,
)
from tests.ui.screenshots import save_screenshot

pytestmark = pytest.mark.ui

MEASURED: tuple[Kind, ...] = ("lab", "voila", "marimo")
"""Notebook 7 draws with JupyterLab's own theme and CSS: its journey runs, its numbers are
JupyterLab's."""
DARK_BACKGROUND = 0.2
LIGHT_BACKGROUND = 0.6


class Pages:
    """The module's open pages, one per front end, opened on first use."""

    def __init__(self, browser: Browser, jupyter: JupyterServer, marimo: MarimoServer) -> None:
        self.browser = browser
        self.servers: dict[Kind, JupyterServer | MarimoServer] = {
            "marimo": marimo,
            "lab": jupyter,
            "notebook": jupyter,
            "voila": jupyter,
        }
        self.fronts: dict[Kind, Front] = {}
        self.themes: dict[Kind, Theme] = {}
        self.journeyed: set[Kind] = set()

    def get(self, kind: Kind, theme: Theme = "light") -> Front:
        front = self.fronts.get(kind)
        if front is None:
            page = new_page(self.browser, theme)
            front = Front.open(page, kind, self.servers[kind], theme)
            self.fronts[kind] = front
            self.themes[kind] = theme
        if self.themes[kind] != theme:
            self._switch(front, kind, theme)
        return self.fronts[kind]

    def _switch(self, front: Front, kind: Kind, theme: Theme) -> None:
        page = front.page
        if kind in {"lab", "notebook"}:
            page.locator("#jp-MainMenu").get_by_text("Settings", exact=True).click()
            page.get_by_text("Theme", exact=True).hover()
            name = "JupyterLab Dark" if theme == "dark" else "JupyterLab Light"
            page.get_by_text(name, exact=True).click()
            light = "false" if theme == "dark" else "true"
            expect(page.locator("body")).to_have_attribute("data-jp-theme-light", light)
        elif kind == "marimo":
            page.emulate_media(color_scheme=theme)
        else:
            page.context.close()
            page = new_page(self.browser, theme)
            self.fronts[kind] = Front.open(page, kind, self.servers[kind], theme)
        self.themes[kind] = theme

    def close(self) -> None:
        for front in self.fronts.values():
            front.page.context.close()


@pytest.fixture(scope="module")
def pages(browser: Browser, jupyter: JupyterServer, marimo: MarimoServer) -> Iterator[Pages]:
    opened = Pages(browser, jupyter, marimo)
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("kind", KINDS)
def test_journey(pages: Pages, kind: Kind, tmp_path: Path) -> None:
    front = pages.get(kind)
    generate_image(front)
    generate_video(front)
    lengths, kept = chat_and_stop(front)
    assert len(lengths) >= 3, lengths  # the reply arrived in several renders
    assert lengths == sorted(lengths), lengths  # and only ever grew
    assert kept >= lengths[-1] > 0, (lengths, kept)  # Stop kept the partial answer
    upload_asset(front, tmp_path)
    assert reopen_from_history(front) == IMAGE_PROMPT
    assert not front.errors, front.errors  # no uncaught exception in the page
    pages.journeyed.add(kind)


@pytest.mark.parametrize("panel", PANELS)
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", MEASURED)
def test_panel_accessible_and_readable(
    pages: Pages,
    kind: Kind,
    theme: Theme,
    panel: str,
    screenshot_dir: Path,
    scratch_shots: Path,
) -> None:
    front = pages.get(kind, theme)
    root = front.panel(panel)
    if kind == "lab":  # the README's pictures: JupyterLab, every panel, both themes
        save_screenshot(root, screenshot_dir / f"{panel}-{theme}.png")
    else:
        save_screenshot(root, scratch_shots / f"{kind}-{panel}-{theme}.png")
    if panel == "images":  # an error message is text too (after the picture): empty the prompt
        prompt = root.locator("textarea[name='prompt']")
        prompt.fill("x")  # touched, even on a page whose prompt was empty already
        # the kernel must see "x" before "": typing is sent after a pause, and "" alone on a
        # page whose prompt was already empty is no change (seen once on a loaded machine)
        expect(root.locator("[data-mg-action='generate']")).to_be_enabled()
        prompt.fill("")
        prompt.blur()
        shown_error = root.locator(".mg-error").locator("visible=true").first
        expect(shown_error).to_be_visible()
    background = background_luminance(root)
    violations = axe_violations(root)
    measured = contrast(root)
    print(
        f"\n{kind:6} {theme:5} {panel:8} axe critical+serious={len(violations)}"
        f" texts={len(measured.measured)} lowest={measured.lowest:.2f}"
        f" under-minimum={len(measured.failures)}"
        + ("" if kind in pages.journeyed else " (journey did not complete: fewer cards)")
    )
    if theme == "dark":
        assert background < DARK_BACKGROUND, f"{panel} does not follow the dark theme"
    else:
        assert background > LIGHT_BACKGROUND, f"{panel} does not follow the light theme"
    if panel == "images":
        error = contrast(shown_error)
        prompt.fill(IMAGE_PROMPT)  # leave the form as the journey left it
        prompt.blur()
        print(f"       error text lowest={error.lowest:.2f}")
        assert error.measured, "the error message was not measured"
    assert len(measured.measured) >= 5, measured.measured  # the panel's text was measured
    assert not violations, violations
    assert not measured.failures, measured.failures[:12]


@pytest.mark.parametrize("panel", PANELS)
def test_panel_fits_600px(pages: Pages, panel: str, scratch_shots: Path) -> None:
    """At 600 px nothing sticks out sideways outside a deliberate scroll area and no control
    is cut off (measured on the JupyterLab page after its journey: cards, rows, a reply)."""
    front = pages.get("lab", "light")
    root = front.panel(panel)
    root.evaluate("el => { el.style.width = '600px'; el.style.maxWidth = '600px'; }")
    try:
        front.page.wait_for_timeout(100)  # one layout pass after the width change
        report = overflow(root)
        save_screenshot(root, scratch_shots / f"{panel}-600px.png")
    finally:
        root.evaluate("el => { el.style.width = ''; el.style.maxWidth = ''; }")
    print(
        f"\n{panel:8} width={report['width']:.0f} overflowing={len(report['overflowing'])}"
        f" cut-off controls={len(report['unreachable'])} root-scroll={report['rootScroll']}"
    )
    assert report["width"] <= 601
    assert report["rootScroll"] <= 1, report
    assert not report["overflowing"], report["overflowing"][:10]
    assert not report["unreachable"], report["unreachable"][:10]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", MEASURED)
def test_studio_tab_list_readable_and_keyboard(pages: Pages, kind: Kind, theme: Theme) -> None:
    """The Studio's own tab list: every title (active and inactive) at least 4.5:1, axe
    clean, and the keys of a WAI-ARIA tab list (arrows wrap, Home, End) move focus and
    selection together."""
    front = pages.get(kind, theme)
    front.panel("images")
    tablist = front.page.get_by_role("tablist", name="Studio panels")
    tabs = tablist.get_by_role("tab")
    expect(tabs).to_have_text(["Chat", "Images", "Videos", "Assets", "History"])
    measured = contrast(tablist)
    print(f"\n{kind:6} {theme:5} tab titles lowest={measured.lowest:.2f}")
    assert len(measured.measured) == 5, measured.measured  # every title, active or not
    assert not measured.failures, measured.failures
    assert not axe_violations(tablist)
    selected = tablist.locator("[role=tab][aria-selected=true]")
    steps = [("ArrowRight", "Videos"), ("End", "History"), ("ArrowRight", "Chat")]
    steps += [("ArrowLeft", "History"), ("Home", "Chat"), ("ArrowRight", "Images")]
    selected.focus()
    for key, title in steps:
        front.page.keyboard.press(key)
        expect(selected).to_have_text(title)
        expect(selected).to_be_focused()
        expect(selected).to_have_attribute("tabindex", "0")
        panel_id = selected.get_attribute("aria-controls")
        expect(front.page.locator(f"[role=tabpanel][id='{panel_id}']")).to_be_visible()
    expect(tablist.locator("[role=tab][tabindex='-1']")).to_have_count(4)  # roving tabindex


@pytest.mark.parametrize("width", [1000, 600])
def test_new_result_card_is_in_view(pages: Pages, width: int) -> None:
    """Results in view: a panel 1000 px wide puts the gallery beside the form; at 600 px the
    gallery is under the form, and the new card is scrolled into view when it appears."""
    front = pages.get("lab", "light")
    viewport = front.page.viewport_size
    assert viewport is not None
    root = front.panel("images")
    root.evaluate("(el, w) => { el.style.width = `${w}px`; el.style.maxWidth = `${w}px`; }", width)
    try:
        form = root.locator(".mg-gen__form").bounding_box()
        results = root.locator(".mg-gen__results").bounding_box()
        assert form is not None
        assert results is not None
        beside = results["x"] >= form["x"] + form["width"] and results["y"] < form["y"] + 50
        assert beside == (width >= 720), (form, results)
        cards = root.locator(".mg-card")
        before = cards.count()
        root.locator("textarea[name='prompt']").fill(f"a lighthouse at dusk, {width} px")
        generate = root.locator("[data-mg-action='generate']")
        expect(generate).to_be_enabled()
        # Generate at the bottom edge of a short window: a gallery under the form is out of view
        front.page.set_viewport_size({"width": 1400, "height": 600})
        generate.evaluate("button => button.scrollIntoView({block: 'end'})")
        if width < 720:
            expect(root.locator(".mg-gen__results")).not_to_be_in_viewport()
        generate.click()
        expect(cards).to_have_count(before + 1)
        expect(cards.first).to_be_in_viewport()
    finally:
        front.page.set_viewport_size(viewport)
        root.evaluate("el => { el.style.width = ''; el.style.maxWidth = ''; }")


@pytest.mark.parametrize("width", [1230, 700])
def test_history_shows_every_value_whole(pages: Pages, width: int) -> None:
    """History at 1230 px (a table) and 700 px (a labelled card per row): every row shows its
    whole id, and no cell is cut."""
    front = pages.get("lab", "light")
    if not front.panel("history").locator("tr[data-row-id]").count():
        generate_image(front)
    root = front.panel("history")
    viewport = front.page.viewport_size
    assert viewport is not None
    front.page.set_viewport_size({"width": 2000, "height": viewport["height"]})
    root.evaluate("(el, w) => { el.style.width = `${w}px`; el.style.maxWidth = `${w}px`; }", width)
    try:
        rows = root.locator("tr[data-row-id]")
        expect(rows.first).to_be_visible()
        for row in rows.all():
            expect(row.locator("td.mg-col-8")).to_have_text(row.get_attribute("data-row-id") or "")
        cut = root.evaluate(
            "el => [...el.querySelectorAll('td')]"
            ".filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.className)"
        )
        assert cut == []
        assert not overflow(root)["overflowing"]
    finally:
        front.page.set_viewport_size(viewport)
        root.evaluate("el => { el.style.width = ''; el.style.maxWidth = ''; }")
