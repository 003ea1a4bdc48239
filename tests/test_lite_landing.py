"""The in-browser site's landing page (issue 29): a favicon of its own, and the JupyterLab
link opens in a new tab, so the Studio and the visitor's work stay where they are."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

from mediagen_nb._lite import _site


class Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def landing(tmp_path: Path) -> tuple[list[tuple[str, dict[str, str]]], Path]:
    _site._landing(tmp_path)
    parser = Tags()
    parser.feed((tmp_path / "index.html").read_text())
    return parser.tags, tmp_path


def test_the_site_has_a_small_svg_favicon(tmp_path: Path) -> None:
    tags, site = landing(tmp_path)
    icons = [a for tag, a in tags if tag == "link" and a.get("rel") == "icon"]
    assert icons == [{"rel": "icon", "type": "image/svg+xml", "href": "favicon.svg"}]
    icon = site / "favicon.svg"
    assert 0 < icon.stat().st_size <= 2_000
    root = ET.fromstring(icon.read_text())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 32 32"
    assert "script" not in icon.read_text().lower()


def test_the_jupyterlab_link_opens_a_new_tab(tmp_path: Path) -> None:
    tags, _site_dir = landing(tmp_path)
    (link,) = [a for tag, a in tags if tag == "a" and a.get("id") == "mg-lite-lab"]
    assert link["href"] == f"lab/index.html?path={_site.PLAYGROUND}"
    assert link["target"] == "_blank"
    assert link["rel"] == "noopener"
