"""An upstream that does not answer: the cause is named, never swallowed."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.classroom import Upstream, start_classroom
from mediagen_nb.client._config import Secret
from tests._classroom_helpers import MARKER_KEY


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_the_student_sees_the_kind_and_the_teacher_the_whole_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = f"http://127.0.0.1:{closed_port()}"
    gone = Upstream(root + "/api", root + "/gateway", Secret(MARKER_KEY), kind="emulator")
    caplog.set_level(logging.WARNING, logger="mediagen_nb.classroom")
    with start_classroom(["ada"], upstream=gone, folder=tmp_path) as room:
        auth = {"authorization": f"Bearer {room.codes['ada']}"}
        async with httpx2.AsyncClient(headers=auth) as http:
            chat = await http.post(
                room.text_base_url + "/v1/chat/completions",
                json={
                    "model": "gpt-5.4",
                    "stream": True,
                    "messages": [{"role": "user", "content": "hi"}],
                },
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
    warnings = [r.getMessage() for r in caplog.records if r.name == "mediagen_nb.classroom"]
    assert [w.split(":")[0] for w in warnings if "did not answer" in w] == [
        "the upstream did not answer ada's /v1/chat/completions",
        "the upstream did not answer ada's banana create",
    ]
    assert MARKER_KEY not in " ".join(warnings) + chat.text + create.text
