"""What ``mediagen-nb lab`` prepares: the arrival workspace, where it goes, and the save hook
that keeps the playground's outputs out of the file (``mediagen_nb._lab``)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import nbformat
import pytest

from mediagen_nb import _lab

PLAYGROUND = "notebooks/00-playground.ipynb"
ROOT = Path(__file__).resolve().parent.parent


class Manager:
    """The part of a Jupyter contents manager the hook reads."""

    def __init__(self, root: Path) -> None:
        self.root_dir = str(root)


def saved_by_jupyterlab(tmp_path: Path) -> tuple[dict[str, Any], str]:
    """The playground as JupyterLab sends it after Run All: outputs, counts, widget state,
    the kernel's language_info; and the file's text on disk."""
    (tmp_path / "notebooks").mkdir()
    text = (ROOT / PLAYGROUND).read_text(encoding="utf-8")
    (tmp_path / PLAYGROUND).write_text(text, encoding="utf-8")
    content = json.loads(text)
    code = content["cells"][1]
    code["execution_count"] = 1
    view = {"model_id": "0f3c", "version_major": 2, "version_minor": 0}
    mime = "application/vnd.jupyter.widget-view+json"
    code["outputs"] = [{"output_type": "execute_result", "data": {mime: view}, "metadata": {}}]
    content["metadata"]["language_info"] = {"name": "python", "version": "3.11.2"}
    content["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    return {"type": "notebook", "content": content}, text


def test_an_executed_playground_is_saved_as_the_file_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_lab.PLAYGROUND_ENV, PLAYGROUND)
    model, text = saved_by_jupyterlab(tmp_path)
    _lab.keep_playground_clean(model, path=PLAYGROUND, contents_manager=Manager(tmp_path))
    notebook = nbformat.from_dict(model["content"])  # type: ignore[no-untyped-call]
    written = nbformat.writes(notebook) + "\n"  # type: ignore[no-untyped-call]
    assert written == text  # byte for byte: the checkout stays clean


def test_an_edited_playground_keeps_the_edit_without_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_lab.PLAYGROUND_ENV, PLAYGROUND)
    model, _text = saved_by_jupyterlab(tmp_path)
    model["content"]["cells"][1]["source"] = "import mediagen_nb as mg\n\nmg.Studio(resume=False)"
    _lab.keep_playground_clean(model, path="/" + PLAYGROUND, contents_manager=Manager(tmp_path))
    code = model["content"]["cells"][1]
    assert code["source"].endswith("mg.Studio(resume=False)")  # the user's edit is saved
    assert (code["outputs"], code["execution_count"]) == ([], None)
    assert "widgets" not in model["content"]["metadata"]


def test_other_notebooks_are_saved_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(_lab.PLAYGROUND_ENV, PLAYGROUND)
    model, _text = saved_by_jupyterlab(tmp_path)
    before = json.dumps(model)
    path = "notebooks/01-getting-started.ipynb"
    _lab.keep_playground_clean(model, path=path, contents_manager=Manager(tmp_path))
    assert json.dumps(model) == before
    monkeypatch.delenv(_lab.PLAYGROUND_ENV)  # a server not started by mediagen-nb lab
    _lab.keep_playground_clean(model, path=PLAYGROUND, contents_manager=Manager(tmp_path))
    assert json.dumps(model) == before


def test_the_workspace_opens_the_playground_in_voilas_preview(tmp_path: Path) -> None:
    saved = _lab.write_workspace(tmp_path / "ws", PLAYGROUND)
    again = _lab.write_workspace(tmp_path / "ws", PLAYGROUND)  # every launch replaces it
    assert saved == again
    assert [p.name for p in (tmp_path / "ws").iterdir()] == [saved.name]
    data = json.loads(saved.read_text())
    assert data["metadata"]["id"] == "mediagen-playground"
    layout = data["data"]["layout-restorer:data"]
    tab = f"voila-preview:{PLAYGROUND}"
    assert layout["main"]["dock"]["widgets"] == [tab]
    assert layout["left"]["current"] == "filebrowser"
    assert data["data"][tab]["data"] == {"path": PLAYGROUND, "factory": "Voila Preview"}
    assert data["data"]["file-browser-filebrowser:cwd"] == {"path": "notebooks"}


def test_the_workspace_goes_where_the_user_keeps_workspaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("JUPYTERLAB_WORKSPACES_DIR", raising=False)
    default = tmp_path / "home" / "lab-workspaces"
    assert _lab.workspaces_dir([]) == (default, [f"--LabApp.workspaces_dir={default}"])
    mine = f"--LabApp.workspaces_dir={tmp_path / 'mine'}"
    assert _lab.workspaces_dir(["--no-browser", mine]) == (tmp_path / "mine", [])
    monkeypatch.setenv("JUPYTERLAB_WORKSPACES_DIR", str(tmp_path / "env"))
    assert _lab.workspaces_dir([]) == (tmp_path / "env", [])


def test_voila_follows_jupyterlabs_saved_dark_theme(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path))
    assert _lab.voila_theme([]) == []  # nothing saved: JupyterLab's light default
    themes = tmp_path / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings"
    themes.parent.mkdir(parents=True)
    themes.write_text('{\n  // chosen in Settings\n  "theme": "JupyterLab Dark"\n}')
    assert _lab.voila_theme(["--no-browser"]) == ["--VoilaConfiguration.theme=dark"]
    assert _lab.voila_theme(["--VoilaConfiguration.theme=light"]) == []  # the user's wins
    themes.write_text('{"theme": "JupyterLab Light"}')
    assert _lab.voila_theme([]) == []


NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def notification_defaults(user_settings: Path) -> tuple[str, bool]:
    """The defaults of JupyterLab's ``fetchNews`` and ``checkForUpdates`` settings as this
    venv's server sends them to the page (JupyterLab asks its "official Jupyter news?"
    question while the first is "none", and toasts a newer release while the second is on)."""
    from jupyterlab.commands import get_app_dir  # type: ignore[import-untyped]
    from jupyterlab_server.settings_utils import _get_overrides, get_settings

    app = Path(get_app_dir())
    overrides, error = _get_overrides(str(app / "settings"))
    assert not error
    found, _warnings = get_settings(
        str(app / "settings"),
        str(app / "schemas"),
        str(user_settings),
        schema_name=NOTIFICATION,
        overrides=overrides,
    )
    properties = found["schema"]["properties"]
    news: str = properties["fetchNews"]["default"]
    updates: bool = properties["checkForUpdates"]["default"]
    return news, updates


def test_jupyterlab_does_not_ask_about_news_on_arrival(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path / "user"))  # not ~/.jupyter
    monkeypatch.delenv("JUPYTER_CONFIG_PATH", raising=False)
    # JupyterLab 4 would ask, and would toast a newer release
    assert notification_defaults(tmp_path / "settings") == ("none", True)
    folder = _lab.jupyter_config(tmp_path / "config")
    env = _lab.with_config_folder({}, folder)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", env["JUPYTER_CONFIG_PATH"])
    assert notification_defaults(tmp_path / "settings") == ("false", False)  # no toast
    server = json.loads((folder / "jupyter_server_config.json").read_text())
    assert server == {
        "ContentsManager": {"pre_save_hook": _lab.SAVE_HOOK},
        "VoilaConfiguration": {"template": "mediagen"},
    }


def test_the_config_folder_comes_after_the_users_own(tmp_path: Path) -> None:
    mine = os.pathsep.join(["/etc/mine", "/opt/theirs"])
    env = _lab.with_config_folder(
        {"JUPYTER_CONFIG_PATH": mine, "JUPYTER_PATH": "/data/mine", "HOME": "/h"}, tmp_path
    )
    assert env == {
        "JUPYTER_CONFIG_PATH": os.pathsep.join([mine, str(tmp_path)]),
        "JUPYTER_PATH": os.pathsep.join(["/data/mine", str(tmp_path)]),
        "HOME": "/h",
    }
    assert _lab.with_config_folder({}, tmp_path) == {
        "JUPYTER_CONFIG_PATH": str(tmp_path),
        "JUPYTER_PATH": str(tmp_path),
    }


BINDER_PROBE = """
import json, os
from jupyter_server.serverapp import ServerApp
app = ServerApp()
app.load_config_file()  # the files Jupyter finds through JUPYTER_CONFIG_PATH
names = ("MEDIAGEN_HOME", "MEDIAGEN_PLAYGROUND", "JUPYTERLAB_WORKSPACES_DIR", "JUPYTER_CONFIG_PATH")
seen = {name: os.environ.get(name) for name in names}
seen["pre_save_hook"] = app.config.ContentsManager.pre_save_hook
seen["template"] = app.config.VoilaConfiguration.template
from voila.paths import collect_template_paths
seen["template_paths"] = collect_template_paths(["voila", "nbconvert"], seen["template"])
print(json.dumps(seen))
"""


def test_binder_start_prepares_what_mediagen_nb_lab_opens(tmp_path: Path) -> None:
    """``binder/start`` (run by repo2docker before Jupyter, in the repository) writes the
    workspace the Binder badge opens, and the server it starts finds the config folder."""
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    (repo / PLAYGROUND).write_text((ROOT / PLAYGROUND).read_text(encoding="utf-8"))
    keep = ("PATH", "PYTHONPATH", "LANG")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(HOME=str(repo), JUPYTER_CONFIG_DIR=str(tmp_path / "user"))
    env["JUPYTER_DATA_DIR"] = str(tmp_path / "data")  # the notebook's signature
    done = subprocess.run(
        [str(ROOT / "binder" / "start"), sys.executable, "-c", BINDER_PROBE],
        cwd=repo, env=env, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    seen = json.loads(done.stdout)
    home = repo / ".mediagen_nb"
    assert seen["MEDIAGEN_HOME"] == str(home)
    assert seen["MEDIAGEN_PLAYGROUND"] == _lab.PLAYGROUND_NOTEBOOK == PLAYGROUND
    assert seen["JUPYTER_CONFIG_PATH"] == str(home / "jupyter-config")
    assert seen["pre_save_hook"] == _lab.SAVE_HOOK
    assert seen["template"] == "mediagen"  # Voila finds it: the offline template
    assert seen["template_paths"][0] == str(home / "jupyter-config/voila/templates/mediagen")
    news = home / "jupyter-config" / "labconfig" / "default_setting_overrides.json"
    assert json.loads(news.read_text()) == _lab.NEWS_OVERRIDES
    assert seen["JUPYTERLAB_WORKSPACES_DIR"] == str(home / "lab-workspaces")
    (saved,) = (home / "lab-workspaces").iterdir()
    assert json.loads(saved.read_text()) == _lab.workspace(PLAYGROUND)
    assert list((tmp_path / "data").glob("nbsignatures.db"))  # the playground is trusted


OFFLINE_NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Offline $x^2$"},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": "print('hello')",
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_voila_page_names_no_outside_address(tmp_path: Path) -> None:
    """The Voila page of ``mediagen-nb lab`` and Binder links nothing outside the server
    (Voila's own ``lab`` template links Font Awesome from a CDN: an offline classroom's page
    would wait on it). The browser tier checks the requests the running Studio makes."""
    folder = _lab.jupyter_config(tmp_path / "config")
    notebook = tmp_path / "offline.ipynb"
    notebook.write_text(json.dumps(OFFLINE_NOTEBOOK))
    env = _lab.with_config_folder(
        {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}, folder
    )
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "user"), JUPYTER_DATA_DIR=str(tmp_path / "d"))
    pages = {}
    for template in ("lab", "mediagen"):
        port = free_port()
        cmd = [
            sys.executable, "-m", "voila", str(notebook), "--no-browser",
            f"--port={port}", "--Voila.ip=127.0.0.1", f"--template={template}",
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            pages[template] = fetch_page(f"http://127.0.0.1:{port}/", proc)
        finally:
            proc.terminate()
            proc.communicate(timeout=30)
    outside = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//(?!127\.0\.0\.1)""")
    assert outside.search(pages["lab"])  # Voila's own template does link a CDN
    assert "hello" in pages["mediagen"]
    assert not outside.search(pages["mediagen"])
    # both "null": the page typesets with the MathJax bundled in Voila, not a CDN's
    assert '"fullMathjaxUrl": "null"' in pages["mediagen"]
    assert '"mathjaxConfig": "null"' in pages["mediagen"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def fetch_page(url: str, proc: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                text: str = response.read().decode()
                return text
        except (urllib.error.URLError, OSError):
            time.sleep(0.25)
    raise AssertionError(f"{url} did not answer in 90 s")
