"""README command 1 on a fresh copy of the repository, as a newcomer meets it.

A temporary copy of every tracked file (a git repository of its own, one commit) runs the
``mediagen-nb`` of README command 1 with the arguments the README writes (this test's venv
stands in for the ``.venv`` the command creates; ``BROWSER=true`` keeps Jupyter from starting
a desktop browser). The first page, at 1400x900, must show the Studio running with no click:
a prompt typed, Generate is enabled and in view; after Generate, with the file browser open,
the picture's card is in view. The notebook itself is then run and saved in JupyterLab (what
autosave does every two minutes). A second launch works the same (with JupyterLab's theme
switched to dark meanwhile, which the app in the preview tab follows), and ``git status`` of
the copy is clean at the end: nothing the Studio did changed a file of the repository.
The README's Binder badge lands on the same running Studio: repo2docker's launch is emulated
(``binder/start``, then its default ``jupyter notebook``, in the copy, which is also HOME, as
on Binder) and the badge's ``urlpath`` is opened on that server.
JupyterLab's user settings hold only the theme, as on a fresh machine, and no toast
(JupyterLab's "official Jupyter news?" question) covers the first screen.
"""

from __future__ import annotations

import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FrameLocator, Locator, Page, expect

from mediagen_nb.cli import ALLOW_ROOT, free_port, running_as_root
from tests.ui.frontends import (
    PLAYGROUND,
    STARTUP_TIMEOUT_S,
    Front,
    JupyterServer,
    Theme,
    environment,
    printed_addresses,
    save_lab_theme,
    stop,
    wait_http,
)
from tests.ui.screenshots import save_window_screenshot

pytestmark = pytest.mark.ui

ROOT = Path(__file__).resolve().parents[2]
WINDOW = {"width": 1400, "height": 900}
README_LAB = re.compile(r"\.venv/bin/mediagen-nb ([^\n`&|;]+)")
BINDER_BADGE = re.compile(r"\[!\[Binder\]\([^)]*\)\]\((https://mybinder\.org/[^)]+)\)")
VOILA_PREVIEW = re.compile(r"/voila/render/notebooks/00-playground\.ipynb")
PROMPT = "a red fox curled up in fresh snow, morning light"
GENERATE_TIMEOUT_MS = 120_000


def fresh_copy(folder: Path) -> Path:
    """Every tracked file of the checkout (as it is now) in a new one-commit repository."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the fresh copy is made from its tracked files")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    copy = folder / "mediagen_nb"
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "fresh copy"]):
        subprocess.run([*git, *args], cwd=copy, check=True)
    return copy


def readme_lab_arguments(copy: Path) -> list[str]:
    """The arguments README command 1 gives ``.venv/bin/mediagen-nb``."""
    found = README_LAB.search((copy / "README.md").read_text(encoding="utf-8"))
    assert found, "README command 1 runs no .venv/bin/mediagen-nb"
    return found.group(1).split()


def git_status(copy: Path) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain"], cwd=copy, capture_output=True, text=True, check=True
    )
    return done.stdout


class Launch:
    """One ``mediagen-nb lab`` run in the copy, stopped on exit."""

    def __init__(self, copy: Path, base: Path, run: int) -> None:
        script = Path(sys.executable).with_name("mediagen-nb")
        assert script.is_file(), f"{script} is missing: pip install -e '.[lab]' makes it"
        self.env = environment(base, copy)
        del self.env["JUPYTERLAB_WORKSPACES_DIR"]  # the default: under MEDIAGEN_HOME
        self.env["BROWSER"] = "true"
        command = [str(script), *readme_lab_arguments(copy)]
        settings = Path(self.env["JUPYTERLAB_SETTINGS_DIR"])
        for attempt in range(3):  # another server may take the chosen port before Jupyter does
            self.log = base / f"lab-{run}-{attempt}.log"
            with self.log.open("wb") as out:
                self.proc = subprocess.Popen(
                    command, cwd=copy, env=self.env, stdout=out, stderr=subprocess.STDOUT
                )
            urls = printed_addresses(self.proc, self.log)
            self.server = JupyterServer(**urls, root=copy, settings_dir=settings)
            if not self._lost_the_port():
                break
        wait_http(self.server.url("api/status"), self.proc, self.log)

    def _lost_the_port(self) -> bool:
        """Wait until Jupyter answers (False) or exits because its port was taken (True)."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.server.url("api/status"), timeout=2):
                    return False
            except OSError:
                time.sleep(0.25)
        return self.proc.poll() is not None and "is not available" in self.log.read_text()

    def __enter__(self) -> JupyterServer:
        return self.server

    def __exit__(self, *_exc: object) -> None:
        stop(self.proc)


def binder_urlpath(copy: Path) -> str:
    """Where the README's Binder badge sends a visitor: its ``urlpath``."""
    found = BINDER_BADGE.search((copy / "README.md").read_text(encoding="utf-8"))
    assert found, "the README has no Binder badge"
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(found.group(1)).query)
    return query["urlpath"][0].lstrip("/")


