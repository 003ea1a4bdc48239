"""Slow request bodies cannot hold a server: a body has one TOTAL deadline however it is
dripped, and a full server sheds the body arriving longest for a new request, so other
students keep being answered while hundreds of stalled bodies are open (both servers)."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mediagen_nb._serverkit import body as bodies
from mediagen_nb._serverkit.runner import MAX_CONNECTIONS, DroppingH11Protocol
from mediagen_nb.classroom import _server as classroom_server
from mediagen_nb.classroom import start_classroom
from mediagen_nb.emulator import start_emulator
from tests._classroom_helpers import upstream_of
from tests._support import KEY

CHAT = "/gateway/v1/chat/completions"


@dataclass
class Target:
    """A running server and the credential its requests carry."""

    host: str
    port: int
    credential: str
    cap: int
    """Connections the server keeps open at once."""


def head(target: Target, length: int) -> bytes:
    return (
        f"POST {CHAT} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {target.credential}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def readable(sock: socket.socket) -> bool:
    """Whether the server has answered (or closed) ``sock`` (``select`` stops at fd 1024)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def read_head(sock: socket.socket) -> bytes:
    """The answer's status line and headers (or what came before the server closed)."""
    data = b""
    while b"\r\n\r\n" not in data and (chunk := sock.recv(65536)):
        data += chunk
    return data


def probe(target: Target) -> tuple[int, float]:
    """Another student's poll on a fresh connection: its status and how long it took."""
    started = time.monotonic()
    with socket.create_connection((target.host, target.port), timeout=20) as sock:
        sock.sendall(
            b"GET /api/v1/result/none HTTP/1.1\r\nHost: t\r\n"
            + f"Authorization: Bearer {target.credential}\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            answer = read_head(sock)
        except ConnectionResetError:  # a refused connection may be reset before its answer
            answer = b""
    return status(answer), time.monotonic() - started


@pytest.fixture(params=["emulator", "classroom"])
def target(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Target]:
    monkeypatch.setattr(DroppingH11Protocol, "body_grace_s", 0.2)
    if request.param == "emulator":
        with start_emulator(api_key=KEY) as emulator:
            yield Target(emulator.host, emulator.port, KEY, MAX_CONNECTIONS)
        return
    with (
        start_emulator(api_key=KEY) as emulator,
        start_classroom(["amy"], upstream=upstream_of(emulator), folder=tmp_path) as gateway,
    ):
        yield Target(
            "127.0.0.1", gateway.port, gateway.codes["amy"], classroom_server.MAX_CONNECTIONS
        )


def test_a_dripped_body_gets_408_at_its_total_deadline(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bodies, "BODY_DEADLINE_S", 1.0)
    length = 60  # one byte every 0.1 s: 6 s in all, each part far within any per-part limit
    sent = 0
    with socket.create_connection((target.host, target.port), timeout=20) as sock:
        sock.sendall(head(target, length))
        while sent < length and not readable(sock):
            sock.sendall(b" ")
            sent += 1
            time.sleep(0.1)
        answer = read_head(sock)
    print(f"answered after {sent} of {length} bytes: {answer[:40]!r}")
    assert status(answer) == 408
    assert sent < length


def test_other_students_are_answered_while_stalled_bodies_fill_the_server(
    target: Target,
) -> None:
    stalled: list[socket.socket] = []
    try:
        for _ in range(target.cap):
            sock = socket.create_connection((target.host, target.port), timeout=20)
            sock.sendall(head(target, 1000) + b"{")
            stalled.append(sock)
        time.sleep(0.5)  # every stalled body is now older than the grace
        answers = [probe(target) for _ in range(20)]
        shed = [s for s in stalled if readable(s)]
        shed_status = {status(read_head(s)) for s in shed}
    finally:
        for sock in stalled:
            sock.close()
    slowest = max(seconds for _, seconds in answers)
    print(f"{target.cap} stalled bodies, {len(shed)} shed; slowest other request {slowest:.3f} s")
    assert [code for code, _ in answers] == [404] * 20
    assert len(shed) >= 1
    assert shed_status == {408}
