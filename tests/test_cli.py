"""``mediagen-nb lab``: JupyterLab on the playground without the key; as root (a container,
a CI machine) with ``--ServerApp.allow_root=True``, which Jupyter needs to start at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mediagen_nb import cli

NOTEBOOK = str(Path("notebooks") / "00-playground.ipynb")


def test_lab_command_as_root_allows_root_before_the_users_options() -> None:
    command = cli.lab_command(NOTEBOOK, ["--no-browser", "--port=0"], as_root=True)
    assert command == [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        NOTEBOOK,
        "--ServerApp.allow_root=True",
        "--no-browser",
        "--port=0",
    ]


def test_lab_command_as_another_user_adds_nothing() -> None:
    command = cli.lab_command(NOTEBOOK, ["--no-browser"], as_root=False)
    assert command == [sys.executable, "-m", "jupyter", "lab", NOTEBOOK, "--no-browser"]


@pytest.mark.parametrize(
    "option", ["--allow-root", "--ServerApp.allow_root=False", "--NotebookApp.allow_root=True"]
)
def test_lab_command_keeps_the_users_own_allow_root(option: str) -> None:
    command = cli.lab_command(NOTEBOOK, [option], as_root=True)
    assert command[4:] == [NOTEBOOK, option]


def test_running_as_root_follows_the_effective_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    assert cli.running_as_root()
    monkeypatch.setattr(os, "geteuid", lambda: 1000, raising=False)
    assert not cli.running_as_root()
    monkeypatch.delattr(os, "geteuid", raising=False)  # Windows has no geteuid
    assert not cli.running_as_root()


@pytest.mark.parametrize(("euid", "allowed"), [(0, True), (1000, False)])
def test_main_lab_runs_the_playground_keyless_allowing_root_only_as_root(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    euid: int,
    allowed: bool,
) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "00-playground.ipynb").write_text("{}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "nowhere" / "pkg" / "cli.py"))
    monkeypatch.setattr(os, "geteuid", lambda: euid, raising=False)
    monkeypatch.setenv("MEDIAGEN_API_KEY", "secret-marker")
    calls: list[tuple[list[str], Path, dict[str, str]]] = []

    def fake_call(command: list[str], cwd: Path, env: dict[str, str]) -> int:
        calls.append((command, cwd, env))
        return 0

    monkeypatch.setattr(subprocess, "call", fake_call)
    assert cli.main(["lab", "--no-browser"]) == 0
    command, cwd, env = calls[0]
    assert command[1:5] == ["-m", "jupyter", "lab", NOTEBOOK]
    assert command[5:] == (["--ServerApp.allow_root=True"] if allowed else []) + ["--no-browser"]
    assert cwd == tmp_path
    assert "MEDIAGEN_API_KEY" not in env
    assert ("as root" in capsys.readouterr().out) is allowed
