"""Saving panel screenshots small enough to commit, shared by the browser tests."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator, Page

SCREENSHOT_MAX_WIDTH = 960
SCREENSHOT_COLOURS = 96
"""Screenshots are downscaled and palette-quantised: a committed PNG stays under ~100 KB."""


def save_screenshot(target: Locator, path: Path) -> None:
    """Screenshot one element into a small PNG (downscaled, fewer colours).

    The viewport grows for the shot so a tall panel is captured whole, not stitched from a
    scrolled notebook.
    """
    page = target.page
    viewport = page.viewport_size
    box = target.bounding_box()
    if viewport is not None and box is not None and box["height"] + 200 > viewport["height"]:
        height = min(int(box["height"]) + 400, 4000)
        page.set_viewport_size({"width": viewport["width"], "height": height})
    try:
        target.scroll_into_view_if_needed()
        picture: Image.Image = Image.open(BytesIO(target.screenshot(animations="disabled")))
    finally:
        if viewport is not None:
            page.set_viewport_size(viewport)
    write_small(picture, path)


def save_window_screenshot(page: Page, path: Path) -> None:
    """Screenshot what the window shows (the first screen a person sees), small."""
    write_small(Image.open(BytesIO(page.screenshot(animations="disabled"))), path)


def write_small(picture: Image.Image, path: Path) -> None:
    """Save ``picture`` downscaled to ``SCREENSHOT_MAX_WIDTH`` and palette-quantised."""
    if picture.width > SCREENSHOT_MAX_WIDTH:
        height = round(picture.height * SCREENSHOT_MAX_WIDTH / picture.width)
        picture = picture.resize((SCREENSHOT_MAX_WIDTH, height), Image.Resampling.LANCZOS)
    picture = picture.convert("RGB").quantize(colors=SCREENSHOT_COLOURS)
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(path, optimize=True)
