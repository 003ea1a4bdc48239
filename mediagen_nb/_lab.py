"""What ``mediagen-nb lab`` prepares before JupyterLab starts, and the save hook it installs.

The arrival workspace, the trusted playground, the Jupyter config folder (no "news?" toast)
and the autosave hook that keeps outputs out of the playground; Binder's ``start`` runs
``main``. How and why: the site's Design page, "How mediagen-nb lab arrives".
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mediagen_nb import _env
from mediagen_nb._home import resolve_home
from mediagen_nb._lab_offline import VOILA_TEMPLATE, write_voila_template

WORKSPACE = "mediagen-playground"
"""The JupyterLab workspace ``mediagen-nb lab`` opens (``/lab/workspaces/<name>``)."""
WORKSPACES_OPTION = "--LabApp.workspaces_dir"
PLAYGROUND_ENV = _env.PLAYGROUND
SAVE_HOOK = "mediagen_nb._lab.keep_playground_clean"
VOILA_THEME_OPTION = "--VoilaConfiguration.theme"
PREVIEW_FACTORY = "Voila Preview"
"""The document factory of Voila's JupyterLab preview (``@voila-dashboards/jupyterlab-preview``)."""
PLAYGROUND_NOTEBOOK = "notebooks/00-playground.ipynb"
"""The playground's path under the server root (``/``-separated)."""
CONFIG_PATH_ENV = "JUPYTER_CONFIG_PATH"
DATA_PATH_ENV = "JUPYTER_PATH"
NEWS_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}
}
"""JupyterLab setting defaults: never fetch news, so never ask about it on arrival, and no
"a newer JupyterLab is available" toast over the Studio (Binder's image may lag a release)."""


def workspace(notebook: str) -> dict[str, Any]:
    """The workspace: one tab (``notebook`` in Voila's preview), the file browser beside it."""
    tab = f"voila-preview:{notebook}"
    folder = notebook.rpartition("/")[0]
    return {
        "data": {
            "layout-restorer:data": {
                "main": {
                    "dock": {"type": "tab-area", "currentIndex": 0, "widgets": [tab]},
                    "current": tab,
                },
                "left": {"collapsed": False, "visible": True, "current": "filebrowser"},
            },
            tab: {"data": {"path": notebook, "factory": PREVIEW_FACTORY}},
            "file-browser-filebrowser:cwd": {"path": folder},
        },
        "metadata": {"id": WORKSPACE},
    }


def workspaces_dir(extra: Sequence[str]) -> tuple[Path, list[str]]:
    """Where the workspace goes, and the option to add for it (none when the user chose)."""
    for option in reversed(extra):
        name, _, value = option.partition("=")
        if name == WORKSPACES_OPTION and value:
            return Path(value).expanduser(), []
    env = os.environ.get("JUPYTERLAB_WORKSPACES_DIR")
    if env:
        return Path(env).expanduser(), []
    folder = resolve_home() / "lab-workspaces"
    return folder, [f"{WORKSPACES_OPTION}={folder}"]


def write_workspace(folder: Path, notebook: str) -> Path:
    """Write (replace) the playground's workspace in ``folder``; returns the file."""
    from jupyterlab_server.workspaces_handler import WorkspacesManager

    folder.mkdir(parents=True, exist_ok=True)
    saved: Path = WorkspacesManager(str(folder)).save(WORKSPACE, json.dumps(workspace(notebook)))
    return saved


def voila_theme(extra: Sequence[str]) -> list[str]:
    """``--VoilaConfiguration.theme=dark`` when JupyterLab's saved theme is a dark one: the
    preview tab is Voila in an iframe, which does not see JupyterLab's theme by itself."""
    if any(option.startswith(VOILA_THEME_OPTION) for option in extra):
        return []
    folder = os.environ.get("JUPYTERLAB_SETTINGS_DIR")
    if not folder:
        from jupyter_core.paths import jupyter_config_dir

        folder = str(Path(jupyter_config_dir()) / "lab" / "user-settings")
    path = Path(folder) / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings"
    try:
        found = re.search(r'"theme"\s*:\s*"([^"]+)"', path.read_text(encoding="utf-8"))
    except OSError:
        return []
    dark = found is not None and "dark" in found.group(1).lower()
    return [f"{VOILA_THEME_OPTION}=dark"] if dark else []


