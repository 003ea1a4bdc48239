"""A finished stream reads its body to the end, so its connection goes back to the pool.

Against the emulator on loopback: consecutive streamed replies of one client run over one
kept-alive connection. With fakes: what follows the terminator is read but never handled,
and a connection that breaks after the terminator does not spoil a whole reply.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import EmulatorHandle
from tests._support import KEY
from tests.client_fakes import BASE, TEXT, MemoryRecorder

MESSAGES = [{"role": "user", "content": "count to five"}]


pytestmark = pytest.mark.emulator(speed=1000.0, api_key=KEY, seed=5)


class ConnectionCounter(httpx2.AsyncBaseTransport):
    """A real transport that counts the TCP connections its pool opened."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.opened: set[int] = set()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)
        stream = response.extensions.get("network_stream")
        if stream is not None:
            self.opened.add(id(stream))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_consecutive_streams_reuse_one_connection(emulator: EmulatorHandle) -> None:
    counter = ConnectionCounter()
    async with AsyncClient(
        KEY, emulator.base_url, emulator.text_base_url, counter, recorder=None
    ) as client:
        texts: list[str] = []
        for _ in range(3):
            chat = await client.chat.completions.create(
                model="gpt-5.4", messages=MESSAGES, stream=True
            )
            texts.append((await chat.get_final_completion()).text)
            messages = await client.messages.create(
                model="claude-sonnet-4-6", max_tokens=64, messages=MESSAGES, stream=True
            )
            texts.append((await messages.get_final_message()).content[0].text or "")
    assert all(texts)
    assert len(counter.opened) == 1


class RecordingBody(httpx2.AsyncByteStream):
    """A body that notes how far it was read and can break at its very end."""

    def __init__(self, parts: list[bytes], error: Exception | None = None) -> None:
        self.parts = parts
        self.error = error
        self.read_to_end = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part
        if self.error is not None:
            raise self.error
        self.read_to_end = True


def chunk(text: str) -> bytes:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    return f"data: {json.dumps({'id': 'c1', 'model': 'm', 'choices': [choice]})}\n\n".encode()


def client_for(body: RecordingBody, tmp_path: Path) -> tuple[AsyncClient, MemoryRecorder]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)

    recorder = MemoryRecorder(tmp_path)
    return AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=recorder), recorder


async def test_the_rest_after_done_is_read_but_not_handled(tmp_path: Path) -> None:
    body = RecordingBody(
        [chunk("Hel"), chunk("lo"), b"data: [DONE]\n\n", chunk(" late"), b": k\n\n"]
    )
    client, recorder = client_for(body, tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    assert [c.text async for c in stream] == ["Hel", "lo"]
    assert stream.text == "Hello"
    assert body.read_to_end
    assert recorder.actions("chat") == ["started", "completed"]
    await client.aclose()


async def test_a_break_after_done_keeps_the_whole_reply(tmp_path: Path) -> None:
    body = RecordingBody(
        [chunk("whole"), b"data: [DONE]\n\n"], error=httpx2.RemoteProtocolError("peer went away")
    )
    client, recorder = client_for(body, tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    final = await stream.get_final_completion()
    assert final.text == "whole"
    assert stream.error is None
    assert recorder.actions("chat") == ["started", "completed"]
    await client.aclose()
