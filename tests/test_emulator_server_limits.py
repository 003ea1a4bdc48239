"""Slow clients are dropped by the emulator's server: a request whose headers never finish is
answered 408 and closed, however slowly it drips; connections beyond the cap are refused at
once; requests from well-behaved clients keep being answered."""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest

from mediagen_nb._serverkit.runner import DroppingH11Protocol
from mediagen_nb.emulator import EmulatorHandle, start_emulator
from tests._support import KEY

PARTIAL = b"GET /api/v1/result/x HTTP/1.1\r\nHost: emu\r\n"
"""A request line and one header, without the blank line that ends the headers."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[EmulatorHandle]:
    monkeypatch.setattr(DroppingH11Protocol, "header_timeout_s", 0.5)
    monkeypatch.setattr(DroppingH11Protocol, "max_connections", 4)
    with start_emulator(api_key=KEY) as handle:
        yield handle


def connect(handle: EmulatorHandle) -> socket.socket:
    return socket.create_connection((handle.host, handle.port), timeout=15)


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (the socket's timeout bounds the wait)."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def status_of(handle: EmulatorHandle) -> bytes:
    """The status line a complete, authorised request gets."""
    with connect(handle) as sock:
        sock.sendall(
            b"GET /api/v1/result/nope HTTP/1.1\r\nHost: emu\r\n"
            + f"Authorization: Bearer {KEY}\r\nConnection: close\r\n\r\n".encode()
        )
        return read_all(sock).split(b"\r\n", 1)[0]


def test_unfinished_headers_are_answered_408_and_closed(server: EmulatorHandle) -> None:
    with connect(server) as sock:
        sock.sendall(PARTIAL)
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert status_of(server) == b"HTTP/1.1 404 Not Found"


def test_dripping_headers_do_not_reset_the_clock(server: EmulatorHandle) -> None:
    with connect(server) as sock:
        sock.settimeout(0.2)
        sent = 0
        closed = False
        for byte in PARTIAL * 10:
            try:
                sock.sendall(bytes([byte]))
                sent += 1
                closed = sock.recv(65536).startswith(b"HTTP/1.1 408")
            except TimeoutError:
                continue
            except OSError:
                closed = True
            if closed:
                break
    assert closed
    assert sent < len(PARTIAL * 10)


def test_connections_beyond_the_cap_are_refused(server: EmulatorHandle) -> None:
    held = [connect(server) for _ in range(4)]
    try:
        time.sleep(0.1)  # let the server register them before more arrive
        extra = [connect(server) for _ in range(3)]
        answers = [read_all(sock) for sock in extra]
        for sock in extra:
            sock.close()
    finally:
        for sock in held:
            sock.close()
    assert [a.split(b"\r\n", 1)[0] for a in answers] == [b"HTTP/1.1 503 Service Unavailable"] * 3
    deadline = time.monotonic() + 10
    while status_of(server) != b"HTTP/1.1 404 Not Found" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status_of(server) == b"HTTP/1.1 404 Not Found"


LATE_CREATE = (
    b"POST /api/v1/banana/images HTTP/1.1\r\nHost: emu\r\nContent-Type: application/json\r\n"
    + f"Authorization: Bearer {KEY}\r\nContent-Length: 2\r\n\r\n{{}}".encode()
)
"""A whole create, sent by a client too loaded to send it before the header deadline."""


def test_a_request_sent_after_the_header_deadline_reads_the_408_not_a_reset(
    server: EmulatorHandle,
) -> None:
    with connect(server) as sock:
        time.sleep(0.8)  # the 408 is on its way: the server has given up on this connection
        sock.sendall(LATE_CREATE)
        answer = read_all(sock)  # a socket closed at once answers the late bytes with a reset
    assert answer.startswith(b"HTTP/1.1 408")  # "not made": the client may send it again
    assert status_of(server) == b"HTTP/1.1 404 Not Found"


def test_a_create_sent_beyond_the_cap_reads_its_503_and_when_to_try_again(
    server: EmulatorHandle,
) -> None:
    held = [connect(server) for _ in range(4)]
    try:
        time.sleep(0.1)
        with connect(server) as sock:
            sock.sendall(LATE_CREATE)  # as a client does: the request leaves with the connect
            answer = read_all(sock)  # closed at once, the server would reset it, unread
    finally:
        for sock in held:
            sock.close()
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert head.startswith(b"http/1.1 503")
    assert b"retry-after: 1" in head.split(b"\r\n")


async def _huge_body() -> AsyncIterator[bytes]:
    yield b'{"model": "nano-banana", "prompt": "'
    for _ in range(32):  # 2 MiB, twice the cap, with no Content-Length
        yield b"a" * 65536
    yield b'"}'


async def test_a_body_refused_while_it_streams_is_answered_not_reset(
    server: EmulatorHandle,
) -> None:
    """413 for a streamed body past the cap, answered before the client has sent all of it:
    the server lingers instead of closing on unread bytes (which resets the connection and
    loses the answer: a ReadError about one time in two before)."""
    async with httpx2.AsyncClient(timeout=30) as http:
        statuses = []
        for _ in range(8):
            answer = await http.post(
                server.base_url + "/v1/banana/images",
                headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
                content=_huge_body(),
            )
            statuses.append(answer.status_code)
    assert statuses == [413] * 8
