"""The demo-mode notice: once per process, on stderr for scripts, never as a red stderr box in
a Jupyter kernel (plain stdout there, nothing at all when the panels' banner already says it)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mediagen_nb.client._client as client_module
from mediagen_nb import _hooks
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import start_emulator

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:9/api"
NOTICE = "mediagen_nb demo mode: using the built-in emulator at "
IN_PROCESS = "mediagen_nb demo mode: the built-in emulator runs in "


@pytest.fixture
def fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake built-in emulator endpoint, and the notice not yet shown in this process."""
    endpoint = _hooks.ServiceEndpoint(BASE, "http://127.0.0.1:9/gateway", "emu-key-7")
    monkeypatch.setattr(_hooks, "_fallback_factory", lambda: endpoint)
    monkeypatch.setattr(client_module, "_notice_shown", False)


class _Shell:
    """What ``IPython.get_ipython()`` returns in a kernel: a shell with a ``kernel``."""

    kernel = object()


@pytest.fixture
def in_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Look like a Jupyter kernel: ipykernel imported, ``get_ipython()`` a kernel shell."""
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = _Shell  # type: ignore[attr-defined]  # a module attribute set here
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))


@pytest.fixture
def in_pyodide_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Look like JupyterLite's Pyodide kernel: a kernel shell, ``pyodide_kernel`` imported and
    no ipykernel (that kernel never imports it)."""
    ipython = types.ModuleType("IPython")
    ipython.get_ipython = _Shell  # type: ignore[attr-defined]  # a module attribute set here
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "pyodide_kernel", types.ModuleType("pyodide_kernel"))
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The built-in emulator in this process (no socket), the notice not yet shown."""
    with start_emulator(in_process=True) as handle:
        monkeypatch.setattr(_hooks, "_fallback_factory", handle.endpoint)
        monkeypatch.setattr(client_module, "_notice_shown", False)
        yield


async def _two_demo_clients() -> None:
    for _ in range(2):
        client = AsyncClient(recorder=None)
        assert client.demo_mode
        await client.aclose()


@pytest.mark.usefixtures("fallback")
async def test_script_gets_one_stderr_line_and_one_info_record(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mediagen_nb")
    await _two_demo_clients()
    out, err = capsys.readouterr()
    assert err.count(NOTICE + BASE) == 1
    assert out == ""
    records = [r for r in caplog.records if NOTICE in r.getMessage()]
    assert [(r.name, r.levelno) for r in records] == [("mediagen_nb.client", logging.INFO)]


@pytest.mark.usefixtures("fallback", "in_kernel")
async def test_kernel_without_panels_gets_a_plain_stdout_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.delitem(sys.modules, "mediagen_nb.widgets", raising=False)
    caplog.set_level(logging.INFO, logger="mediagen_nb")
    await _two_demo_clients()
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count(NOTICE + BASE) == 1
    assert sum(NOTICE in r.getMessage() for r in caplog.records) == 1


@pytest.mark.usefixtures("fallback", "in_kernel")
async def test_kernel_with_panels_leaves_it_to_their_banner(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setitem(sys.modules, "mediagen_nb.widgets", types.ModuleType("widgets"))
    caplog.set_level(logging.INFO, logger="mediagen_nb")
    await _two_demo_clients()
    assert capsys.readouterr() == ("", "")
    assert sum(NOTICE in r.getMessage() for r in caplog.records) == 1


@pytest.mark.usefixtures("fallback", "in_pyodide_kernel")
async def test_the_pyodide_kernel_counts_as_a_kernel(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "mediagen_nb.widgets", types.ModuleType("widgets"))
    await _two_demo_clients()
    assert capsys.readouterr() == ("", "")  # no red stderr box under the browser's cell


@pytest.mark.usefixtures("in_process")
async def test_an_in_process_emulator_says_where_it_runs_and_names_no_address(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mediagen_nb")
    await _two_demo_clients()
    err = capsys.readouterr().err
    assert err.splitlines() == [
        IN_PROCESS + "this process (set MEDIAGEN_API_KEY, MEDIAGEN_BASE_URL and "
        "MEDIAGEN_TEXT_BASE_URL for the real service)"
    ]
    said = [r.getMessage() for r in caplog.records if IN_PROCESS in r.getMessage()]
    assert len(said) == 1
    assert all(".invalid" not in text and "http" not in text for text in [err, *said])


@pytest.mark.usefixtures("in_process", "in_pyodide_kernel")
async def test_in_a_browser_tab_the_emulator_runs_in_this_tab(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(client_module, "is_browser", lambda: True)
    monkeypatch.delitem(sys.modules, "mediagen_nb.widgets", raising=False)
    await _two_demo_clients()
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count(IN_PROCESS + "this tab (") == 1
    assert ".invalid" not in out


def test_a_plain_script_is_told_once_on_stderr(tmp_path: Path) -> None:
    script = (
        "import asyncio, mediagen_nb as mg\n"
        "async def main():\n"
        "    for _ in range(2):\n"
        "        async with mg.AsyncClient() as client:\n"
        "            print('demo', client.demo_mode)\n"
        "asyncio.run(main())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIAGEN_")}
    env.update(MEDIAGEN_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["demo True", "demo True"]
    assert done.stderr.count(NOTICE + "http://127.0.0.1:") == 1


def _run_in_kernel(
    cells: list[str], tmp_path: Path, **extra_env: str
) -> list[list[dict[str, Any]]]:
    """Execute ``cells`` in a real ipykernel (no key, fresh history, ``extra_env`` set); each
    cell's outputs."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]  # untyped library
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in cells]  # type: ignore[no-untyped-call]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIAGEN_")}
    env.update(MEDIAGEN_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), **extra_env)
    runner = NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    runner.execute(env=env, cwd=str(tmp_path))
    return [list(cell["outputs"]) for cell in notebook.cells]


