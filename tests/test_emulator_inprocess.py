"""Demo mode in-process: the emulator inside the kernel behind a streaming ASGI transport.

The browser (Pyodide) can start no thread and serve no socket; the same path runs here on
CPython (``start_emulator(in_process=True)``, ``MEDIAGEN_DEMO=in-process``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, MutableMapping
from typing import Any

import httpx2
import pytest

import mediagen_nb as mg
from mediagen_nb import _platform
from mediagen_nb.emulator import EmulatorHandle, FaultConfig
from mediagen_nb.emulator._inprocess import StreamingASGITransport

Message = MutableMapping[str, Any]
TEXT_RATE = 400.0  # tokens per second: paced (so chunks are apart), quick enough for a test
PROMPT = [{"role": "user", "content": "Write a long story about tea, in many sentences."}]


class Recording:
    """An ASGI wrapper that counts the body chunks the emulator sends and what it receives."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sent_chunks = 0
        self.finished = False
        self.received: list[str] = []

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        async def spy_receive() -> Message:
            message: Message = await receive()
            self.received.append(message["type"])
            return message

        async def spy_send(message: Message) -> None:
            if message["type"] == "http.response.body":
                self.sent_chunks += 1
                self.finished = not message.get("more_body", False)
            await send(message)

        await self.app(scope, spy_receive, spy_send)


@pytest.fixture
def emulator() -> Iterator[EmulatorHandle]:
    handle = mg.start_emulator(in_process=True, text_rate=TEXT_RATE, speed=600)
    yield handle
    handle.stop()


def _client(handle: EmulatorHandle, app: Any = None) -> mg.AsyncClient:
    transport = None if app is None else StreamingASGITransport(app, handle.base_url)
    return mg.AsyncClient(
        api_key=handle.api_key,
        base_url=handle.base_url,
        text_base_url=handle.text_base_url,
        transport=transport,
        recorder=None,
    )


def test_handle_is_in_process(emulator: EmulatorHandle) -> None:
    assert emulator.in_process
    assert emulator.running
    assert emulator.base_url.endswith(".mediagen.invalid/api")
    assert "in-process" in repr(emulator)
    assert emulator.api_key not in repr(emulator)
    emulator.stop()
    assert not emulator.running


async def test_chat_streams_chunk_by_chunk(emulator: EmulatorHandle) -> None:
    spy = Recording(emulator.app)
    async with _client(emulator, spy) as client:
        stream = await client.chat.completions.create(
            model="claude-sonnet-4-6", messages=PROMPT, stream=True
        )
        sent_when_received: list[int] = []
        finished_when_received: list[bool] = []
        async for _chunk in stream:
            sent_when_received.append(spy.sent_chunks)
            finished_when_received.append(spy.finished)
    assert len(sent_when_received) > 10
    # each chunk reached the client while the emulator was still producing the rest
    early = sum(1 for done in finished_when_received if not done)
    assert early >= len(sent_when_received) - 2
    assert sent_when_received[0] < spy.sent_chunks // 2


async def test_stop_closes_the_stream_and_the_emulator_sees_the_disconnect(
    emulator: EmulatorHandle,
) -> None:
    spy = Recording(emulator.app)
    async with _client(emulator, spy) as client:
        stream = await client.chat.completions.create(
            model="claude-sonnet-4-6", messages=PROMPT, stream=True
        )
        got = 0
        async for _chunk in stream:
            got += 1
            if got == 3:
                break
        await stream.aclose()
    assert "http.disconnect" in spy.received
    assert not spy.finished  # the reply was cut: the app stopped before its last chunk
    sent = spy.sent_chunks
    assert sent < 20


async def test_image_and_video_tasks_complete(emulator: EmulatorHandle) -> None:
    async with _client(emulator) as client:
        image = await client.images.create("gpt-image-2", prompt="a red fox", ratio="16:9")
        video = await client.videos.create("neutralSora2Plus", prompt="a cat on a roof")
        await image.wait()
        await video.wait()
        picture, clip = await image.read_bytes(), await video.read_bytes()
    assert (image.status, video.status) == ("completed", "completed")
    assert picture.startswith(b"\x89PNG\r\n\x1a\n")
    assert clip[4:8] == b"ftyp"
    assert emulator.state.tasks.media.inline


