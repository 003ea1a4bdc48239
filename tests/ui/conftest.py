"""Real-browser fixtures: one Jupyter server, one marimo server and Debian's chromium.

Started once per session (a server costs seconds of CPU on a 2-core machine), each in a
temporary root holding a copy of ``notebooks/`` (nothing a test does writes into the
checkout), on 127.0.0.1 with a free port, without ``MEDIAGEN_API_KEY`` (demo mode) and with
its own ``HOME`` (the history at ``~/.mediagen_nb`` under it, so paths show as a user's do),
``JUPYTER_CONFIG_DIR``, user settings and workspaces, so a developer's own configuration is
neither read nor touched. "Jupyter news" is switched off
through those temporary user settings.

The Jupyter server is started by ``python -m mediagen_nb.cli lab`` itself, and the tests use
the two addresses it prints: so every Lab, Notebook 7 and Voila test also checks that what
``mediagen-nb lab`` tells a person to open works.

Screenshots go to a temporary folder unless ``MEDIAGEN_SCREENSHOTS`` names one (the README's
are refreshed with ``MEDIAGEN_SCREENSHOTS=docs/screenshots scripts/test -m ui``).
Outside CI the tests skip when ``/usr/bin/chromium`` is missing; with ``CI=true`` they fail.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from mediagen_nb.cli import free_port
from tests.ui.frontends import (
    JupyterServer,
    MarimoServer,
    environment,
    printed_addresses,
    quiet_news,
    stop,
    wait_http,
)

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
MARIMO_CONFIG = '[display]\ntheme = "system"\n\n[runtime]\nauto_instantiate = true\n'


def _copy_notebooks(base: Path) -> Path:
    root = base / "root"
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    return root


@pytest.fixture(scope="session")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    """``mediagen-nb lab`` in a temporary root: JupyterLab, Notebook 7 and Voila on one
    server. Its printed JupyterLab and Voila addresses are what the tests open."""
    base = tmp_path_factory.mktemp("jupyter")
    root = _copy_notebooks(base)
    env = environment(base, ROOT, user_home=True)
    settings = Path(env["JUPYTERLAB_SETTINGS_DIR"])
    quiet_news(settings)
    log = base / "server.log"
    # a port of our own: on a shared machine every other Jupyter starts from 8888 too, and a
    # port taken between mediagen-nb lab's check and Jupyter's start fails the whole tier
    port = free_port(random.randrange(21000, 40000))
    cmd = [
        sys.executable, "-m", "mediagen_nb.cli", "lab", "--no-browser", "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
        f"--LabApp.workspaces_dir={env['JUPYTERLAB_WORKSPACES_DIR']}",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        urls = printed_addresses(proc, log)
        server = JupyterServer(**urls, root=root, settings_dir=settings)
        wait_http(server.url("api/status"), proc, log)
        yield server
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def marimo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MarimoServer]:
    """``marimo run notebooks/playground_marimo.py`` (a copy) on 127.0.0.1, headless; its
    ``.marimo.toml`` makes marimo follow the browser's colour scheme."""
    base = tmp_path_factory.mktemp("marimo")
    root = _copy_notebooks(base)
    (root / ".marimo.toml").write_text(MARIMO_CONFIG)
    env = environment(base, ROOT, user_home=True)
    port = free_port(random.randrange(21000, 40000))
    log = base / "server.log"
    cmd = [
        sys.executable, "-m", "marimo", "run", "--headless", "--no-token",
        "--host", "127.0.0.1", "--port", str(port), "notebooks/playground_marimo.py",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(url + "/health", proc, log)
        yield MarimoServer(url=url, root=root)
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless; never Playwright's own download."""
    if not CHROMIUM.exists():
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{CHROMIUM} is missing in CI: .ci/run must install chromium")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")
    expect.set_options(timeout=60_000)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary folder, or ``MEDIAGEN_SCREENSHOTS`` (relative to the checkout) when set."""
    chosen = os.environ.get("MEDIAGEN_SCREENSHOTS")
    folder = (ROOT / chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def scratch_shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Pictures worth a look but not the README's (Voila, marimo, 600 px): always temporary."""
    return tmp_path_factory.mktemp("more-screenshots")


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mediagen-nb lite build`` into a temporary folder, as a person runs it. Downloads
    (Pyodide, wheels) are cached outside the checkout (``~/.cache/mediagen_nb/lite``), so
    only the first build on a machine needs the registries."""
    if importlib.util.find_spec("jupyterlite_core") is None:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("jupyterlite-core is missing in CI: the test extra must include lite")
        pytest.skip("jupyterlite-core not installed (pip install -e '.[lite]')")
    output = tmp_path_factory.mktemp("lite") / "site"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-m", "mediagen_nb.cli", "lite", "build", "--output", str(output)],
        cwd=tmp_path_factory.getbasetemp(),
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"mediagen-nb lite build failed:\n{(done.stdout + done.stderr)[-4000:]}")
    return output