def _streams(outputs: list[dict[str, Any]], name: str) -> str:
    return "".join(o["text"] for o in outputs if o["output_type"] == "stream" and o["name"] == name)


def test_studio_in_a_kernel_shows_no_red_stderr_box(tmp_path: Path) -> None:
    first, second = _run_in_kernel(
        [
            "import mediagen_nb as mg\nstudio = mg.Studio(resume=False)\nstudio",
            "tasks = await studio.resume()  # the Studio's client is made here\n"
            "print('demo', studio.session.client.demo_mode, len(tasks))",
        ],
        tmp_path,
    )
    assert _streams(first + second, "stderr") == ""
    assert _streams(second, "stdout") == "demo True 0\n"  # the banner says demo mode


def test_client_in_a_kernel_says_it_once_as_plain_output(tmp_path: Path) -> None:
    first, second = _run_in_kernel(
        [
            "import mediagen_nb as mg\nclient = mg.AsyncClient()",
            "again = mg.AsyncClient()\nprint('demo', again.demo_mode)",
        ],
        tmp_path,
    )
    assert _streams(first + second, "stderr") == ""
    assert _streams(first, "stdout").count(NOTICE + "http://127.0.0.1:") == 1
    assert _streams(second, "stdout") == "demo True\n"


BROWSER_TAB = """
from mediagen_nb.client import _client
from mediagen_nb.history import _ledger
_client.is_browser = _ledger.is_browser = lambda: True  # as in a browser tab
_ledger._default = None
import mediagen_nb as mg
studio = mg.Studio(resume=False)
studio
"""


def test_a_browser_like_studio_says_each_notice_once_and_nothing_in_red(tmp_path: Path) -> None:
    first, second = _run_in_kernel(
        [
            BROWSER_TAB,
            "tasks = await studio.resume()  # the Studio's client is made here\n"
            "print(studio.notice.count('kept in memory'), studio.session.client.demo_mode)",
        ],
        tmp_path,
        MEDIAGEN_DEMO="in-process",
    )
    assert _streams(first + second, "stderr") == ""  # the history notice is the Studio's only
    assert _streams(first, "stdout") == ""  # the bar says demo mode; no address anywhere
    assert _streams(second, "stdout") == "1 True\n"
