"""Running the emulator: the loopback server handle, the process default, raw sockets, CLI."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from mediagen_nb import _hooks, cli
from mediagen_nb.emulator import _server, start_emulator
from mediagen_nb.emulator._server import default_emulator, fallback_endpoint
from tests._emulator_helpers import VALID_BODIES, path_of
from tests._support import KEY

ROOT = Path(__file__).resolve().parent.parent


def test_start_emulator_serves_both_prefixes_and_stops() -> None:
    with start_emulator(api_key=KEY, speed=5) as handle:
        assert handle.base_url == f"http://127.0.0.1:{handle.port}/api"
        assert handle.text_base_url == f"http://127.0.0.1:{handle.port}/gateway"
        assert handle.speed == 5
        response = httpx2.post(
            handle.base_url + path_of("banana"),
            json=VALID_BODIES["banana"],
            headers={"Authorization": f"Bearer {KEY}"},
        )
        assert response.status_code == 200
        assert response.headers["x-mediagen-emulator-speed"] == "5"
        assert handle.running
    assert not handle.running
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(handle.base_url + "/v1/result/x")


def test_handle_repr_redacts_a_generated_key() -> None:
    handle = start_emulator()
    try:
        assert handle.api_key.startswith("emu-")
        assert len(handle.api_key) > 20
        assert handle.api_key not in repr(handle)
        assert handle.api_key not in repr(handle.state)
        assert "<redacted>" in repr(handle)
        assert handle.endpoint() == _hooks.ServiceEndpoint(
            handle.base_url, handle.text_base_url, handle.api_key
        )
    finally:
        handle.stop()
    with start_emulator() as other:
        assert other.api_key != handle.api_key


def test_a_taken_port_is_a_clear_error() -> None:
    with start_emulator(api_key=KEY) as first, pytest.raises(RuntimeError, match="could not start"):
        start_emulator(api_key=KEY, port=first.port)


def test_default_emulator_is_one_per_process_and_restarts_when_stopped() -> None:
    try:
        first = default_emulator()
        assert default_emulator() is first
        endpoint = fallback_endpoint()
        assert endpoint.base_url == first.base_url
        assert endpoint.api_key == first.api_key
        first.stop()
        second = default_emulator()
        assert second is not first
        assert second.running
    finally:
        if _server._default is not None:
            _server._default.stop()


def raw_request(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    "target",
    [
        b"/api/v1/result/../../../etc/passwd",
        b"/api/v1/result/..%2F..%2Fetc%2Fpasswd",
        b"/api/media/..%2F..%2Fetc%2Fpasswd.png",
        b"/api/svcVideo2/asset/..",
        b"/gateway/../api/v1/result/x",
    ],
)
def test_path_traversal_never_escapes(target: bytes) -> None:
    with start_emulator(api_key=KEY) as handle:
        reply = raw_request(
            handle.port,
            b"GET "
            + target
            + b" HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + KEY.encode()
            + b"\r\nConnection: close\r\n\r\n",
        )
        head, _, body = reply.partition(b"\r\n\r\n")
        assert head.split()[1] in (b"200", b"404", b"405")
        assert b"root:" not in body
        assert body.startswith(b"{")
        assert (
            httpx2.get(handle.base_url + "/v1/result/x", headers={"x-api-key": KEY}).status_code
            == 404
        )


def test_huge_chunked_body_is_413_and_the_server_keeps_serving() -> None:
    with start_emulator(api_key=KEY) as handle:
        chunk = b"x" * 65536
        payload = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(40)) + b"0\r\n\r\n"
        request = (
            b"POST /api/v1/banana/images HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
            + KEY.encode()
            + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            + b"Connection: close\r\n\r\n"
        )
        try:
            reply = raw_request(handle.port, request + payload)
        except (BrokenPipeError, ConnectionResetError):
            reply = b"HTTP/1.1 413 (reset while sending)"
        assert reply.split()[1] == b"413"
        assert len(handle.state.tasks) == 0
        ok = httpx2.post(
            handle.base_url + path_of("banana"),
            json=VALID_BODIES["banana"],
            headers={"x-api-key": KEY},
        )
        assert ok.status_code == 200


def test_garbage_on_the_socket_does_not_kill_the_server() -> None:
    with start_emulator(api_key=KEY) as handle:
        for junk in (
            b"\x00\x01\x02\r\n\r\n",
            b"GET /\x01 HTTP/1.1\r\n\r\n",
            b"NOT HTTP AT ALL\r\n\r\n",
        ):
            with contextlib.suppress(ConnectionResetError):
                raw_request(handle.port, junk)
        assert (
            httpx2.get(handle.base_url + "/v1/result/x", headers={"x-api-key": KEY}).status_code
            == 404
        )


# -- CLI ------------------------------------------------------------------------------------


def run_serve(
    *args: str, env_extra: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "mediagen_nb.cli", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("Press Ctrl-C"):
            break
    return proc, lines


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=20)
    return out


def test_cli_serve_prints_both_urls_and_serves() -> None:
    proc, lines = run_serve("--api-key", "cli-marker-key", "--speed", "7", "--error-rate", "0")
    try:
        urls = dict(
            line.split(":", 1) for line in lines if line.startswith(("base_url", "text_base_url"))
        )
        base, text = urls["base_url"].strip(), urls["text_base_url"].strip()
        assert base.endswith("/api")
        assert text.endswith("/gateway")
        assert base.removesuffix("/api") == text.removesuffix("/gateway")
        response = httpx2.post(
            base + path_of("sora"),
            json=VALID_BODIES["sora"],
            headers={"x-api-key": "cli-marker-key"},
        )
        assert response.status_code == 200
        assert response.headers["x-mediagen-emulator-speed"] == "7"
    finally:
        rest = stop(proc)
    assert proc.returncode == 0
    assert "cli-marker-key" not in "\n".join(lines) + rest


def test_cli_serve_prints_a_generated_key() -> None:
    proc, lines = run_serve()
    try:
        exports = dict(
            line.removeprefix("export ").split("=", 1)
            for line in lines
            if line.startswith("export ")
        )
        response = httpx2.get(
            exports["MEDIAGEN_BASE_URL"] + "/v1/result/x",
            headers={"x-api-key": exports["MEDIAGEN_API_KEY"]},
        )
        assert response.status_code == 404
    finally:
        stop(proc)


def command_line(pid: int) -> str:
    """What ``ps`` shows every user of the machine for a process."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def base_of(lines: list[str]) -> str:
    return next(line.split(":", 1)[1].strip() for line in lines if line.startswith("base_url"))


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
@pytest.mark.parametrize("source", ["file", "env"])
def test_cli_serve_takes_the_key_from_a_file_or_the_environment(
    source: str, tmp_path: Path
) -> None:
    secret = f"key-from-{source}-7c1d"
    key_file = tmp_path / "key.txt"
    key_file.write_text(secret + "\n")
    args = ("--api-key-file", str(key_file)) if source == "file" else ()
    env = {cli.KEY_ENV: secret} if source == "env" else {}
    proc, lines = run_serve(*args, env_extra=env)
    try:
        assert secret not in command_line(proc.pid)
        answer = httpx2.get(base_of(lines) + "/v1/result/x", headers={"x-api-key": secret})
        assert answer.status_code == 404  # authorised: an unknown task, not a 401
    finally:
        rest = stop(proc)
    assert secret not in "\n".join(lines) + rest
    assert not any(line.startswith("export MEDIAGEN_API_KEY") for line in lines)


def test_cli_serve_warns_that_a_key_on_the_command_line_is_visible() -> None:
    proc, _lines = run_serve("--api-key", "visible-key-31")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=20)
    assert "ps" in err
    assert "visible-key-31" not in err


def test_cli_serve_refuses_an_unreadable_key_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["serve", "--port", "0", "--api-key-file", str(tmp_path / "none")]) == 2
    assert "--api-key-file" in capsys.readouterr().err


def test_cli_serve_rejects_bad_fault_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["serve", "--port", "0", "--error-rate", "2"]) == 2
    assert "error_rate" in capsys.readouterr().err


def test_cli_lab_without_a_playground_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "nowhere" / "pkg" / "cli.py"))
    assert cli.main(["lab"]) == 2
    assert "00-playground.ipynb" in capsys.readouterr().err
