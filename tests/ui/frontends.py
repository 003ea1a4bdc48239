"""The four notebook front ends, driven the same way: open the playground, show a panel.

One Jupyter server (started exactly as ``mediagen-nb lab`` starts it) serves JupyterLab 4
(``/lab/tree/...``), Notebook 7 (``/notebooks/...``) and Voila (its server extension,
``/voila/render/...``); marimo runs ``notebooks/playground_marimo.py`` with ``marimo run``.
Every page opens the playground, where the Studio (one anywidget, the same in every front end)
shows the panels in its own tab list; ``Front.panel(name)`` clicks the tab and returns the
panel root the contract names: ``.mg-panel.mg-panel--<name>[data-mg-ready="1"]``.

Themes: JupyterLab and Notebook 7 read the theme from the server's user settings
(``JUPYTERLAB_SETTINGS_DIR``), written before the page loads; Voila takes ``?theme=dark``;
marimo follows the browser's ``prefers-color-scheme`` (the test app's ``.marimo.toml`` says
``theme = "system"``), which the browser context sets with ``color_scheme``. Every page is
opened with the matching ``color_scheme`` too, so a panel that reads ``prefers-color-scheme``
where no ``--jp-*`` theme exists sees the same theme as the page.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

Kind = Literal["lab", "notebook", "voila", "marimo", "lite"]
"""``lite``: the static in-browser site of ``mediagen-nb lite build`` (``tests/ui/lite.py``)."""
Theme = Literal["light", "dark"]
KINDS: tuple[Kind, ...] = ("lab", "notebook", "voila", "marimo")
THEMES: tuple[Theme, ...] = ("light", "dark")
PANELS = ("chat", "images", "videos", "assets", "history")
TAB_TITLES = {"chat": "Chat", "images": "Images", "videos": "Videos", "assets": "Assets"}
TAB_TITLES["history"] = "History"
PLAYGROUND = "notebooks/00-playground.ipynb"
LAB_THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
THEME_SETTINGS = Path("@jupyterlab") / "apputils-extension" / "themes.jupyterlab-settings"
VIEWPORT = {"width": 1280, "height": 900}
PANEL_SELECTOR = ".mg-panel.mg-panel--{name}"
HOST_NOISE = (
    "Command 'filebrowser:open-path' not registered",
    "reading 'schema'",
)
"""Uncaught errors Notebook 7 itself throws while it starts (no panel code on the stack);
anything else uncaught on a page fails the journey."""


STARTUP_TIMEOUT_S = 90.0
NEWS_SETTINGS = {"fetchNews": "false", "checkForUpdates": False}
ADDRESSES = {
    "arrival_url": re.compile(r"Opens:\s+(\S+)"),
    "lab_url": re.compile(r"JupyterLab:\s+(\S+)"),
    "voila_url": re.compile(r"\(Voila\):\s+(\S+)"),
}
"""The addresses ``mediagen-nb lab`` prints: what opens, the notebook in JupyterLab, Voila."""


def wait_http(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Poll ``url`` until it answers 200; fail with the server log if the process dies."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    pytest.fail(f"{url} did not answer in {STARTUP_TIMEOUT_S:.0f} s:\n{log.read_text()[-4000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server as Ctrl-C in its terminal would not need to: SIGTERM, then kill."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


def environment(base: Path, code: Path, *, user_home: bool = False) -> dict[str, str]:
    """Emulator mode, private Jupyter/marimo configuration, trust store, history and
    settings under ``base``; kernels import ``mediagen_nb`` from ``code`` (a checkout).

    ``user_home``: ``HOME`` is ``base/home`` too and the history is where a user's is
    (``~/.mediagen_nb``), so the panels show paths as a user sees them (``~/...``), not a
    temporary folder's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL"}
    }
    env.update(
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_DATA_DIR=str(base / "data"),  # the notebook signatures mediagen-nb lab makes
        JUPYTERLAB_SETTINGS_DIR=str(base / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        XDG_CONFIG_HOME=str(base / "xdg"),
        MEDIAGEN_HOME=str(base / "mediagen_home"),
        # the kernels import mediagen_nb from this checkout even when it is not installed
        PYTHONPATH=os.pathsep.join(p for p in (str(code), os.environ.get("PYTHONPATH", "")) if p),
    )
    if user_home:
        env.update(HOME=str(base / "home"), MEDIAGEN_HOME=str(base / "home" / ".mediagen_nb"))
    return env


def save_lab_theme(settings_dir: Path, theme: Theme) -> None:
    """JupyterLab's theme in its user settings, as Settings > Theme saves it."""
    path = settings_dir / THEME_SETTINGS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"theme": LAB_THEMES[theme]}))


