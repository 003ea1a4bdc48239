"""The in-browser playground under test: its static server, and the Studio in its frame.

``StaticSite`` serves a ``mediagen-nb lite build`` folder on 127.0.0.1 (stdlib, with the
MIME types WebAssembly and ES modules need) and counts what it sent. ``open_lite`` opens the
landing page in a browser context where every request to any other host is aborted and
counted, and returns the Studio (JupyterLite's REPL in the page's frame) as a ``Front``, so
the journey steps of ``journey.py`` drive it as they drive JupyterLab.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, cast

from playwright.sync_api import Browser, BrowserContext, Frame, Page, Route, expect

from tests.ui.frontends import VIEWPORT, Front, Theme

LOCAL = "http://127.0.0.1:"
READY = ".mg-panel[data-mg-ready='1']"
STUDIO_TIMEOUT_MS = 180_000
"""A cold start in a busy 2-core machine: Pyodide, 33 wheels, the package's import."""
MIME = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".ipynb": "application/json",
}


@dataclass
class Counter:
    """Bytes and responses a server sent."""

    bytes: int = 0
    responses: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, size: int) -> None:
        with self.lock:
            self.bytes += size
            self.responses += 1


COMPRESSIBLE = frozenset({".wasm", ".js", ".mjs", ".json", ".css", ".html", ".svg", ".ipynb"})
"""What a static host that compresses (GitHub Pages, Netlify, nginx with gzip) sends gzipped;
wheels and zips are compressed already."""


@functools.lru_cache(maxsize=512)
def _gzipped(path: Path, mtime: float) -> bytes:
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = MIME
    counter: Counter
    compress = False

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (self.compress and accepts and path.is_file() and path.suffix in COMPRESSIBLE):
            super().do_GET()
            return
        data = _gzipped(path, path.stat().st_mtime)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.counter.add(len(data))

    def copyfile(self, source: BinaryIO, outputfile: BinaryIO) -> None:  # type: ignore[override]
        start = source.tell()
        shutil.copyfileobj(source, outputfile)
        self.counter.add(source.tell() - start)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def serve(folder: Path, *, compress: bool = False) -> Iterator[tuple[str, Counter]]:
    """``folder`` on a free port of 127.0.0.1: (its address, what it has sent). ``compress``:
    as a host that gzips text, JavaScript and WebAssembly (``COMPRESSIBLE``) when asked."""
    counter = Counter()
    handler = type("Handler", (_Handler,), {"counter": counter, "compress": compress})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, name="lite-site", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", counter
    finally:
        server.shutdown()
        server.server_close()


class FramePage:
    """The Studio's frame where a ``Front`` expects a page: locators and scripts run in the
    frame, the keyboard, page events and downloads are the page's (a Playwright frame has
    none of them)."""

    def __init__(self, frame: Frame) -> None:
        self._frame = frame
        self.keyboard = frame.page.keyboard
        self.on = frame.page.on
        self.expect_download = frame.page.expect_download  # a download is the page's event

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)


@dataclass
class LiteVisit:
    """One visitor's page on the site."""

    page: Page
    front: Front
    blocked: list[str]
    """Every request to a host other than 127.0.0.1, aborted."""
    failed: list[str]
    """Every response with an error status (``404 <url>``): a clean console has none."""
    ready_s: float
    """Seconds from opening the address to a ready Studio."""


def studio_of(page: Page) -> Front:
    """The Studio in ``page``'s frame, once ready."""
    holder = page.wait_for_selector("#mg-lite-studio")
    assert holder is not None
    frame = holder.content_frame()
    assert frame is not None
    expect(frame.locator(READY).first).to_be_visible(timeout=STUDIO_TIMEOUT_MS)
    return Front(cast(Page, FramePage(frame)), "lite")


def reload(visit: LiteVisit) -> float:
    """Load the page again in the same browser (its caches and storage kept); the visit's
    ``front`` becomes the new Studio. Returns the seconds to a ready Studio."""
    start = time.monotonic()
    visit.page.reload()
    visit.front = studio_of(visit.page)
    return time.monotonic() - start


def open_lite(
    browser: Browser,
    url: str,
    theme: Theme,
    *,
    context: BrowserContext | None = None,
    query: str = "",
) -> LiteVisit:
    """Open ``url`` (the landing page, with ``query`` after its theme) in a fresh context (or
    ``context``, whose route must be set already) and wait for the Studio."""
    address = f"{url}?theme={theme}" + (f"&{query}" if query else "")
    if context is not None:
        page = context.new_page()
        start = time.monotonic()
        page.goto(address)
        front = studio_of(page)
        return LiteVisit(page, front, [], [], time.monotonic() - start)
    context = browser.new_context(viewport=VIEWPORT, color_scheme=theme)  # type: ignore[arg-type]
    context.set_default_timeout(60_000)
    blocked: list[str] = []

    def local_only(route: Route) -> None:
        if route.request.url.startswith(LOCAL):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", local_only)
    failed: list[str] = []
    context.on(
        "response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None
    )
    page = context.new_page()
    start = time.monotonic()
    page.goto(address)
    front = studio_of(page)
    ready_s = time.monotonic() - start
    return LiteVisit(page=page, front=front, blocked=blocked, failed=failed, ready_s=ready_s)
