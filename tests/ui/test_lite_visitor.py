"""The playground visitor keeps their work (``mediagen-nb lite build``, every request to
another host aborted).

One visitor makes a picture and copies its Share link, then reloads the page at once: the
History tab still lists the picture with its thumbnail (kept in the browser's IndexedDB).
Export downloads the history by button; a second picture and "Export this session" give one
HTML page, which opens offline with its picture, prompt and code. The Share link, opened in
another browser profile, fills the Studio with the same request (a prefill link), and Import
by button there shows the exported rows and thumbnails at once. The second load in the same
browser comes from the site's service worker: its time and the bytes it still downloaded,
and the first visit's bytes from a host that gzips text and WebAssembly (as GitHub Pages,
Netlify or nginx do), are printed by ``python -m bench``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Route, expect

from tests.ui.frontends import VIEWPORT, Front
from tests.ui.journey import GENERATE_TIMEOUT_MS, IMAGE_PROMPT, generate_image
from tests.ui.lite import LOCAL, LiteVisit, open_lite, reload, serve

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _lite_figures import record  # noqa: E402 - bench/ is a folder of scripts

pytestmark = [pytest.mark.ui, pytest.mark.slow]

DATA_IMAGE = re.compile(r"^data:image/")
SECOND_PROMPT = "A second picture, made after the reload"


def test_the_visitor_keeps_shares_and_exports_their_work(
    lite_site: Path, browser: Browser, tmp_path: Path
) -> None:
    with serve(lite_site, compress=True) as (url, sent):  # as a host that gzips text
        visit = open_lite(browser, url, "light")
        compressed_mb = sent.bytes / 1e6
        visit.page.on("dialog", lambda dialog: dialog.accept())  # leaving while busy asks
        generate_image(visit.front)
        link = share_link(visit.front, url)
        before = sent.bytes
        second_s = reload(visit)  # at once after the picture: nothing of it may be lost
        second_mb = (sent.bytes - before) / 1e6
        print(f"\nsecond visit: ready in {second_s:.1f} s, {second_mb:.2f} MB downloaded")
        history = visit.front.panel("history")
        row = history.locator("tr[data-row-id]").filter(has_text=IMAGE_PROMPT[:20]).first
        expect(row).to_be_visible()
        expect(row.locator("img.mg-history-thumb")).to_have_attribute("src", DATA_IMAGE)
        expect(history.locator(".mg-history-storage")).to_contain_text("Kept in this browser: ")
        expect(history.get_by_text("Save CSV")).to_be_hidden()  # no folder of the tab's memory
        exported = download(visit.page, history, "export-history", tmp_path)
        document = json.loads(exported.read_text())
        assert document["format"] == "mediagen_nb-history"
        assert len(document["media"]) >= 1
        prompts = [e["data"].get("request", {}).get("prompt") for e in document["events"]]
        assert IMAGE_PROMPT in prompts
        page_file = export_this_session(visit, tmp_path)
        assert visit.blocked == [], visit.blocked
        visit.page.context.close()
        record(compressed_mb=compressed_mb, second_load_s=second_s, second_downloaded_mb=second_mb)
        opens_offline(browser, page_file)

        fresh, blocked = local_context(browser)  # another browser profile: nothing kept
        other = open_lite(browser, url, "light", context=fresh, query=urlsplit(link).query)
        prompt = other.front.panel("images").locator("textarea[name='prompt']")
        expect(prompt).to_have_value(IMAGE_PROMPT)  # the link filled the form
        expect(other.front.tab("images")).to_have_attribute("aria-selected", "true")
        history = other.front.panel("history")
        expect(history.locator("tr[data-row-id]")).to_have_count(0)
        with other.page.expect_file_chooser() as chooser:
            history.locator("[data-mg-action='import-history']").click()
        chooser.value.set_files(exported)
        row = history.locator("tr[data-row-id]").filter(has_text=IMAGE_PROMPT[:20]).first
        expect(row).to_be_visible()  # at once: no Refresh, no "All"
        expect(row.locator("img.mg-history-thumb")).to_have_attribute("src", DATA_IMAGE)
        expect(history.locator(".mg-history-keep-note")).to_contain_text("Imported ")
        assert blocked == [], blocked
        fresh.close()


def share_link(front: Front, url: str) -> str:
    """Share on the picture's card: the link it copies (kept in the button's ``data-link``)
    opens the playground with the card's request, and holds no key."""
    card = front.panel("images").locator(".mg-card[data-status='completed']").first
    button = card.locator("[data-mg-action='share']")
    button.click()
    expect(button).to_have_attribute("data-link", re.compile(r"\?tab=images&"))
    link = button.get_attribute("data-link") or ""
    assert link.startswith(url + "?"), link
    fields = parse_qs(urlsplit(link).query)
    assert fields["tab"] == ["images"]
    assert fields["prompt"] == [IMAGE_PROMPT]
    assert not [name for name in fields if "key" in name.lower()]
    return link


def download(page: Page, panel: Locator, action: str, folder: Path) -> Path:
    """Click ``action`` in ``panel`` and keep the file the browser downloads."""
    with page.expect_download() as info:
        panel.locator(f"[data-mg-action='{action}']").click()
    saved = folder / info.value.suggested_filename
    info.value.save_as(saved)
    return saved


def export_this_session(visit: LiteVisit, folder: Path) -> Path:
    """A second picture in this (reloaded) session, then "Export this session" by button."""
    panel = visit.front.panel("images")
    panel.locator("textarea[name='prompt']").fill(SECOND_PROMPT)
    panel.locator("[data-mg-action='generate']").click()
    done = panel.locator(".mg-card[data-status='completed']").filter(has_text=SECOND_PROMPT[:20])
    expect(done.first).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    history = visit.front.panel("history")
    saved = download(visit.page, history, "export-session", folder)
    assert saved.suffix == ".html"
    return saved


def opens_offline(browser: Browser, page_file: Path) -> None:
    """The exported page in a browser with no network at all: the picture decodes, its prompt
    and code are there, and nothing asked for any address."""
    context = browser.new_context(offline=True)
    asked: list[str] = []

    def refuse(route: Route) -> None:
        if route.request.url == page_file.as_uri():
            route.continue_()  # the page itself, from the disk
        else:
            asked.append(route.request.url)
            route.abort()

    context.route("**/*", refuse)
    page = context.new_page()
    page.goto(page_file.as_uri())
    image = page.locator("img").first
    expect(image).to_be_visible()
    assert image.evaluate("img => img.naturalWidth") > 0
    expect(page.get_by_text(SECOND_PROMPT).first).to_be_visible()
    expect(page.get_by_role("button", name="Copy as code")).to_have_count(1)
    expect(page.locator("pre").filter(has_text="client.images.create(")).to_have_count(1)
    assert asked == []
    context.close()


def local_context(browser: Browser) -> tuple[BrowserContext, list[str]]:
    """A new browser profile where every request to another host is aborted (and listed)."""
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    blocked: list[str] = []

    def local_only(route: Route) -> None:
        if route.request.url.startswith(LOCAL):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", local_only)
    return context, blocked