def quiet_news(settings_dir: Path) -> None:
    """No "Jupyter news" popup: JupyterLab's notification settings in ``settings_dir``."""
    news = settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True, exist_ok=True)
    news.write_text(json.dumps(NEWS_SETTINGS))


def printed_addresses(proc: subprocess.Popen[bytes], log: Path) -> dict[str, str]:
    """The addresses ``mediagen-nb lab`` printed to ``log``, once all are there."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        text = log.read_text()
        found = {name: pattern.search(text) for name, pattern in ADDRESSES.items()}
        if all(found.values()):
            return {name: match.group(1) for name, match in found.items() if match}
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"mediagen-nb lab printed no addresses:\n{text[-4000:]}")
        time.sleep(0.1)


@dataclass(frozen=True)
class JupyterServer:
    """The running ``mediagen-nb lab`` server and the addresses it printed."""

    arrival_url: str
    lab_url: str
    voila_url: str
    root: Path
    settings_dir: Path

    @property
    def base(self) -> str:
        parts = urllib.parse.urlsplit(self.lab_url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def token(self) -> str:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.lab_url).query)
        return query.get("token", [""])[0]

    def url(self, path: str, **params: str) -> str:
        """``path`` on this server with the token (and ``params``) in the query."""
        query = urllib.parse.urlencode({"token": self.token, **params})
        return f"{self.base}/{path.lstrip('/')}?{query}"

    def kernel_idle(self, notebook: str) -> bool:
        """Whether ``notebook`` has a session on the server whose kernel is idle."""
        with urllib.request.urlopen(self.url("api/sessions"), timeout=5) as response:
            sessions = json.load(response)
        return any(
            s.get("path") == notebook and (s.get("kernel") or {}).get("execution_state") == "idle"
            for s in sessions
        )

    def set_theme(self, theme: Theme) -> None:
        """JupyterLab's (and Notebook 7's) theme for the pages opened from now on."""
        save_lab_theme(self.settings_dir, theme)


@dataclass(frozen=True)
class MarimoServer:
    url: str
    root: Path


def new_page(browser: Browser, theme: Theme, width: int | None = None) -> Page:
    """A page in a fresh context (no shared cookies or storage) in ``theme``'s colour scheme."""
    viewport = dict(VIEWPORT)
    if width is not None:
        viewport["width"] = width
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        color_scheme=theme,
        accept_downloads=True,
    )
    context.set_default_timeout(60_000)
    return context.new_page()


