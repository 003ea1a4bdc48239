"""The journey a newcomer takes through the Studio, step by step, in any front end.

Each step works only through the DOM hooks of UI-CONTRACT.md (``name=`` fields,
``data-mg-action`` buttons, ``data-status`` cards and rows) and waits on them, never on
sleeps; each returns what it saw so the test can assert contents and orders.
"""

from __future__ import annotations

import re
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from PIL import Image
from playwright.sync_api import Locator, expect

from tests.ui.checks import axe_violations
from tests.ui.frontends import Front

IMAGE_PROMPT = "a red fox curled up in fresh snow, morning light"
VIDEO_PROMPT = "a paper boat drifting down a rainy street"
CHAT_MESSAGE = "Explain in a few paragraphs why the sea is salty."
GENERATE_TIMEOUT_MS = 120_000
QUIET_MS = 500
QUIET_JS = """(root, ms) => new Promise((done) => {
  let timer = setTimeout(finish, ms);
  const watch = new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(finish, ms);
  });
  function finish() { watch.disconnect(); done(true); }
  watch.observe(root, {subtree: true, childList: true, attributes: true, characterData: true});
})"""

RECORD_REPLY = """(panel) => {
  window.__mgReply = [];
  const seen = () => {
    const replies = panel.querySelectorAll('.mg-msg--assistant');
    const last = replies[replies.length - 1];
    const n = last ? last.textContent.length : 0;
    if (n && window.__mgReply.at(-1) !== n) window.__mgReply.push(n);
  };
  new MutationObserver(seen).observe(panel, {subtree: true, childList: true,
                                             characterData: true});
}"""


def type_into(front: Front, selector: str, panel_name: str, text: str) -> None:
    """Type like a person (fill, then leave the field) into a field of a panel."""
    field = front.panel(panel_name).locator(selector)
    field.fill(text)
    field.blur()


def generate_image(front: Front) -> float:
    """Images: type a prompt, Generate, and see the picture (decoded, non-empty). The first
    model has one resolution: it reads as plain text, with nothing to toggle.

    Returns the seconds from the click to the decoded picture: a figure for ``bench/``
    (printed, never asserted)."""
    panel = front.panel("images")
    resolution = panel.locator(".mg-field", has=front.page.get_by_text("Resolution", exact=True))
    expect(resolution).to_contain_text("1K")
    expect(resolution.locator("button, input, select")).to_have_count(0)
    type_into(front, "textarea[name='prompt']", "images", IMAGE_PROMPT)
    generate = panel.locator("[data-mg-action='generate']")
    expect(generate).to_be_enabled()
    start = time.monotonic()
    generate.click()
    card = panel.locator(".mg-card[data-status='completed']").first
    expect(card).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    image = card.locator("img").first
    expect(image).to_be_visible()
    image.evaluate(
        "img => img.complete && img.naturalWidth > 0 ? 1 :"
        " new Promise((ok, no) => { img.onload = ok; img.onerror = no; })"
    )
    assert image.evaluate("img => img.naturalWidth") > 0
    seconds = time.monotonic() - start
    see_larger(front, image)
    save_picture(front, card)
    return seconds


def save_picture(front: Front, card: Locator) -> str:
    """Save on the picture's card: the browser downloads the file and the panel says so, under
    the name it was saved as, naming the original's place in the user's terms (no temporary
    folder of the machine) with its full path as the tooltip. Returns that name."""
    with front.page.expect_download() as download:
        card.locator("[data-mg-action='save']").click()
    name = download.value.suggested_filename
    note = front.panel("images").locator(".mg-status-line[role='status']")
    expect(note).to_contain_text(f"downloaded by your browser as {name}")
    expect(note).to_have_attribute("title", re.compile(r"^/.+\.(png|jpg|webp)$"))
    assert "/tmp/" not in note.inner_text(), note.inner_text()
    return name


def see_larger(front: Front, image: Locator) -> list[dict[str, Any]]:
    """Click the picture: a lightbox opens (axe-clean), Escape closes it; opened again, its
    Close button closes it. Returns axe's critical/serious findings on the open lightbox."""
    panel = front.panel("images")
    lightbox = panel.locator(".mg-lightbox").locator("visible=true")
    image.click()
    expect(lightbox).to_have_count(1)
    expect(lightbox.locator("img").first).to_be_visible()
    found = axe_violations(lightbox.first)
    assert not found, found
    front.page.keyboard.press("Escape")
    expect(lightbox).to_have_count(0)
    image.click()
    expect(lightbox).to_have_count(1)
    lightbox.get_by_role("button", name="Close", exact=True).click()
    expect(lightbox).to_have_count(0)
    return found


