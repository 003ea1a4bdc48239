"""A tiny stand-in for the service behind a classroom gateway: every image2 create completes
at once, and its result URL serves whatever the test put under the prompt's name (bytes,
content type, the host named in the URL). Counts each media download."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from mediagen_nb._serverkit.runner import serve_in_thread
from mediagen_nb.classroom import ClassroomHandle, Upstream
from mediagen_nb.client._config import Secret

SPEED = {"x-mediagen-emulator-speed": "1000"}
"""Announced to the gateway, so it polls every few milliseconds."""


@dataclass
class Media:
    """What a result URL serves: ``body`` repeated ``repeat`` times, as ``content_type``."""

    body: bytes
    content_type: str
    suffix: str = ".png"
    host: str = "127.0.0.1"
    """The host the result URL names (the stub also listens on it)."""
    repeat: int = 1


@dataclass
class Stub:
    media: dict[str, Media]
    ports: dict[str, int] = field(default_factory=dict)
    downloads: Counter[str] = field(default_factory=Counter)

    def url(self, key: str) -> str:
        media = self.media[key]
        return f"http://{media.host}:{self.ports[media.host]}/files/{key}{media.suffix}"

    def app(self) -> Starlette:
        async def create(request: Request) -> Response:
            body = await request.json()
            return JSONResponse({"id": f"stub-{body['prompt']}", "status": "queued"}, headers=SPEED)

        async def result(request: Request) -> Response:
            key = request.path_params["id"].removeprefix("stub-")
            answer = {"id": f"stub-{key}", "status": "completed", "image_url": self.url(key)}
            return JSONResponse(answer, headers=SPEED)

        async def files(request: Request) -> Response:
            key = request.path_params["name"].rsplit(".", 1)[0]
            media = self.media[key]
            self.downloads[key] += 1

            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(media.repeat):
                    yield media.body

            return StreamingResponse(chunks(), media_type=media.content_type)

        return Starlette(
            routes=[
                Route("/api/v1/image2/images", create, methods=["POST"]),
                Route("/api/v1/result/{id}", result),
                Route("/files/{name}", files),
            ]
        )


@contextmanager
def stub_upstream(media: dict[str, Media]) -> Iterator[tuple[Stub, Upstream]]:
    """The stub served on 127.0.0.1 (and on every other host a media item names)."""
    stub = Stub(media)
    app = stub.app()
    servers = []
    try:
        for host in sorted({"127.0.0.1", *(m.host for m in media.values())}):
            server, thread, port = serve_in_thread(app, host, 0, what="the stub upstream")
            servers.append((server, thread))
            stub.ports[host] = port
        root = f"http://127.0.0.1:{stub.ports['127.0.0.1']}"
        yield stub, Upstream(root + "/api", root + "/gateway", Secret("sk-stub"))
    finally:
        for server, thread in servers:
            server.should_exit = True
            thread.join(10)


def create_and_wait(gateway: ClassroomHandle, code: str, prompt: str) -> dict[str, Any]:
    """Create an image2 task through the gateway and poll it to its end; the last result."""
    auth = {"authorization": f"Bearer {code}"}
    body = {"model": "gpt-image-2", "prompt": prompt}
    with httpx2.Client(base_url=gateway.base_url, headers=auth, timeout=60) as http:
        task_id = http.post("/v1/image2/images", json=body).json()["id"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            result: dict[str, Any] = http.get(f"/v1/result/{task_id}").json()
            if result["status"] in ("completed", "failed"):
                return result
            time.sleep(0.02)
    raise AssertionError(f"task {task_id} did not end within 120 s")


async def wait_all(gateway: ClassroomHandle, code: str, prompts: list[str]) -> list[dict[str, Any]]:
    """Run ``create_and_wait`` for every prompt at once (in threads); their last results."""
    return await asyncio.gather(
        *(asyncio.to_thread(create_and_wait, gateway, code, prompt) for prompt in prompts)
    )
