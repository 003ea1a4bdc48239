"""A link that shares, opened in Voila: the Studio reads ``?tab=&model=&prompt=`` and the
request's other fields from the page's address, fills the Images form, and names the bad
value in its notice and under the field (issue 29)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.frontends import PLAYGROUND, JupyterServer, new_page

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
