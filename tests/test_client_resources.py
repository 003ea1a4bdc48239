"""Resource namespaces: validation before sending, family lookup, chat, assets, blocking Client."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

import mediagen_nb.client as client_pkg
from mediagen_nb.client import (
    AssetError,
    AssetNotUsableError,
    AssetTimeoutError,
    AsyncClient,
    BadRequestError,
    Client,
    RequestValidationError,
)
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT, FakeService, MemoryRecorder

MESSAGES = [{"role": "user", "content": "hi"}]


def no_network(request: httpx2.Request) -> httpx2.Response:
    raise AssertionError(f"nothing should be sent, got {request.method} {request.url}")


async def test_invalid_bodies_raise_before_any_request() -> None:
    async with AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(no_network), recorder=None) as c:
        with pytest.raises(RequestValidationError, match="resolution") as info:
            await c.images.create("gpt-image-2", prompt="x", resolution="4k", ratio="1:1")
        assert info.value.problems
        assert isinstance(info.value, ValueError)
        with pytest.raises(RequestValidationError, match="temperature"):
            await c.chat.completions.create(model="gpt-5.4", messages=MESSAGES, temperature=3)
        with pytest.raises(RequestValidationError):
            await c.messages.create(model="gemini-2.5-pro", max_tokens=10, messages=MESSAGES)
        with pytest.raises(RequestValidationError, match="pass family="):
            await c.videos.create("mystery-model", prompt="x")
        with pytest.raises(RequestValidationError, match=r"videos\.create"):
            await c.images.create("neutralSora2Pro", prompt="x")
        with pytest.raises(RequestValidationError, match="unknown family"):
            await c.videos.create("m", family="nope", prompt="x")
        with pytest.raises(RequestValidationError):
            await c.assets.sd2_upload()
        with pytest.raises(RequestValidationError):
            c.tasks.attach("t", "nope", "m")


async def test_family_kwarg_routes_undocumented_families() -> None:
    service = FakeService()
    async with AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(service), recorder=None) as c:
        task = await c.videos.create(
            "seedance-2.0-pro", family="seedance2", prompt="a dancer", duration=5
        )
        assert task.family == "seedance2"
    assert service.paths() == ["POST /api/v1/svcvideo2/videos"]
    sent = json.loads(service.requests[0].content)
    assert sent == {"model": "seedance-2.0-pro", "prompt": "a dancer", "duration": 5}
    assert service.requests[0].headers["content-type"] == "application/json"


async def test_unknown_model_opt_out() -> None:
    service = FakeService()
    async with AsyncClient(
        KEY, BASE, TEXT, httpx2.MockTransport(service), recorder=None, allow_unknown_models=True
    ) as c:
        await c.images.create("nano-banana-3", family="banana", prompt="x")
    assert service.paths() == ["POST /api/v1/banana/images"]


async def test_chat_and_messages_non_stream(tmp_path: Path) -> None:
    completion = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-5.4",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3},
    }
    message = {
        "id": "m1",
        "type": "message",
        "role": "assistant",
        "model": "claude-opus-4-6",
        "content": [{"type": "text", "text": "Hi"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 4, "output_tokens": 1},
    }
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        if request.url.path == "/gateway/v1/chat/completions":
            return httpx2.Response(200, json=completion)
        if bodies[-1]["max_tokens"] == 1:
            return httpx2.Response(
                400,
                json={
                    "error": {
                        "type": "invalid_request_error",
                        "message": "max_tokens: too small",
                        "param": "max_tokens",
                    }
                },
            )
        return httpx2.Response(200, json=message)

    recorder = MemoryRecorder(tmp_path)
    async with AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=recorder) as c:
        reply = await c.chat.completions.create(model="gpt-5.4", messages=MESSAGES, top_p=0.5)
        assert reply.text == "Hello"
        assert reply.usage is not None
        assert reply.usage.total_tokens == 3
        answer = await c.messages.create(
            model="claude-opus-4-6", max_tokens=50, messages=MESSAGES, system="be brief"
        )
        assert answer.text == "Hi"
        assert answer.stop_reason == "end_turn"
        with pytest.raises(BadRequestError) as info:
            await c.messages.create(model="claude-opus-4-6", max_tokens=1, messages=MESSAGES)
        assert info.value.param == "max_tokens"
    assert bodies[0] == {"model": "gpt-5.4", "messages": MESSAGES, "top_p": 0.5}
    assert "stream" not in bodies[1]
    assert bodies[1]["system"] == "be brief"
    assert recorder.actions("chat") == [
        "started",
        "completed",
        "started",
        "completed",
        "started",
        "failed",
    ]
    done = recorder.events[1]
    assert done.data["text"] == "Hello"
    assert done.data["usage"]["total_tokens"] == 3
    assert recorder.events[0].service == TEXT


def asset_service(statuses: dict[str, list[str]]) -> tuple[httpx2.MockTransport, list[str]]:
    """Asset endpoints of both libraries; each id walks through its list of statuses."""
    seen: list[str] = []

    def envelope(data: Any, code: str = "0", msg: str | None = None) -> httpx2.Response:
        return httpx2.Response(200, json={"code": code, "msg": msg, "data": data})

    def step(asset_id: str) -> str:
        states = statuses[asset_id]
        return states.pop(0) if len(states) > 1 else states[0]

    def handler(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        seen.append(f"{request.method} {path}")
        body = json.loads(request.content) if request.content else {}
        if path == "/api/svcVideo2/asset/upload":
            if "bad" in body["url"]:
                return envelope(None, code="1001", msg="url not reachable")
            return httpx2.Response(
                200, json={"code": 0, "msg": "ok", "data": {"assetId": "asset-1-abc"}}
            )
        if path.startswith("/api/svcVideo2/asset/"):
            asset_id = path.rsplit("/", 1)[1]
            if request.method == "DELETE":
                return envelope(None, msg="deleted")
            return envelope({"assetId": asset_id, "status": step(asset_id), "assetType": "Image"})
        if path == "/api/asset/sd2Manxue/assetUpload":
            items = [
                {
                    "assetId": "sd2-a",
                    "assetType": "Image",
                    "status": "submitted",
                    "originalUrl": body["imageUrls"][0],
                }
            ]
            return envelope({"items": items, "failedItems": []})
        if path == "/api/asset/sd2Manxue/assetStatus":
            items = [{"assetId": i, "status": step(i)} for i in body["assetIds"]]
            return envelope({"items": items, "failedItems": []})
        return httpx2.Response(404)

    return httpx2.MockTransport(handler), seen


async def test_assets_lifecycle_and_refusal_of_unusable_assets(tmp_path: Path) -> None:
    transport, seen = asset_service(
        {"asset-1-abc": ["Processing", "Processing", "Active"], "sd2-a": ["Processing", "Active"]}
    )
    clock, recorder = FakeClock(), MemoryRecorder(tmp_path)
    async with AsyncClient(
        KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=recorder
    ) as c:
        info = await c.assets.upload("https://example.com/face.png", "Image", name="face")
        assert info.assetId == "asset-1-abc"
        assert info.name == "face"
        batch = await c.assets.sd2_upload(image_urls=["https://example.com/a.png"])
        assert [i.status for i in batch.items] == ["submitted"]
        uri = c.assets.asset_uri("sd2-a")
        assert uri == "asset://sd2-a"
        with pytest.raises(AssetNotUsableError, match="submitted") as refused:
            await c.videos.create("sd2_manxue_1080p", prompt="x", referenceImages=[uri])
        assert refused.value.asset_id == "sd2-a"
        assert not any("sd2_manxue/videos" in s for s in seen)
        active = await c.assets.wait_active(["asset-1-abc", "sd2-a"])
        assert {k: v.status for k, v in active.items()} == {
            "asset-1-abc": "Active",
            "sd2-a": "Active",
        }
        assert clock.sleeps == [3.0, 3.0]
        assert c.assets.known_status("sd2-a") == "Active"
        assert await c.assets.delete("asset-1-abc") == "deleted"
        with pytest.raises(AssetNotUsableError, match="deleted"):
            await c.videos.create("x", family="seedance2", first_image="asset://asset-1-abc")
        with pytest.raises(AssetError, match="1001") as failed:
            await c.assets.upload("https://example.com/bad.png", "Image")
        assert failed.value.msg == "url not reachable"
    assert "uploaded" in recorder.actions("asset")
    assert "deleted" in recorder.actions("asset")
    assert recorder.actions("asset")[-1] == "failed"
    attempt = recorder.events[-1]
    assert attempt.key.startswith("attempt-")  # its own row, not one named by the path
    assert attempt.data["request"]["url"] == "https://example.com/bad.png"
    assert "1001" in attempt.data["error"]


async def test_wait_active_raises_on_failed_review_and_on_deadline() -> None:
    transport, _ = asset_service({"asset-9-x": ["Processing", "Failed"], "slow": ["Processing"]})
    clock = FakeClock()
    async with AsyncClient(
        KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=None
    ) as c:
        with pytest.raises(AssetNotUsableError, match="Failed"):
            await c.assets.wait_active(["asset-9-x"])
        with pytest.raises(AssetTimeoutError) as info:
            await c.assets.wait_active(["slow"], timeout=10)
    assert info.value.asset_ids == ["slow"]


def test_blocking_client_works_inside_a_running_loop() -> None:
    service = FakeService(script=["processing", "completed"], speed=1000.0)

    async def notebook_cell() -> tuple[str, int, bytes]:
        # A running loop in this thread, as in Jupyter: the blocking client must still work.
        with Client(KEY, BASE, TEXT, httpx2.MockTransport(service), recorder=None) as client:
            task = client.images.create("nano-banana", prompt="x")
            statuses: list[str] = []
            task.wait(on_update=lambda t: statuses.append(t.status))
            return task.status, len(statuses), task.read_bytes()

    status, updates, data = asyncio.run(notebook_cell())
    assert status == "completed"
    assert updates == 2
    assert data == service.media


def test_blocking_client_streams(tmp_path: Path) -> None:
    body = (
        b'data: {"choices": [{"index": 0, "delta": {"content": "He"}}]}\n\n'
        b'data: {"choices": [{"index": 0, "delta": {"content": "y"}}]}\n\n'
        b"data: [DONE]\n\n"
    )

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    with Client(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=None) as client:
        stream = client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
        assert [c.text for c in stream] == ["He", "y"]
        assert stream.text == "Hey"
        assert stream.done
        assert client.assets.asset_uri("a") == "asset://a"
        assert not client.demo_mode
        assert client.base_url == BASE


def test_exported_names_are_sorted_and_pinned() -> None:
    assert client_pkg.__all__ == sorted(client_pkg.__all__, key=lambda n: (not n.isupper(), n))
    for name in (
        "AsyncClient",
        "Client",
        "Task",
        "RequestValidationError",
        "MediagenError",
        "StreamInterruptedError",
        "AssetNotUsableError",
    ):
        assert name in client_pkg.__all__
        assert getattr(client_pkg, name) is not None


def test_import_loads_no_heavy_modules() -> None:
    code = (
        "import sys, mediagen_nb.client; "
        "print(sorted({'pandas', 'PIL', 'ipywidgets'} & set(sys.modules)))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
