"""``mediagen-nb lab``: JupyterLab on the playground without the key; as root (a container,
a CI machine) with ``--ServerApp.allow_root=True``, which Jupyter needs to start at all."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mediagen_nb import cli

NOTEBOOK = str(Path("notebooks") / "00-playground.ipynb")


def test_lab_command_opens_the_playground_with_our_port_and_token() -> None:
    launch = cli.lab_command(NOTEBOOK, ["--no-browser"], as_root=False, port=8890, token="t0k")
    assert launch.command == [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--ServerApp.default_url=/lab/workspaces/mediagen-playground",
        "--ServerApp.port=8890",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=t0k",
        "--ContentsManager.pre_save_hook=mediagen_nb._lab.keep_playground_clean",
        "--no-browser",
    ]
    assert launch.lab_url == f"http://localhost:8890/lab/tree/{NOTEBOOK}?token=t0k"
    assert launch.voila_url == f"http://localhost:8890/voila/render/{NOTEBOOK}?token=t0k"
    arrival = "http://localhost:8890/lab/workspaces/mediagen-playground?token=t0k"
    assert launch.arrival_url == arrival


def test_lab_command_as_root_allows_root_before_the_users_options() -> None:
    launch = cli.lab_command(NOTEBOOK, ["--no-browser"], as_root=True, port=8888, token="t")
    assert launch.command[9:] == ["--ServerApp.allow_root=True", "--no-browser"]


@pytest.mark.parametrize(
    ("extra", "lab_url"),
    [
        (["--port=9000"], f"http://localhost:9000/lab/tree/{NOTEBOOK}?token=t"),
        (["--ServerApp.port", "9001"], f"http://localhost:9001/lab/tree/{NOTEBOOK}?token=t"),
        (["--ip=127.0.0.1"], f"http://127.0.0.1:8888/lab/tree/{NOTEBOOK}?token=t"),
        (["--ip=0.0.0.0"], f"http://localhost:8888/lab/tree/{NOTEBOOK}?token=t"),
        (
            ["--IdentityProvider.token=mine"],
            f"http://localhost:8888/lab/tree/{NOTEBOOK}?token=mine",
        ),
        (["--IdentityProvider.token="], f"http://localhost:8888/lab/tree/{NOTEBOOK}"),
    ],
)
def test_lab_command_prints_the_users_own_port_ip_and_token(extra: list[str], lab_url: str) -> None:
    launch = cli.lab_command(NOTEBOOK, extra, as_root=False, port=8888, token="t")
    assert launch.command[-len(extra) :] == extra  # theirs last
    given = {option.split("=")[0] for option in extra}
    ours = {option.split("=")[0] for option in launch.command[: -len(extra)]}
    assert not (given & ours)  # Jupyter refuses a trait given twice
    if given & {"--port", "--ServerApp.port"}:
        assert not any(option.startswith("--ServerApp.port=") for option in launch.command[:-1])
    assert launch.lab_url == lab_url
    assert launch.voila_url == lab_url.replace("/lab/tree/", "/voila/render/")


@pytest.mark.parametrize(
    "option", ["--allow-root", "--ServerApp.allow_root=False", "--NotebookApp.allow_root=True"]
)
def test_lab_command_keeps_the_users_own_allow_root(option: str) -> None:
    launch = cli.lab_command(NOTEBOOK, [option], as_root=True, port=8888, token="t")
    assert launch.command[9:] == [option]


def test_free_port_skips_a_port_in_use() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        assert cli.free_port(taken, tries=50) != taken


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
    monkeypatch.setenv("JUPYTERLAB_SETTINGS_DIR", str(tmp_path / "settings"))  # light theme
    monkeypatch.setattr(cli, "free_port", lambda: 8899)
    calls: list[tuple[list[str], Path, dict[str, str]]] = []

    def fake_run(command: list[str], *, cwd: Path, env: dict[str, str]) -> int:
        calls.append((command, cwd, env))
        return 0

    monkeypatch.setattr(cli, "run_forwarding_signals", fake_run)
    trusted: list[Path] = []
    monkeypatch.setattr(cli, "trust", trusted.append)  # not the user's signature store
    assert cli.main(["lab", "--no-browser"]) == 0
    assert trusted == [notebooks / "00-playground.ipynb"]
    command, cwd, env = calls[0]
    default = "--ServerApp.default_url=/lab/workspaces/mediagen-playground"
    assert command[1:5] == ["-m", "jupyter", "lab", default]
    assert command[5] == "--ServerApp.port=8899"
    token = command[7].removeprefix("--IdentityProvider.token=")
    assert len(token) == 48
    workspaces = Path(os.environ["MEDIAGEN_HOME"]) / "lab-workspaces"
    assert command[9:] == (["--ServerApp.allow_root=True"] if allowed else []) + [
        f"--LabApp.workspaces_dir={workspaces}",
        "--no-browser",
    ]
    (saved,) = workspaces.glob("mediagen-playground*.jupyterlab-workspace")
    assert f"voila-preview:{NOTEBOOK}" in saved.read_text()
    assert cwd == tmp_path
    assert "MEDIAGEN_API_KEY" not in env
    assert env["MEDIAGEN_PLAYGROUND"] == NOTEBOOK
    config = Path(os.environ["MEDIAGEN_HOME"]) / "jupyter-config"
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep)[-1] == str(config)
    assert (config / "labconfig" / "default_setting_overrides.json").is_file()  # no news toast
    out = capsys.readouterr().out
    assert ("as root" in out) is allowed
    assert f"http://localhost:8899/lab/workspaces/mediagen-playground?token={token}" in out
    assert f"http://localhost:8899/lab/tree/{NOTEBOOK}?token={token}" in out
    assert f"http://localhost:8899/voila/render/{NOTEBOOK}?token={token}" in out


def test_lab_prefers_the_playground_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "00-playground.ipynb").write_text("{}")
    assert cli.find_playground(tmp_path) == tmp_path / "notebooks" / "00-playground.ipynb"
    elsewhere = tmp_path / "empty"
    elsewhere.mkdir()
    checkout = Path(cli.__file__).resolve().parent.parent / "notebooks" / "00-playground.ipynb"
    assert cli.find_playground(elsewhere) == checkout


def test_stopping_lab_stops_the_server_it_started(tmp_path: Path) -> None:
    script = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
        "print('up', flush=True)\n"
        "time.sleep(60)\n"
    )
    runner = (
        "import sys\nfrom pathlib import Path\nfrom mediagen_nb import cli\n"
        f"sys.exit(cli.run_forwarding_signals([sys.executable, '-c', {script!r}],"
        " cwd=Path('.'), env=dict(__import__('os').environ)))\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", runner], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "up\n"
        proc.terminate()
        assert proc.wait(timeout=20) == 7  # the child got SIGTERM and its status came back


def test_readme_binder_links_open_the_paths_lab_prints() -> None:
    """The README's Binder links open what ``mediagen-nb lab`` opens (the playground's
    workspace) and the Voila app it prints (and Binder installs Voila for them to work)."""
    from urllib.parse import unquote, urlsplit

    root = Path(cli.__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    urlpaths = sorted(
        unquote(part.split("=", 1)[1])
        for url in re.findall(r"https://mybinder\.org/\S+?(?=\))", readme)
        for part in urlsplit(url).query.split("&")
        if part.startswith("urlpath=")
    )
    launch = cli.lab_command(cli.PLAYGROUND.as_posix(), [], as_root=False, port=8888, token="")
    opened = (launch.arrival_url, launch.voila_url)
    local = sorted(urlsplit(url).path.lstrip("/") for url in opened)
    assert (
        urlpaths
        == local
        == [
            "lab/workspaces/mediagen-playground",  # the badge: what mediagen-nb lab opens
            "voila/render/notebooks/00-playground.ipynb",
        ]
    )
    assert (root / cli.PLAYGROUND).is_file()
    requirements = (root / "binder" / "requirements.txt").read_text().split()
    assert "." in requirements
    assert any(line.startswith("voila") for line in requirements)


def test_readme_runs_marimo_from_the_venv_command_one_made() -> None:
    """Command 1 never activates the venv: the marimo line names the venv's own programs."""
    readme = (Path(cli.__file__).resolve().parent.parent / "README.md").read_text()
    line = ".venv/bin/pip install -e '.[marimo]' && .venv/bin/marimo run"
    assert f"{line} notebooks/playground_marimo.py" in readme
    assert re.findall(r"(?<![/\w])marimo run notebooks", readme) == []  # no bare marimo run
