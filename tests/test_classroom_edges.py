"""The classroom CLI, CORS, a student leaving a stream, and what binds where."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.classroom import ClassroomHandle, Upstream, start_classroom
from mediagen_nb.classroom._server import is_loopback
from mediagen_nb.client._config import Secret
from mediagen_nb.emulator import EmulatorHandle
from tests._classroom_helpers import MARKER_KEY, until, upstream_of

ROOT = Path(__file__).resolve().parent.parent


def read_until(stream: object, marker: str) -> list[str]:
    lines: list[str] = []
    assert hasattr(stream, "readline")
    while not lines or marker not in lines[-1]:
        line = stream.readline()
        assert line, f"the command ended before printing {marker!r}: {lines}"
        lines.append(line)
    return lines


def test_cli_prints_what_students_need_and_never_the_key(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MEDIAGEN_API_KEY": "",
        "MEDIAGEN_HOME": str(tmp_path / "home"),
    }
    command = [
        sys.executable,
        "-m",
        "mediagen_nb.cli",
        "classroom",
        "--students",
        "2",
        "--port",
        "0",
    ]
    command += ["--class-code", "--folder", str(tmp_path / "class"), "--upstream", "emulator"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as proc:
        try:
            lines = read_until(proc.stdout, "Press Ctrl-C")
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=30) == 0
    text = "".join(lines)
    assert "upstream: emulator" in text
    assert "MEDIAGEN_BASE_URL=http://127.0.0.1:" in text
    assert "MEDIAGEN_TEXT_BASE_URL=http://127.0.0.1:" in text
    assert [line.split(":")[0].strip() for line in lines if "mgc-" in line] == [
        "student-01",
        "student-02",
    ]
    assert "Class code: mgclass-" in text
    assert "#teacher=mgt-" in text
    assert "emu-" not in text  # the emulator's own key


async def test_cors_only_for_listed_origins(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    allowed = "http://playground.test"
    with start_classroom(
        1, upstream=upstream_of(marker_emulator), folder=tmp_path, cors_origins=[allowed]
    ) as room:
        preflight = {"access-control-request-method": "POST"}
        async with httpx2.AsyncClient() as http:
            ok = await http.options(
                room.text_base_url + "/v1/chat/completions",
                headers={**preflight, "origin": allowed},
            )
            other = await http.options(
                room.text_base_url + "/v1/chat/completions",
                headers={**preflight, "origin": "http://elsewhere.test"},
            )
    assert ok.headers["access-control-allow-origin"] == allowed
    assert "access-control-allow-origin" not in other.headers


async def test_no_cors_headers_by_default(classroom: ClassroomHandle) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.get(
            classroom.root_url + "/wall/feed.json", headers={"origin": "http://elsewhere.test"}
        )
    assert "access-control-allow-origin" not in response.headers


async def test_leaving_a_stream_closes_it_upstream(
    classroom: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    marker_emulator.text_rate = 5.0  # a reply of ~100 tokens now takes ~20 s
    body = {
        "model": "gpt-5.4",
        "stream": True,
        "messages": [{"role": "user", "content": "tell me a long story"}],
    }
    auth = {"authorization": f"Bearer {next(iter(classroom.codes.values()))}"}
    async with (
        httpx2.AsyncClient() as http,
        http.stream(
            "POST", classroom.text_base_url + "/v1/chat/completions", json=body, headers=auth
        ) as response,
    ):
        async for _chunk in response.aiter_raw():
            break
    await until(lambda: any(e["action"] == "chat_end" for e in classroom.state.ledger.events()))
    ended = [e for e in classroom.state.ledger.events() if e["action"] == "chat_end"]
    assert [e["outcome"] for e in ended] == ["cut"]


def test_only_loopback_counts_as_loopback() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("192.168.1.10")


def test_a_bad_roster_line_names_the_line(tmp_path: Path) -> None:
    roster = tmp_path / "names.txt"
    roster.write_text("Ada\n# a comment\n\nBen\n!nope\n")
    with pytest.raises(ValueError, match="roster line 5"):
        start_classroom(roster=roster, upstream="emulator", folder=tmp_path / "c")


def test_marker_key_is_not_a_student_code(classroom: ClassroomHandle) -> None:
    with httpx2.Client() as http:
        response = http.get(
            classroom.base_url + "/v1/result/x", headers={"authorization": f"Bearer {MARKER_KEY}"}
        )
    assert response.status_code == 401


async def test_a_refused_teacher_key_is_not_blamed_on_the_student(
    tmp_path: Path, marker_emulator: EmulatorHandle
) -> None:
    wrong = Upstream(
        marker_emulator.base_url,
        marker_emulator.text_base_url,
        Secret("sk-not-the-right-key"),
        kind="emulator",
    )
    with start_classroom(1, upstream=wrong, folder=tmp_path) as room:
        auth = {"authorization": f"Bearer {next(iter(room.codes.values()))}"}
        async with httpx2.AsyncClient(headers=auth) as http:
            chat = await http.post(
                room.text_base_url + "/v1/chat/completions",
                json={"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]},
            )
            create = await http.post(
                room.base_url + "/v1/banana/images", json={"model": "nano-banana", "prompt": "x"}
            )
    assert chat.status_code == 502
    assert chat.json()["error"]["message"] == (
        "the service refused the class's key; please tell your teacher"
    )
    assert create.status_code == 502
    assert "sk-not-the-right-key" not in chat.text + create.text


def test_a_class_worth_of_connections_is_accepted(classroom: ClassroomHandle) -> None:
    """More than the emulator's 256 open connections: a class keeps one or more per kernel."""
    opened = [socket.create_connection(("127.0.0.1", classroom.port)) for _ in range(300)]
    try:
        with httpx2.Client() as http:
            response = http.get(classroom.root_url + "/wall/feed.json")
    finally:
        for sock in opened:
            sock.close()
    assert response.status_code == 200


def run_python(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_layers_never_import_the_classroom() -> None:
    """The client, the emulator and the widgets load without the classroom package; the
    gateway and its CLI load without ipywidgets (only ClassroomPanel needs it)."""
    run_python(
        "import sys\n"
        "import mediagen_nb.client, mediagen_nb.emulator, mediagen_nb.widgets\n"
        "assert not [m for m in sys.modules if m.startswith('mediagen_nb.classroom')]\n"
    )
    run_python(
        "import sys\n"
        "import mediagen_nb.classroom, mediagen_nb.classroom._cli\n"
        "assert 'ipywidgets' not in sys.modules, 'the gateway imported ipywidgets'\n"
    )