class BinderLaunch:
    """What repo2docker runs at a Binder launch, in the copy: ``binder/start``, then its
    default command, ``jupyter notebook`` (here on 127.0.0.1, with a token); HOME is the
    repository, as on Binder. The server's page at the badge's ``urlpath`` is
    ``arrival_url``."""

    def __init__(self, copy: Path, base: Path) -> None:
        env = environment(base, copy)
        for name in ("JUPYTERLAB_WORKSPACES_DIR", "MEDIAGEN_HOME"):
            del env[name]  # binder/start sets them
        env.update(HOME=str(copy), BROWSER="true")
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        port, token = free_port(random.randrange(21000, 40000)), secrets.token_hex(16)
        command = [str(copy / "binder" / "start"), "jupyter", "notebook", "--no-browser"]
        command += ["--ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}"]
        command += [ALLOW_ROOT] if running_as_root() else []
        self.log = base / "binder.log"
        base.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                command, cwd=copy, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        server = f"http://127.0.0.1:{port}"
        self.server = JupyterServer(
            arrival_url=f"{server}/{binder_urlpath(copy)}?token={token}",
            lab_url=f"{server}/lab/tree/{PLAYGROUND}?token={token}",
            voila_url=f"{server}/voila/render/{PLAYGROUND}?token={token}",
            root=copy,
            settings_dir=Path(env["JUPYTERLAB_SETTINGS_DIR"]),
        )
        wait_http(self.server.url("api/status"), self.proc, self.log)

    def __enter__(self) -> JupyterServer:
        return self.server

    def __exit__(self, *_exc: object) -> None:
        stop(self.proc)


def arrive(page: Page, server: JupyterServer, theme: Theme) -> Locator:
    """Open what ``mediagen-nb lab`` opens; the running Images panel (no click)."""
    page.goto(server.arrival_url)
    expect(page.locator(".jp-DirListing-item", has_text="00-playground.ipynb")).to_be_visible()
    expect(page.locator("iframe").first).to_have_attribute("src", VOILA_PREVIEW)
    app: FrameLocator = page.frame_locator("iframe").first
    light = "false" if theme == "dark" else "true"
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", light)
    expect(app.locator("body")).to_have_attribute("data-jp-theme-light", light)
    images = app.locator(".mg-panel--images[data-mg-ready='1']")
    expect(images).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    # JupyterLab asks about news (a toast) once restored, long before the Studio is ready
    expect(page.get_by_text("official Jupyter news")).to_have_count(0)
    expect(page.locator(".Toastify__toast")).to_have_count(0)
    return images


def generate_in_view(images: Locator) -> Locator:
    """Type a prompt, Generate (in view, no scrolling), and see the card in view."""
    images.locator("textarea[name='prompt']").fill(PROMPT)
    generate = images.locator("[data-mg-action='generate']")
    expect(generate).to_be_enabled()
    expect(generate).to_be_in_viewport()
    generate.click()
    card = images.locator(".mg-card[data-status='completed']").first
    expect(card).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    expect(card).to_be_in_viewport()
    image = card.locator("img").first
    expect(image).to_be_visible()
    image.evaluate("img => img.decode()")  # drawn, for the picture of the window
    return card


def run_and_save_the_notebook(page: Page, server: JupyterServer) -> None:
    """Open the notebook in JupyterLab, Run All (a live Studio output), save it."""
    page.goto(server.lab_url)
    front = Front(page, "lab")
    front.run_all(server, PLAYGROUND)
    studio = page.locator(".jp-OutputArea .mg-panel--studio[data-mg-ready='1']")
    expect(studio).to_be_visible(timeout=GENERATE_TIMEOUT_MS)
    page.keyboard.press("Control+s")
    current = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
    expect(current).not_to_have_class(re.compile(r"jp-mod-dirty"))  # saved


def test_readme_command_one_twice_from_a_fresh_copy(
    browser: Browser, tmp_path: Path, screenshot_dir: Path
) -> None:
    copy = fresh_copy(tmp_path)
    themes: tuple[Theme, ...] = ("light", "dark")
    for run, theme in enumerate(themes, start=1):
        context = browser.new_context(viewport=WINDOW, color_scheme=theme)  # type: ignore[arg-type]
        context.set_default_timeout(60_000)
        try:
            save_lab_theme(tmp_path / "state" / "lab-settings", theme)  # read at launch
            with Launch(copy, tmp_path / "state", run) as server:
                page = context.new_page()
                generate_in_view(arrive(page, server, theme))
                # the README's first picture: the first screen after Generate
                save_window_screenshot(page, screenshot_dir / f"arrival-{theme}.png")
                if run == 1:
                    run_and_save_the_notebook(page, server)
        finally:
            context.close()
        assert git_status(copy) == "", f"launch {run} changed the repository"


def test_the_binder_badge_lands_on_the_running_studio(browser: Browser, tmp_path: Path) -> None:
    copy = fresh_copy(tmp_path)
    context = browser.new_context(viewport=WINDOW, color_scheme="light")  # type: ignore[arg-type]
    context.set_default_timeout(60_000)
    try:
        with BinderLaunch(copy, tmp_path / "binder") as server:
            page = context.new_page()
            generate_in_view(arrive(page, server, "light"))
    finally:
        context.close()