class Front:
    """One opened playground page in one front end."""

    def __init__(self, page: Page, kind: Kind) -> None:
        self.page = page
        self.kind = kind
        self.errors: list[str] = []
        page.on("pageerror", self._page_error)

    def _page_error(self, error: Exception) -> None:
        text = str(error)
        if not any(noise in text for noise in HOST_NOISE):
            self.errors.append(text)

    @classmethod
    def open(
        cls,
        page: Page,
        kind: Kind,
        server: JupyterServer | MarimoServer,
        theme: Theme = "light",
        notebook: str = PLAYGROUND,
    ) -> Front:
        """Open the playground in ``kind`` and wait until the Studio's first panel is ready."""
        front = cls(page, kind)
        if kind == "marimo":
            assert isinstance(server, MarimoServer)
            page.goto(server.url)
        else:
            assert isinstance(server, JupyterServer)
            server.set_theme(theme)
            if kind == "voila":
                page.goto(server.url(f"voila/render/{notebook}", theme=theme))
            elif kind == "lab":
                page.goto(server.url(f"lab/tree/{notebook}", reset=""))
                front.run_all(server, notebook)
            else:
                page.goto(server.url(f"notebooks/{notebook}"))
                front.run_all(server, notebook)
        expect(page.locator(".mg-panel[data-mg-ready='1']").first).to_be_visible(timeout=90_000)
        return front

    def run_all(self, server: JupyterServer, notebook: str) -> None:
        """Wait until the notebook's kernel is up and idle, then Run → Run All Cells
        (JupyterLab and Notebook 7 share the menu bar). Running earlier makes JupyterLab
        ask which kernel to start, and Notebook 7 shows "idle" before its kernel exists, so
        the server's own session list is the signal."""
        self._wait_for_document()
        deadline = time.monotonic() + 60
        while not server.kernel_idle(notebook):
            if time.monotonic() > deadline:
                raise AssertionError("the notebook's kernel did not start in 60 s")
            self.page.wait_for_timeout(200)
        if self.kind == "lab":
            self.page.wait_for_selector("#jp-main-statusbar >> text=Idle")
        for attempt in range(2):
            self.page.locator("#jp-MainMenu").get_by_text("Run", exact=True).click()
            self.page.get_by_text("Run All Cells", exact=True).click()
            # the first code cell gets an execution count once the kernel took the request;
            # Notebook 7 may still be connecting to the kernel and drop an early request
            executed = self.page.locator(".jp-CodeCell .jp-InputPrompt", has_text=re.compile(r"\d"))
            try:
                expect(executed.first).to_be_visible(timeout=30_000 if attempt == 0 else 60_000)
                return
            except AssertionError:
                if attempt == 1:
                    raise

    def _wait_for_document(self) -> None:
        """Wait for the notebook document. On a loaded machine Notebook 7 at times never
        opens it on the first page load (the page stays on its shell, after its own start-up
        errors, see HOST_NOISE); a person reloads, and so does this, once."""
        try:
            self.page.wait_for_selector(".jp-Notebook", timeout=45_000)
        except PlaywrightTimeoutError:
            self.page.reload()
            self.page.wait_for_selector(".jp-Notebook", timeout=90_000)

    def dark(self) -> bool:
        """Whether the page itself shows a dark theme (not just the panels)."""
        if self.kind in {"lab", "notebook", "voila", "lite"}:
            light = self.page.locator("body").get_attribute("data-jp-theme-light")
            return light == "false"
        return bool(self.page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches"))

    def tab(self, name: str) -> Locator:
        return self.page.get_by_role("tab", name=TAB_TITLES[name], exact=True)

    def panel(self, name: str) -> Locator:
        """Select ``name``'s tab and return its panel root once rendered and visible."""
        tab = self.tab(name)
        if tab.count():
            tab.first.click()
        root = self.page.locator(PANEL_SELECTOR.format(name=name) + "[data-mg-ready='1']")
        visible = root.locator("visible=true")
        expect(visible.first).to_be_visible()
        return visible.first

    def tracebacks(self) -> list[str]:
        """Texts on the page that show an exception: stderr outputs and traceback blocks."""
        texts: list[str] = self.page.locator(
            "[data-mime-type='application/vnd.jupyter.stderr'], .jp-RenderedText[data-mime-type"
            "='application/vnd.jupyter.error'], .mg-panel :text-matches('Traceback|Error:')"
        ).all_inner_texts()
        return [t for t in texts if "Traceback" in t or "Error" in t]
