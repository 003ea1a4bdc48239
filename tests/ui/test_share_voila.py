"""A link that shares, opened in Voila: the Studio reads ``?tab=&model=&prompt=`` and the
request's other fields from the page's address, fills the Images form, and names the bad
value in its notice and under the field; and History's Export and Import by button there
(issue 29)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.frontends import PLAYGROUND, Front, JupyterServer, new_page

pytestmark = pytest.mark.ui

PROMPT = "A lighthouse that a link asked for"


def test_a_link_fills_the_studio_in_voila_and_names_a_bad_value(
    browser: Browser, jupyter: JupyterServer
) -> None:
    jupyter.set_theme("light")
    page = new_page(browser, "light")
    try:
        link = jupyter.url(
            f"voila/render/{PLAYGROUND}",
            tab="images",
            model="gpt-image-2",
            prompt=PROMPT,
            size="99999999999999999999x16",
        )
        page.goto(link)
        images = page.locator(".mg-panel--images[data-mg-ready='1']").first
        expect(images).to_be_visible(timeout=90_000)
        expect(images.locator("textarea[name='prompt']")).to_have_value(PROMPT)
        notice = page.locator(".mg-panel--studio .mg-notice").first
        expect(notice).to_contain_text("This link: Exact size")
        expect(notice).to_contain_text("at most")
        expect(images.get_by_text("each edge must be at most").first).to_be_visible()
        expect(page.get_by_role("tab", name="Images", exact=True)).to_have_attribute(
            "aria-selected", "true"
        )
    finally:
        page.context.close()


def test_export_and_import_by_button_in_voila_say_where(
    browser: Browser, jupyter: JupyterServer, tmp_path: Path
) -> None:
    """In a kernel with a file system, Export writes the history into the exports folder and
    says where; Import (a file picked in the browser) reads it back and says how much."""
    jupyter.set_theme("light")
    page = new_page(browser, "light")
    try:
        page.goto(jupyter.url(f"voila/render/{PLAYGROUND}"))
        front = Front(page, "voila")
        expect(page.locator(".mg-panel--images[data-mg-ready='1']").first).to_be_visible(
            timeout=90_000
        )
        history = front.panel("history")
        history.locator("[data-mg-action='export-history']").click()
        note = history.locator(".mg-history-keep-note")
        expect(note).to_contain_text(re.compile(r"^Exported \d+ events and \d+ files to ~/"))
        written = jupyter.root.parent / "home" / note.inner_text().split(" to ~/", 1)[1]
        document = json.loads(written.read_text())
        assert document["format"] == "mediagen_nb-history"
        picked = tmp_path / "picked.json"
        picked.write_text(json.dumps(document))
        with page.expect_file_chooser() as chooser:
            history.locator("[data-mg-action='import-history']").click()
        chooser.value.set_files(picked)
        expect(note).to_have_text(
            "Imported 0 new events and " + f"{len(document['media'])} files from picked.json"
        )
        expect(history.get_by_text("Save CSV")).to_be_visible()  # a real folder here
    finally:
        page.context.close()