def generate_video(front: Front) -> None:
    """Videos: type a prompt, Generate, and play the result until it has a frame."""
    panel = front.panel("videos")
    type_into(front, "textarea[name='prompt']", "videos", VIDEO_PROMPT)
    generate = panel.locator("[data-mg-action='generate']")
    expect(generate).to_be_enabled()
    generate.click()
    card = panel.locator(".mg-card[data-status='completed']").first
    expect(card).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    video = card.locator("video").first
    expect(video).to_be_attached()
    video.evaluate("v => { v.muted = true; return v.play(); }")
    front.page.wait_for_function(
        "v => v.readyState >= 2 && v.videoWidth > 0", arg=video.element_handle()
    )
    video.evaluate("v => v.pause()")


def chat_and_stop(front: Front) -> tuple[list[int], int]:
    """Chat: send with Ctrl+Enter, watch the reply grow, press Stop while it streams.

    Returns the reply lengths seen while streaming and the length it kept after Stop.
    """
    panel = front.panel("chat")
    panel.evaluate(RECORD_REPLY)
    box = panel.locator("textarea[name='message']")
    box.fill(CHAT_MESSAGE)
    box.press("Control+Enter")
    stop = panel.locator("[data-mg-action='stop']")
    expect(stop).to_be_enabled()
    front.page.wait_for_function("() => (window.__mgReply || []).length >= 3")
    stop.click()
    expect(stop).to_be_disabled()
    expect(panel.locator("[data-mg-action='send']")).to_be_visible()
    reply = panel.locator(".mg-msg--assistant").last
    kept = len(reply.text_content() or "")
    lengths: list[int] = front.page.evaluate("window.__mgReply")
    return lengths, kept


def png_file(folder: Path) -> Path:
    """A small real picture to upload (a gradient, so its thumbnail is not blank)."""
    picture = Image.linear_gradient("L").resize((96, 64)).convert("RGB")
    buffer = BytesIO()
    picture.save(buffer, format="PNG")
    path = folder / "presenter.png"
    path.write_bytes(buffer.getvalue())
    return path


def upload_asset(front: Front, folder: Path) -> None:
    """Assets: choose a file, name it, Upload, and wait until its row is Active with a
    thumbnail. The library is the service's, so rows an earlier page uploaded may be listed
    too (and arrive late): the test's own row is the one with its unique name."""
    panel = front.panel("assets")
    name = f"journey in {front.kind}"
    panel.locator("input[type='file'][name='asset-file']").set_input_files(png_file(folder))
    type_into(front, "input[name='asset-name']", "assets", name)
    upload = panel.locator("[data-mg-action='upload']")
    expect(upload).to_be_enabled()
    upload.click()
    mine = panel.locator(".mg-asset[data-status='Active']", has_text=name)
    expect(mine).to_have_count(1, timeout=GENERATE_TIMEOUT_MS)
    expect(mine.locator("img")).to_be_visible()


def reopen_from_history(front: Front) -> str:
    """History: open the image's row (a click in JupyterLab and Notebook 7, Enter on the
    focused row in Voila and marimo); its request comes back in the Images form.

    Returns the prompt the Images panel shows afterwards.
    """
    type_into(front, "textarea[name='prompt']", "images", "something else entirely")
    panel = front.panel("history")
    rows = panel.locator("tr[data-row-id]")
    expect(rows.first).to_be_visible()
    row = rows.filter(has_text=IMAGE_PROMPT[:20]).first
    expect(row).to_be_visible()
    # opening the tab refreshes the rows: act on the row once the table stopped changing, or
    # a key press can land while its row is being replaced (seen in marimo)
    panel.evaluate(QUIET_JS, QUIET_MS)
    if front.kind in {"voila", "marimo"}:  # the keyboard way: rows are focusable
        row.focus()
        row.press("Enter")
    else:
        row.click()
    images = front.panel("images")
    prompt = images.locator("textarea[name='prompt']")
    expect(prompt).to_have_value(IMAGE_PROMPT)
    return prompt.input_value()
