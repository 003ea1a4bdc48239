"""Two tabs of the in-browser playground keep both their histories (``mediagen-nb lite build``,
every request to another host aborted).

A visitor opens the site twice in one browser and makes a picture in each tab, one after the
other. Each tab keeps its ledger in memory and saves it to the browser's IndexedDB after every
write, so the second tab's save could replace the first tab's (IDBFS makes the store equal to
the saving tab's folder). The tabs tell each other when they saved (``BroadcastChannel``) and
each takes in the other's rows at once (and saves again if the store lacked some of its own):
each tab's History lists the other's picture without a reload, a reload lists both pictures
with their thumbnails, and a third tab opened afterwards sees both too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.ui.frontends import Front
from tests.ui.journey import GENERATE_TIMEOUT_MS
from tests.ui.lite import open_lite, reload, serve

pytestmark = [pytest.mark.ui, pytest.mark.slow]

DATA_IMAGE = re.compile(r"^data:image/")
PROMPTS = ("A lighthouse drawn in the first tab", "A windmill drawn in the second tab")


def make_picture(front: Front, prompt: str) -> None:
    """Images: ``prompt``, Generate, and wait for its completed card."""
    panel = front.panel("images")
    panel.locator("textarea[name='prompt']").fill(prompt)
    panel.locator("[data-mg-action='generate']").click()
    card = panel.locator(".mg-card[data-status='completed']").filter(has_text=prompt[:20])
    expect(card.first).to_be_visible(timeout=GENERATE_TIMEOUT_MS)


def lists(front: Front, prompts: tuple[str, ...] = PROMPTS) -> None:
    """The History tab shows a row with its thumbnail for each of ``prompts``' pictures."""
    history = front.panel("history")
    for prompt in prompts:
        row = history.locator("tr[data-row-id]").filter(has_text=prompt[:20]).first
        expect(row).to_be_visible()
        expect(row.locator("img.mg-history-thumb")).to_have_attribute("src", DATA_IMAGE)


def test_two_tabs_of_one_browser_keep_both_pictures(lite_site: Path, browser: Browser) -> None:
    with serve(lite_site) as (url, _sent):
        first = open_lite(browser, url, "light")
        context = first.page.context
        second = open_lite(browser, url, "light", context=context)
        for visit in (first, second):  # nothing is lost when a tab is closed or reloaded
            visit.page.on("dialog", lambda dialog: dialog.accept())
        make_picture(first.front, PROMPTS[0])
        lists(second.front, PROMPTS[:1])  # the other tab's picture shows up, no reload
        make_picture(second.front, PROMPTS[1])
        lists(first.front)
        for visit in (first, second):  # every write is in IndexedDB (no "leave the page?")
            storage = visit.front.panel("history").locator(".mg-history-storage")
            expect(storage).to_have_attribute("data-unsaved", "0")
        reload(first)
        lists(first.front)
        second.page.close()
        third = open_lite(browser, url, "light", context=context)
        lists(third.front)
        assert first.blocked == [], first.blocked
        context.close()