async def test_asset_upload_by_file_becomes_active(emulator: EmulatorHandle) -> None:
    async with _client(emulator) as client:
        url = await client.assets.host_file(
            b"\x89PNG small", name="fox.png", content_type="image/png"
        )
        assert url.startswith(emulator.base_url)
        info = await client.assets.upload(url, "Image", name="fox")
        done = await client.assets.wait_active([info.assetId])
        fetched = await client.assets.fetch_media(url, max_bytes=1000)
    assert done[info.assetId].status == "Active"
    assert fetched == b"\x89PNG small"


async def test_demo_env_makes_the_default_client_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mediagen_nb.emulator import _server

    monkeypatch.setenv(_platform.DEMO_ENV, _platform.IN_PROCESS)
    monkeypatch.setattr(_server, "_default", None)
    async with mg.AsyncClient(recorder=None) as client:
        assert client.demo_mode
        assert client.base_url is not None
        assert ".mediagen.invalid" in client.base_url
        task = await client.images.create("nano-banana", prompt="a lighthouse")
        await task.wait()
    assert task.status == "completed"
    _server.default_emulator().stop()


def test_demo_env_server_insists_on_the_served_emulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_platform.DEMO_ENV, "server")
    assert not _platform.demo_in_process()
    monkeypatch.setenv(_platform.DEMO_ENV, "In-Process ")
    assert _platform.demo_in_process()


def test_a_bad_demo_env_value_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_platform.DEMO_ENV, "sideways")
    with pytest.raises(ValueError, match="MEDIAGEN_DEMO must be 'in-process' or 'server'"):
        _platform.demo_in_process()


async def test_no_thread_is_started_on_the_in_process_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mediagen_nb.emulator import _server

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError(f"can't start new thread ({self.name})")

    monkeypatch.setenv(_platform.DEMO_ENV, _platform.IN_PROCESS)
    monkeypatch.setattr(_server, "_default", None)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    async with mg.AsyncClient(recorder=None) as client:
        stream = await client.chat.completions.create(
            model="claude-sonnet-4-6", messages=PROMPT[:1], stream=True
        )
        chunks = [chunk async for chunk in stream]
        image = await client.images.create("gpt-image-2", prompt="a fox")
        video = await client.videos.create("neutralSora2Plus", prompt="a cat")
        await image.wait()
        await video.wait()
        sizes = [len(await image.read_bytes()), len(await video.read_bytes())]
        url = await client.assets.host_file(b"GIF89a", name="a.gif", content_type="image/gif")
        asset = await client.assets.upload(url, "Image")
    assert len(chunks) > 3
    assert (image.status, video.status) == ("completed", "completed")
    assert min(sizes) > 1000
    assert asset.assetId
    monkeypatch.undo()
    _platform.can_start_threads.cache_clear()  # in case this test was the first to ask
    _server.default_emulator().stop()


async def test_a_dropped_connection_is_a_connection_error_in_process() -> None:
    handle = mg.start_emulator(
        in_process=True, speed=600, faults=FaultConfig(drop_rate=1.0, apply_to=("create",))
    )
    try:
        async with _client(handle) as client:
            with pytest.raises(mg.APIConnectionError, match="ConnectionDropped") as caught:
                await client.images.create("gpt-image-2", prompt="a fox")
        assert not caught.value.cors  # an in-process emulator is never a CORS matter
        assert handle.state.faults.counts["drop"] >= 1
    finally:
        handle.stop()


async def test_requests_for_other_origins_go_to_the_network_transport(
    emulator: EmulatorHandle,
) -> None:
    seen: list[str] = []

    def network(request: httpx2.Request) -> httpx2.Response:
        seen.append(str(request.url))
        return httpx2.Response(200, content=b"elsewhere")

    transport = StreamingASGITransport(
        emulator.app, emulator.base_url, fallback=httpx2.MockTransport(network)
    )
    async with httpx2.AsyncClient(transport=transport) as http:
        other = await http.get("https://cdn.example/result.png")
        own = await http.get(emulator.base_url + "/v1/result/nothing")
    assert (other.status_code, other.content) == (200, b"elsewhere")
    assert seen == ["https://cdn.example/result.png"]
    assert own.status_code == 401  # the emulator itself answered (no key sent)
