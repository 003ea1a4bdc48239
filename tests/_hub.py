"""A real JupyterHub on loopback for the classroom tests (recipe: NOTES.md, "JupyterHub in
tests"): DummyAuthenticator, SimpleLocalProcessSpawner, configurable-http-proxy from npm, the
classroom gateway as a managed service, and a harness service token that drives the hub API.

``configurable-http-proxy`` is found on PATH or in ``~/.cache/mediagen_nb/chp`` (``npm install
--prefix ~/.cache/mediagen_nb/chp configurable-http-proxy``); without it (or jupyterhub) the
tests skip, and fail under ``CI=true`` (``.ci/run`` installs both).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

_QUIET = [
    f"--ServerApp.jpserver_extensions={name}=False"
    for name in (
        "jupyterlab",
        "notebook",
        "voila.server_extension",
        "jupyter_lsp",
        "jupyterlab_jupytext",
        "jupyter_server_terminals",
    )
]
"""A user server here needs only its REST API: the front ends would only slow each spawn."""
CHP_CACHE = Path.home() / ".cache" / "mediagen_nb" / "chp" / "node_modules" / ".bin"
SERVICE = "mediagen"


def _missing(what: str) -> None:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{what} is missing in CI: .ci/run must install it")
    pytest.skip(f"{what} is not installed")


def chp_bin() -> Path:
    """The folder holding ``configurable-http-proxy`` (skip or fail when missing)."""
    found = shutil.which("configurable-http-proxy")
    if found:
        return Path(found).parent
    if (CHP_CACHE / "configurable-http-proxy").exists():
        return CHP_CACHE
    _missing("configurable-http-proxy (npm)")
    raise AssertionError("unreachable")


def hub_bin() -> Path:
    """The venv's ``jupyterhub`` (skip or fail when missing)."""
    folder = Path(sys.executable).parent
    if not (folder / "jupyterhub").exists() or not (folder / "jupyterhub-singleuser").exists():
        _missing("jupyterhub (the test extra)")
    return folder


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@dataclass
class Hub:
    """A running hub: its public URL, the harness token, and the processes it started."""

    url: str
    token: str
    gateway_url: str
    folder: Path
    process: subprocess.Popen[bytes]

    def api(self, method: str, path: str, body: Any = None) -> httpx2.Response:
        """Call the hub's REST API as the harness service."""
        response = httpx2.request(
            method,
            f"{self.url}/hub/api{path}",
            json=body,
            headers={"Authorization": f"token {self.token}"},
            timeout=30.0,
        )
        if response.status_code >= 400:
            raise AssertionError(f"{method} {path}: {response.status_code} {response.text}")
        return response

    def start_servers(self, users: Sequence[str], within: float = 120.0) -> dict[str, int]:
        """Start each user's server and wait until ready; returns each server's pid."""
        for user in users:
            self.api("POST", f"/users/{user}/server")
        pids: dict[str, int] = {}
        deadline = time.monotonic() + within
        while len(pids) < len(users):
            if time.monotonic() > deadline:
                raise AssertionError(f"servers not ready within {within} s: {sorted(pids)}")
            for user in users:
                server = self.api("GET", f"/users/{user}").json()["servers"].get("", {})
                if server.get("ready"):
                    pids[user] = int(server["state"]["pid"])
            time.sleep(0.2)
        return pids


def server_environment(pid: int) -> dict[str, str]:
    """The environment a user's server runs with (what its kernels inherit)."""
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {k.decode(): v.decode() for k, v in pairs}


def _config(folder: Path, ports: list[int], token: str, gateway_args: Sequence[str]) -> str:
    public, hub_port, proxy_api, gateway = ports
    gateway_url = f"http://127.0.0.1:{gateway}"
    command = [sys.executable, "-m", "mediagen_nb.cli", "classroom", "--jupyterhub", *gateway_args]
    return f"""
c = get_config()  # noqa
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {public}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.JupyterHub.db_url = "sqlite:///{folder}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.JupyterHub.pid_file = "{folder}/hub.pid"
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{folder}/home/{{username}}"
c.Spawner.cmd = ["{Path(sys.executable).parent / "jupyterhub-singleuser"}"]
c.Spawner.args = ["--allow-root", *{_QUIET!r}]
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}  # spawns answer at once
c.Spawner.environment = {{"MEDIAGEN_CLASSROOM_URL": "{gateway_url}"}}
c.JupyterHub.services = [
    {{
        "name": "{SERVICE}",
        "url": "{gateway_url}",
        "command": {command!r},
        "environment": {{"MEDIAGEN_HOME": "{folder}/gateway-home"}},
    }},
    {{"name": "harness", "api_token": "{token}"}},
]
c.JupyterHub.load_roles = [
    {{
        "name": "harness",
        "scopes": ["admin:users", "admin:servers", "admin:groups", "tokens"],
        "services": ["harness"],
    }},
]
"""


def _wait_up(url: str, process: subprocess.Popen[bytes], log: Path, within: float) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"jupyterhub exited: {log.read_text()[-3000:]}")
        try:
            if httpx2.get(url, timeout=2.0).status_code == 200:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"jupyterhub not up within {within} s: {log.read_text()[-3000:]}")


@contextmanager
def running_hub(folder: Path, gateway_args: Sequence[str]) -> Iterator[Hub]:
    """Start a hub (with the gateway service) in ``folder``; stop it and everything it ran."""
    path = os.pathsep.join([str(chp_bin()), str(hub_bin()), os.environ.get("PATH", "")])
    folder.mkdir(parents=True, exist_ok=True)
    ports = _free_ports(4)
    token = secrets.token_hex(16)
    config = folder / "jupyterhub_config.py"
    config.write_text(_config(folder, ports, token, gateway_args), encoding="utf-8")
    log = folder / "hub.log"
    checkout = str(Path(__file__).resolve().parents[1])  # this tree's mediagen_nb, everywhere
    python_path = os.pathsep.join(p for p in (checkout, os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PATH": path, "PYTHONPATH": python_path}
    env.pop("MEDIAGEN_API_KEY", None)
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(hub_bin() / "jupyterhub"), "-f", str(config)],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    gateway_url = f"http://127.0.0.1:{ports[3]}"
    hub = Hub(f"http://127.0.0.1:{ports[0]}", token, gateway_url, folder, process)
    try:
        _wait_up(f"{hub.url}/hub/api/", process, log, within=120.0)
        yield hub
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the hub (it stops servers, services and its proxy), then its process group."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # whatever of its own group outlived it
