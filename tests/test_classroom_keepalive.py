"""A client that reads its answer late still finds its kept-alive connection open.

Clients keep an idle connection in their pool for ``CLIENT_IDLE_S`` (httpx2's default, used
by this package's client and both vendor SDKs), counted from when *they* finished reading
the last answer. A busy client (a loaded kernel, or the bench's 300 students in one event
loop) reads that answer seconds after the server sent it, and sends its next request
seconds after it picked the connection. When the server closed idle connections after the
same 5 s, such a request went onto a connection the server had just closed: the client got
``Server disconnected without sending a response`` or ``Connection reset by peer``, and a
create or a streamed chat (never retried: it may have been applied) failed. That is the
failure the full classroom bench counted (result GETs and, once, a streamed chat). The
servers now keep idle connections ``KEEP_ALIVE_S``, well past any client's idle expiry.
"""

from __future__ import annotations

import socket
import time

import httpx2
import pytest

from mediagen_nb._serverkit.runner import CLIENT_IDLE_S, KEEP_ALIVE_S
from mediagen_nb.classroom import ClassroomHandle
from mediagen_nb.client._http import POOL_LIMITS
from mediagen_nb.emulator import EmulatorHandle

LATE_READ_S = 1.2
"""How much later than the server's send the lagging client reads and sends (the bench's
event loop lagged up to 4.3 s)."""


def exchange(sock: socket.socket, path: str, credential: str) -> bytes:
    """Send one GET on ``sock`` and read its whole (small, ``content-length``) answer."""
    request = (
        f"GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {credential}\r\n\r\n"
    )
    sock.sendall(request.encode())
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"the server closed the connection; got {answer!r}")
        answer += chunk
    return answer


def _length(answer: bytes) -> int:
    head = answer.partition(b"\r\n\r\n")[0].decode("latin-1").lower()
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            return int(line.split(":", 1)[1])
    return 0


def test_the_servers_outlast_every_client_pools_idle_expiry() -> None:
    for expiry in (httpx2.Limits().keepalive_expiry, POOL_LIMITS.keepalive_expiry):
        assert expiry is not None
        assert expiry <= CLIENT_IDLE_S
    assert KEEP_ALIVE_S >= CLIENT_IDLE_S + 10  # room for a client's loop lag of seconds


@pytest.mark.slow
def test_a_lagging_client_reuses_its_connection_to_the_gateway_and_the_emulator(
    classroom: ClassroomHandle, marker_emulator: EmulatorHandle
) -> None:
    code = next(iter(classroom.codes.values()))
    targets = [
        (classroom.port, "/api/v1/result/no-such-task", code),
        (marker_emulator.port, "/api/v1/result/no-such-task", marker_emulator.api_key),
    ]
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10) for port, _, _ in targets]
    try:
        firsts = [exchange(s, path, key) for s, (_, path, key) in zip(socks, targets, strict=True)]
        # The client's pool calls the connection idle only once it has read the answer
        # (late), and still fresh just under CLIENT_IDLE_S after that; its next request
        # leaves later still. The server's clock started at its send.
        time.sleep(CLIENT_IDLE_S + LATE_READ_S)
        seconds = [exchange(s, path, key) for s, (_, path, key) in zip(socks, targets, strict=True)]
    finally:
        for sock in socks:
            sock.close()
    assert [a.split(b" ", 2)[1] for a in firsts] == [b"404", b"404"]
    assert [a.split(b" ", 2)[1] for a in seconds] == [b"404", b"404"]
    assert [a.partition(b"\r\n\r\n")[2] for a in seconds] == [
        a.partition(b"\r\n\r\n")[2] for a in firsts
    ]
