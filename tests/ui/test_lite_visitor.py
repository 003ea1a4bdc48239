"""The playground visitor keeps their work (``mediagen-nb lite build``, every request to
another host aborted): a picture made, the page reloaded at once, and the History tab still
lists it with its thumbnail (kept in the browser's IndexedDB); Export downloads the history
by button, and Import by button in a new browser profile shows its rows and thumbnails at
once. The second load in the same browser comes from the site's service worker: its time
and the bytes it still downloaded are printed by ``python -m bench``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Route, expect

from tests.ui.frontends import VIEWPORT
from tests.ui.journey import IMAGE_PROMPT, generate_image
from tests.ui.lite import LOCAL, open_lite, reload, serve

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _lite_figures import record  # noqa: E402 - bench/ is a folder of scripts

pytestmark = [pytest.mark.ui, pytest.mark.slow]


def test_history_outlives_a_reload_and_travels_by_export_and_import(
    lite_site: Path, browser: Browser, tmp_path: Path
) -> None:
    with serve(lite_site) as (url, sent):
        visit = open_lite(browser, url, "light")
        visit.page.on("dialog", lambda dialog: dialog.accept())  # leaving while unsaved asks
        generate_image(visit.front)
        before = sent.bytes
        second_s = reload(visit)  # at once after the picture: nothing of it may be lost
        second_mb = (sent.bytes - before) / 1e6
        print(f"\nsecond visit: ready in {second_s:.1f} s, {second_mb:.2f} MB downloaded")
        history = visit.front.panel("history")
        rows = history.locator("tr[data-row-id]")
        row = rows.filter(has_text=IMAGE_PROMPT[:20]).first
        expect(row).to_be_visible()
        expect(row.locator("img.mg-history-thumb")).to_have_attribute(
            "src", re.compile(r"^data:image/")
        )
        expect(history.locator(".mg-history-storage")).to_contain_text("Kept in this browser: ")
        expect(history.get_by_text("Save CSV")).to_be_hidden()  # no folder of the tab's memory
        with visit.page.expect_download() as download_info:
            history.locator("[data-mg-action='export-history']").click()
        saved = tmp_path / download_info.value.suggested_filename
        download_info.value.save_as(saved)
        document = json.loads(saved.read_text())
        assert document["format"] == "mediagen_nb-history"
        assert len(document["media"]) >= 1
        assert any(
            e["data"].get("request", {}).get("prompt") == IMAGE_PROMPT for e in document["events"]
        )
        assert visit.blocked == [], visit.blocked
        visit.page.context.close()
        record(second_load_s=second_s, second_downloaded_mb=second_mb)

        fresh = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]  # another browser profile: nothing kept
        blocked: list[str] = []

        def local_only(route: Route) -> None:
            if route.request.url.startswith(LOCAL):
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()

        fresh.route("**/*", local_only)
        other = open_lite(browser, url, "light", context=fresh)
        history = other.front.panel("history")
        expect(history.locator("tr[data-row-id]")).to_have_count(0)
        with other.page.expect_file_chooser() as chooser:
            history.locator("[data-mg-action='import-history']").click()
        chooser.value.set_files(saved)
        row = history.locator("tr[data-row-id]").filter(has_text=IMAGE_PROMPT[:20]).first
        expect(row).to_be_visible()  # at once: no Refresh, no "All"
        expect(row.locator("img.mg-history-thumb")).to_have_attribute(
            "src", re.compile(r"^data:image/")
        )
        expect(history.locator(".mg-history-keep-note")).to_contain_text("Imported ")
        assert blocked == [], blocked
        fresh.close()
