"""The client against the real emulator: in-process (ASGI, shared fake clock) and on loopback.

In-process tests share one fake clock between the emulator and the client's injected sleep,
so a 5-minute video "takes" no wall time and the emulator's poll-rate limit still applies.
Streaming and faults run against a real uvicorn server on 127.0.0.1 (ASGITransport buffers).
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest

from mediagen_nb import _hooks
from mediagen_nb.client import (
    AssetNotUsableError,
    AsyncClient,
    AuthenticationError,
    Client,
    RequestValidationError,
    StreamInterruptedError,
    TaskFailedError,
)
from mediagen_nb.emulator import EmulatorHandle, FaultConfig, create_app, start_emulator
from tests._support import KEY, FakeClock

BASE = "http://emu.test/api"
TEXT = "http://emu.test/gateway"
MESSAGES = [{"role": "user", "content": "Say something about lighthouses."}]


@pytest.fixture
def clock() -> FakeClock:
    shared = FakeClock()
    shared.now = 1_750_000_000.0
    return shared


@pytest.fixture
async def client(clock: FakeClock) -> AsyncIterator[AsyncClient]:
    app = create_app(api_key=KEY, speed=1.0, clock=clock, seed=3)
    transport = httpx2.ASGITransport(app=app)
    async with AsyncClient(
        KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=None
    ) as c:
        yield c


async def test_image_task_end_to_end(client: AsyncClient, clock: FakeClock) -> None:
    task = await client.images.create("nano-banana", prompt="a red bicycle", size="16:9")
    await task.wait()
    assert task.status == "completed"
    assert set(clock.sleeps) == {2.0}
    assert client.retries == 0  # never polled faster than the emulator allows
    data = await task.read_bytes()
    assert data.startswith(b"\x89PNG")
    picture = await task.image()
    assert picture.width > picture.height


async def test_seedance_polls_no_faster_than_ten_seconds(
    client: AsyncClient, clock: FakeClock
) -> None:
    task = await client.videos.create(
        "seedance_1_5_pro_480p", content=[{"type": "text", "text": "a paper boat"}], duration=4
    )
    await task.wait()
    assert task.status == "completed"
    assert min(clock.sleeps) >= 10.0
    assert client.retries == 0
    assert task.result is not None
    assert task.result.actualDuration is not None


async def test_failures_reach_the_caller(client: AsyncClient) -> None:
    failing = await client.images.create("gpt-image-2", prompt="a lighthouse [fail]")
    with pytest.raises(TaskFailedError):
        await failing.wait()
    policy = await client.images.create("gpt-image-2", prompt="forbidden [policy]")
    with pytest.raises(TaskFailedError):
        await policy.wait()
    with pytest.raises(RequestValidationError, match="ratio"):
        await client.images.create("gpt-image-2", prompt="x", resolution="2k")


async def test_wrong_key_is_an_authentication_error(clock: FakeClock) -> None:
    app = create_app(api_key=KEY, clock=clock)
    transport = httpx2.ASGITransport(app=app)
    async with AsyncClient("wrong-key-0000", BASE, TEXT, transport, recorder=None) as c:
        with pytest.raises(AuthenticationError) as info:
            await c.tasks.get("t-1")
    assert info.value.status_code == 401
    assert "wrong-key-0000" not in str(info.value)


async def test_assets_then_video_with_asset_reference(
    client: AsyncClient, clock: FakeClock
) -> None:
    face = await client.assets.upload("https://example.com/face.png", "Image", name="me")
    with pytest.raises(AssetNotUsableError):
        await client.assets.wait_active(
            [(await client.assets.upload("https://example.com/reject.png", "Image")).assetId]
        )
    active = await client.assets.wait_active([face.assetId])
    assert active[face.assetId].status == "Active"
    task = await client.videos.create(
        "seedance-2.0",
        family="seedance2",
        prompt="portrait turning to camera",
        duration=5,
        first_image=client.assets.asset_uri(face.assetId),
    )
    await task.wait()
    assert task.status == "completed"
    sd2 = await client.assets.sd2_upload(image_urls=["https://example.com/a.png"])
    assert sd2.items[0].status in ("submitted", "Processing")
    with pytest.raises(AssetNotUsableError):
        await client.videos.create(
            "sd2_manxue_fast_720p",
            prompt="desert road",
            duration=4,
            referenceImages=[client.assets.asset_uri(sd2.items[0].assetId)],
        )


async def test_chat_and_messages_non_stream(client: AsyncClient) -> None:
    reply = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES)
    assert reply.text
    assert reply.usage is not None
    assert reply.usage.total_tokens > 0
    answer = await client.messages.create(
        model="claude-sonnet-4-6", max_tokens=200, messages=MESSAGES
    )
    assert answer.text
    assert answer.stop_reason in ("end_turn", "max_tokens")


@pytest.fixture
def server() -> Iterator[EmulatorHandle]:
    with start_emulator(speed=200.0, api_key=KEY) as handle:
        yield handle


async def test_streams_over_loopback(server: EmulatorHandle) -> None:
    async with AsyncClient(KEY, server.base_url, server.text_base_url, recorder=None) as c:
        stream = await c.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
        pieces = [chunk.text async for chunk in stream]
        assert "".join(pieces) == stream.text
        assert stream.text
        assert stream.finish_reason is not None
        message = await c.messages.create(
            model="claude-opus-4-6", max_tokens=300, messages=MESSAGES, stream=True
        )
        final = await message.get_final_message()
        assert final.text == message.text
        assert message.text
        assert message.stop_reason is not None


async def test_stream_cut_keeps_partial_text() -> None:
    faults = FaultConfig(stream_cut_rate=1.0, seed=1, apply_to=())
    with start_emulator(speed=200.0, api_key=KEY, faults=faults) as handle:
        async with AsyncClient(KEY, handle.base_url, handle.text_base_url, recorder=None) as c:
            stream = await c.chat.completions.create(
                model="gpt-5.4", messages=MESSAGES, stream=True
            )
            with pytest.raises(StreamInterruptedError) as info:
                await stream.get_final_completion()
            assert info.value.partial_text == stream.text


async def test_result_faults_are_retried_and_counted() -> None:
    faults = FaultConfig(
        rate_limit_rate=0.4, error_rate=0.1, drop_rate=0.05, seed=5, apply_to=("result",)
    )
    with start_emulator(speed=100.0, api_key=KEY, faults=faults) as handle:
        async with AsyncClient(
            KEY, handle.base_url, handle.text_base_url, recorder=None, max_retries=30
        ) as c:
            tasks = [await c.images.create("nano-banana", prompt=f"cat {i}") for i in range(3)]
            for task in tasks:
                await task.wait(timeout=30)
                assert task.status == "completed"
            injected = handle.state.fault_counts()
            too_fast = handle.state.counters["poll_too_fast"]
        # every injected fault on a result GET cost exactly one retry, and nothing else did
        answered = sum(n for name, n in injected.items() if name != "latency")
        assert answered > 0
        assert c.retries == answered + too_fast
        reasons = c.retry_transport.retry_reasons
        assert reasons["status 429"] == injected.get("rate_limit", 0) + too_fast


def test_blocking_client_and_demo_mode(
    server: EmulatorHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_hooks, "_fallback_factory", server.endpoint)
    with Client(recorder=None) as client:
        assert client.demo_mode
        assert client.base_url == server.base_url
        task = client.images.create("gpt-image-2", prompt="a lighthouse", ratio="1:1")
        task.wait(timeout=30)
        from PIL import Image

        assert Image.open(io.BytesIO(task.read_bytes())).format == "PNG"
