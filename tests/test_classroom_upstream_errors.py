"""An upstream that does not answer: the cause is named, never swallowed."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb.classroom import Limits, Upstream, start_classroom
from mediagen_nb.client._config import Secret
from tests._classroom_helpers import MARKER_KEY, student_http


def upstream_at(root: str) -> Upstream:
    """The class's service at ``root`` (an emulator's paths, the marker key)."""
    return Upstream(root + "/api", root + "/gateway", Secret(MARKER_KEY), kind="emulator")


def chat_body(content: str, *, stream: bool = False) -> dict[str, Any]:
    """A one-message chat completion for the class's model."""
    return {
        "model": "gpt-5.4",
        "stream": stream,
        "messages": [{"role": "user", "content": content}],
    }


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_the_student_sees_the_kind_and_the_teacher_the_whole_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    gone = upstream_at(f"http://127.0.0.1:{closed_port()}")
    caplog.set_level(logging.WARNING, logger="mediagen_nb.classroom")
    with start_classroom(["ada"], upstream=gone, folder=tmp_path) as room:
        async with student_http(room, "ada") as http:
            chat = await http.post(
                room.text_base_url + "/v1/chat/completions", json=chat_body("hi", stream=True)
            )
            create = await http.post(
                room.base_url + "/v1/banana/images", json={"model": "nano-banana", "prompt": "x"}
            )
        events = room.state.ledger.events()
    assert (chat.status_code, create.status_code) == (502, 502)
    assert chat.json()["error"]["message"] == (
        "the class's service did not answer (ConnectError); try again in a moment"
    )
    lost = {e["action"]: e["error"] for e in events if e["action"] in ("chat_lost", "create_lost")}
    assert sorted(lost) == ["chat_lost", "create_lost"]
    assert all(error.startswith("ConnectError: ") for error in lost.values())
    assert [e["maybe_made"] for e in events if e["action"] == "create_lost"] == [False]
    assert room.state.usage("ada").images == 0  # never reached the service: nothing counts
    warnings = [r.getMessage() for r in caplog.records if r.name == "mediagen_nb.classroom"]
    assert [w.split(":")[0] for w in warnings if "did not answer" in w] == [
        "the upstream did not answer ada's /v1/chat/completions",
        "the upstream did not answer ada's banana create",
    ]
    assert MARKER_KEY not in " ".join(warnings) + chat.text + create.text


class ReadsThenHangsUp:
    """A loopback 'service' that reads each request whole, then closes the connection
    without a word: the create got there, its answer never comes back."""

    def __init__(self, *, reset: bool) -> None:
        self.reset = reset
        self.requests: list[bytes] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.root = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                while len(body) < length:
                    body += conn.recv(65536)
                self.requests.append(head.split(b"\r\n")[0])
                if self.reset:  # RST instead of FIN: the reader sees ECONNRESET
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def close(self) -> None:
        self.server.close()


@pytest.mark.parametrize(("reset", "kind"), [(False, "RemoteProtocolError"), (True, "ReadError")])
async def test_a_create_whose_answer_was_lost_counts_as_made(
    tmp_path: Path, reset: bool, kind: str
) -> None:
    service = ReadsThenHangsUp(reset=reset)
    upstream = upstream_at(service.root)
    try:
        with start_classroom(
            ["ada"], upstream=upstream, folder=tmp_path, limits=Limits(images=1)
        ) as room:
            body = {"model": "nano-banana", "prompt": "a lighthouse at dusk"}
            async with student_http(room, "ada") as http:
                lost = await http.post(room.base_url + "/v1/banana/images", json=body)
                again = await http.post(room.base_url + "/v1/banana/images", json=body)
            usage = room.state.usage("ada")
            tasks = list(room.state.tasks.values())
            events = room.state.ledger.events()
    finally:
        service.close()
    assert service.requests == [b"POST /api/v1/banana/images HTTP/1.1"]  # sent once, whole
    assert lost.status_code == 502
    message = lost.json()["error"]["message"]
    assert message.startswith(
        f"the class's service got this create but its answer was lost ({kind})"
    )
    assert "counts against your limits" in message
    assert usage.images == 1  # the teacher's key may have paid for it
    assert again.json()["status"] == "failed"  # refused by the gateway: one image was all
    assert again.json()["id"].startswith("refused-")
    counted = [t for t in tasks if not t.refused]
    assert [(t.student, t.status, t.prompt) for t in counted] == [
        ("ada", "failed", "a lighthouse at dusk")
    ]
    assert counted[0].id.startswith("unanswered-")
    assert counted[0].error is not None
    assert "may have been made" in counted[0].error
    logged = [e for e in events if e["action"] == "create_lost"]
    assert [(e["maybe_made"], e["error"].split(":")[0]) for e in logged] == [(True, kind)]


async def test_a_chat_whose_answer_was_lost_counts_its_prompt(tmp_path: Path) -> None:
    service = ReadsThenHangsUp(reset=True)
    upstream = upstream_at(service.root)
    try:
        with start_classroom(["ada"], upstream=upstream, folder=tmp_path) as room:
            async with student_http(room, "ada") as http:
                chat = await http.post(
                    room.text_base_url + "/v1/chat/completions", json=chat_body("hi " * 40)
                )
            usage = room.state.usage("ada")
            events = room.state.ledger.events()
    finally:
        service.close()
    assert len(service.requests) == 1
    assert chat.status_code == 502
    assert chat.json()["error"]["message"] == (
        "the class's service got this request but its answer was lost (ReadError); its prompt "
        "counts against your limits; try again in a moment"
    )
    assert usage.chat_tokens > 0  # the prompt's estimate: the service may have read it
    assert usage.in_flight == 0
    lost = [e for e in events if e["action"] == "chat_lost"]
    assert [e["maybe_made"] for e in lost] == [True]
