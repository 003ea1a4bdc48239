"""Driving JupyterLab and saving screenshots, shared by the browser tests."""

from __future__ import annotations

from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator, Page

SCREENSHOT_MAX_WIDTH = 960
SCREENSHOT_COLOURS = 96
"""Screenshots are downscaled and palette-quantised: a committed PNG stays under ~100 KB."""


@dataclass(frozen=True)
class Server:
    """A running Jupyter server: where it answers and where its notebooks live."""

    url: str
    root: Path


class Lab:
    """Drives one notebook in JupyterLab the way a person does: open, wait, Run All."""

    def __init__(self, page: Page, server: Server) -> None:
        self.page = page
        self.server = server

    def open(self, notebook: str) -> None:
        """Open ``notebooks/<notebook>`` in a reset workspace and wait for an idle kernel."""
        self.page.goto(f"{self.server.url}/lab/tree/notebooks/{notebook}?reset")
        self.page.wait_for_selector(".jp-Notebook")
        self.page.wait_for_selector("#jp-main-statusbar >> text=Idle")

    def run_all(self) -> None:
        """Run → Run All Cells from the menu bar."""
        self.page.click("#jp-MainMenu >> text=Run")
        self.page.click("text=Run All Cells")


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
        picture = Image.open(BytesIO(target.screenshot(animations="disabled")))
    finally:
        if viewport is not None:
            page.set_viewport_size(viewport)
    if picture.width > SCREENSHOT_MAX_WIDTH:
        height = round(picture.height * SCREENSHOT_MAX_WIDTH / picture.width)
        picture = picture.resize((SCREENSHOT_MAX_WIDTH, height), Image.Resampling.LANCZOS)
    picture = picture.convert("RGB").quantize(colors=SCREENSHOT_COLOURS)
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(path, optimize=True)
