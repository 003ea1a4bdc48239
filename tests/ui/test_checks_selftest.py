"""The measuring tools themselves, on hand-made pages whose faults are known: a check that
passes the Studio must also be one that fails a bad panel (no server needed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.ui.checks import axe_violations, contrast, overflow

pytestmark = pytest.mark.ui

BAD = """
<body style="background:#fff;margin:0">
<div class="mg-panel" id="bad" style="width:600px;padding:8px">
  <p style="color:#999">grey on white, 2.85:1</p>
  <span style="color:#fff;background:rgba(255,255,255,0.5)">white on a pale tint</span>
  <div style="background:color-mix(in srgb, #388e3c 18%, #fff)">
    <span style="color:#fff">white on a pastel badge</span>
  </div>
  <p style="color:#767676;font-size:24px">large grey text, 4.54:1</p>
  <button style="color:#aaa" disabled>a disabled button is exempt</button>
  <button></button>
  <div style="width:900px">a row wider than the panel</div>
  <div style="overflow:hidden;width:100px"><button style="margin-left:150px">cut</button></div>
  <div style="overflow-x:auto;width:200px"><div style="width:900px">scrolls on purpose</div></div>
  <input placeholder="faint placeholder" style="color:#000">
  <style>#bad input::placeholder { color: #ccc; }</style>
</div>
<div class="mg-panel" id="good" style="width:600px;background:#121212;color:#e8e8e8">
  <p>light on dark</p>
  <button aria-label="Close">×</button>
</div>
</body>
"""


@pytest.fixture(scope="module")
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    pg = context.new_page()
    pg.set_content(BAD)
    try:
        yield pg
    finally:
        context.close()


def test_contrast_finds_each_low_text_and_passes_good_text(page: Page) -> None:
    measured = contrast(page.locator("#bad"))
    texts = {m["text"]: m for m in measured.measured}
    assert texts["grey on white, 2.85:1"]["ratio"] == pytest.approx(2.85, abs=0.02)
    assert texts["white on a pale tint"]["ratio"] == pytest.approx(1.0, abs=0.01)
    assert texts["white on a pastel badge"]["ratio"] < 1.4  # color-mix() is understood
    assert texts["large grey text, 4.54:1"]["required"] == 3.0  # large text: 3:1
    assert "a disabled button is exempt" not in texts
    assert "scrolls on purpose" in texts
    failing = {m["text"] for m in measured.failures}
    assert failing == {
        "grey on white, 2.85:1",
        "white on a pale tint",
        "white on a pastel badge",
        "faint placeholder",
    }
    good = contrast(page.locator("#good"))
    assert good.failures == []
    assert good.lowest > 14


def test_axe_reports_a_nameless_button_only_where_it_is(page: Page) -> None:
    ids = {v["id"] for v in axe_violations(page.locator("#bad"))}
    assert "button-name" in ids
    assert "color-contrast" in ids
    assert axe_violations(page.locator("#good")) == []


def test_overflow_finds_the_wide_row_and_the_cut_control_not_the_scroll_area(
    page: Page,
) -> None:
    report = overflow(page.locator("#bad"))
    sticking_out = [o["element"] for o in report["overflowing"]]
    assert sticking_out == ["div"]  # the 900 px row; the scroll area's child is exempt
    assert [u["element"] for u in report["unreachable"]] == ["button"]
    clean = overflow(page.locator("#good"))
    assert clean["overflowing"] == []
    assert clean["unreachable"] == []
