"""Real-browser fixtures: JupyterLab and Voila on 127.0.0.1, driven by Debian's chromium.

JupyterLab starts for each test (a few seconds) in a temporary root holding a copy of
``notebooks/``, with a blank token, its own history folder (``MEDIAGEN_HOME``), workspaces,
``JUPYTER_CONFIG_DIR`` and user-settings folders (so a developer's own Lab settings are
neither read nor touched) and the "Jupyter news" prompt switched off through those temporary
user settings (the same effect as NOTES' ``overrides.json`` without writing into the
installation). Voila renders the playground standalone.
Both run without ``MEDIAGEN_API_KEY``, so the panels use the built-in emulator.

Outside CI the tests skip when ``/usr/bin/chromium`` is missing; with ``CI=true`` they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_driver import Lab, Server
from playwright.sync_api import Browser, Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("MEDIAGEN_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(os.environ.get("MEDIAGEN_SCREENSHOTS", ROOT / "docs" / "screenshots"))
"""Where panel screenshots go; set MEDIAGEN_SCREENSHOTS to keep them out of the checkout."""
STARTUP_TIMEOUT_S = 90.0
NEWS_SETTINGS = {"fetchNews": "false", "checkForUpdates": False}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
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


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)


@pytest.fixture(scope="session")
def server_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment shared by the servers and their kernels: emulator mode, private Jupyter
    config and user settings. Each server adds its own history folder and workspaces."""
    base = tmp_path_factory.mktemp("jupyter")
    settings = base / "lab-settings"
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps(NEWS_SETTINGS))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL"}
    }
    env.update(
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        # the kernels import mediagen_nb from this checkout even when it is not installed
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
    )
    return env


def _isolated(server_env: dict[str, str], base: Path) -> tuple[dict[str, str], Path]:
    """A server's own environment and root: fresh history, workspaces, notebook copies."""
    root = base / "root"
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    env = dict(server_env)
    env.update(
        MEDIAGEN_HOME=str(base / "mediagen_home"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
    )
    return env, root


def _serve(
    cmd: list[str], env: dict[str, str], ready_path: str, port: int, base: Path, root: Path
) -> Iterator[Server]:
    log = base / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_http(url + ready_path, proc, log)
        yield Server(url=url, root=root)
    finally:
        _stop(proc)


@pytest.fixture
def lab_server(server_env: dict[str, str], tmp_path: Path) -> Iterator[Server]:
    """JupyterLab on 127.0.0.1 with a blank token, one per test (about 3 s to start), so
    every test starts with an empty history and a fresh kernel; stopped after the test."""
    base = tmp_path / "lab"
    env, root = _isolated(server_env, base)
    port = _free_port()
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        "--ServerApp.port_retries=0", "--ServerApp.allow_root=True",
        "--IdentityProvider.token=", "--ServerApp.password=",
        "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root}",
        f"--LabApp.workspaces_dir={env['JUPYTERLAB_WORKSPACES_DIR']}",
    ]  # fmt: skip
    yield from _serve(cmd, env, "/api/status", port, base, root)


@pytest.fixture(scope="session")
def voila_server(
    server_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """Voila serving the notebook folder on 127.0.0.1; stopped at the end of the session."""
    base = tmp_path_factory.mktemp("voila")
    env, root = _isolated(server_env, base)
    port = _free_port()
    cmd = [
        sys.executable, "-m", "voila", "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
        "--Voila.port_retries=0", f"--Voila.root_dir={root / 'notebooks'}",
    ]  # fmt: skip
    yield from _serve(cmd, env, "/", port, base, root)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless; never Playwright's own download."""
    if not CHROMIUM.exists():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run must install chromium")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser page of a fixed size, so screenshots are comparable by eye."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    expect.set_options(timeout=60_000)
    pg = context.new_page()
    try:
        yield pg
    finally:
        context.close()


@pytest.fixture
def screenshot_dir() -> Path:
    """Where panel screenshots go (committed, shown in the README)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def lab(page: Page, lab_server: Server) -> Lab:
    """A page of the session's JupyterLab."""
    return Lab(page, lab_server)