def jupyter_config(folder: Path | None = None) -> Path:
    """Write the Jupyter config folder of ``mediagen-nb lab`` (default
    ``$MEDIAGEN_HOME/jupyter-config``): the news setting's default, the save hook and the
    offline Voila template (the folder is a ``JUPYTER_PATH`` entry too)."""
    folder = resolve_home() / "jupyter-config" if folder is None else folder
    (folder / "labconfig").mkdir(parents=True, exist_ok=True)
    write_voila_template(folder)
    server = {
        "ContentsManager": {"pre_save_hook": SAVE_HOOK},
        "VoilaConfiguration": {"template": VOILA_TEMPLATE},
    }
    files = {
        folder / "labconfig" / "default_setting_overrides.json": NEWS_OVERRIDES,
        folder / "jupyter_server_config.json": server,
    }
    for path, data in files.items():
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return folder


def with_config_folder(env: Mapping[str, str], folder: Path) -> dict[str, str]:
    """``env`` with ``folder`` last in ``JUPYTER_CONFIG_PATH`` and ``JUPYTER_PATH`` (the
    user's entries, which Jupyter reads as more important, stay first)."""
    out = dict(env)
    for name in (CONFIG_PATH_ENV, DATA_PATH_ENV):
        entries = [e for e in env.get(name, "").split(os.pathsep) if e]
        out[name] = os.pathsep.join([*entries, str(folder)])
    return out


def trust(path: Path) -> None:
    """Sign ``path`` in Jupyter's signature store (the notebook file itself is unchanged)."""
    import nbformat
    from nbformat.sign import NotebookNotary

    notebook = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    NotebookNotary().sign(notebook)  # type: ignore[no-untyped-call]


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _blank(cell: dict[str, Any]) -> bool:
    """An empty code cell (JupyterLab adds one below the last cell it runs)."""
    return cell.get("cell_type") == "code" and not _text(cell.get("source", "")).strip()


def _stripped(content: dict[str, Any], on_disk: dict[str, Any] | None) -> dict[str, Any]:
    """``content`` (a notebook as JSON) without outputs, execution counts, widget state and
    trailing empty cells; the kernel's ``language_info`` is the file's own (or none)."""
    code: dict[str, Any] = {"outputs": [], "execution_count": None}
    cells = [
        {**cell, **code} if cell.get("cell_type") == "code" else cell
        for cell in content.get("cells", [])
    ]
    while cells and _blank(cells[-1]):
        cells.pop()
    metadata = {
        k: v
        for k, v in content.get("metadata", {}).items()
        if k not in ("widgets", "language_info")
    }
    kept = (on_disk or {}).get("metadata", {}).get("language_info")
    if kept is not None:
        metadata["language_info"] = kept
    return {**content, "cells": cells, "metadata": metadata}


def _sources(content: dict[str, Any]) -> list[tuple[str, str]]:
    """Each cell's type and text, empty code cells left out."""
    return [
        (c.get("cell_type", ""), _text(c.get("source", "")))
        for c in content.get("cells", [])
        if not _blank(c)
    ]


def _read_playground(contents_manager: Any, playground: str) -> dict[str, Any] | None:
    root = getattr(contents_manager, "root_dir", None)
    if root is None:
        return None
    try:
        found = json.loads((Path(root) / playground).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def keep_playground_clean(
    model: dict[str, Any], path: str, contents_manager: Any = None, **_kwargs: Any
) -> None:
    """Pre-save hook: the playground is saved without outputs (see the module docstring)."""
    playground = os.environ.get(PLAYGROUND_ENV)
    if not playground or model.get("type") != "notebook" or path.strip("/") != playground:
        return
    content = model.get("content")
    if not isinstance(content, dict):
        return
    on_disk = _read_playground(contents_manager, playground)
    model["content"] = _stripped(content, on_disk)
    # only outputs, kernel metadata or an empty cell changed: the file as it is
    if on_disk is not None and _sources(on_disk) == _sources(content):
        model["content"] = on_disk


def main() -> int:
    """``python -m mediagen_nb._lab`` (``binder/start``): prepare the arrival for a Jupyter
    server that someone else starts in the current folder; prints the config folder."""
    notebook = os.environ.get(PLAYGROUND_ENV) or PLAYGROUND_NOTEBOOK
    folder, _options = workspaces_dir([])
    write_workspace(folder, notebook)
    try:
        trust(Path.cwd() / notebook)
    except Exception as error:  # never fatal: Voila's preview then asks "Render anyway?"
        print(f"mediagen_nb._lab: could not mark {notebook} trusted ({error})", file=sys.stderr)
    print(jupyter_config())
    return 0


if __name__ == "__main__":
    sys.exit(main())
