"""Test doubles for the client tests: a scripted fake service, a fake clock, a memory recorder."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from mediagen_nb._hooks import LedgerEvent

BASE = "http://svc.test/api"
TEXT = "http://svc.test/gateway"


def png_bytes(size: tuple[int, int] = (8, 8)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


MP4_BYTES = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 32


@dataclass
class MemoryRecorder:
    """Recorder keeping events in a list and media in a folder."""

    folder: Path
    events: list[LedgerEvent] = field(default_factory=list)
    stored: dict[str, str] = field(default_factory=dict)

    def record(self, event: LedgerEvent) -> None:
        self.events.append(event)

    def store_media(self, key: str, data: bytes, suffix: str) -> str:
        path = self.folder / f"{key}{suffix}"
        path.write_bytes(data)
        self.stored[key] = str(path)
        return str(path)

    def cached_media(self, key: str) -> str | None:
        return self.stored.get(key)

    def actions(self, kind: str | None = None) -> list[str]:
        return [e.action for e in self.events if kind is None or e.kind == kind]


@dataclass
class FakeService:
    """A scripted stand-in for the service behind ``httpx2.MockTransport``.

    ``script[task_id]`` lists the statuses successive result polls return; the last one
    repeats. ``extra`` routes ``(method, path)`` to a handler for one-off behaviour.
    """

    script: list[str] = field(default_factory=lambda: ["processing", "completed"])
    speed: float | None = None
    create_status: str = "queued"
    create_error: str | None = None
    fail_error: str = "content policy violation"
    requests: list[httpx2.Request] = field(default_factory=list)
    polls: dict[str, int] = field(default_factory=dict)
    extra: dict[tuple[str, str], Callable[[httpx2.Request], httpx2.Response]] = field(
        default_factory=dict
    )
    media: bytes = field(default_factory=png_bytes)
    counter: int = 0

    def headers(self) -> dict[str, str]:
        return {} if self.speed is None else {"x-mediagen-emulator-speed": str(self.speed)}

    def json(self, data: Any, status: int = 200, **headers: str) -> httpx2.Response:
        return httpx2.Response(status, json=data, headers={**self.headers(), **headers})

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        path = request.url.path
        handler = self.extra.get((request.method, path))
        if handler is not None:
            return handler(request)
        if request.method == "POST" and path.startswith("/api/v1/") and path.count("/") == 4:
            body = json.loads(request.content)
            self.counter += 1
            task_id = f"task-{self.counter}"
            self.polls[task_id] = 0
            return self.json(
                {
                    "id": task_id,
                    "object": "image",
                    "created": 1_700_000_000,
                    "model": body.get("model"),
                    "status": self.create_status,
                    "error": self.create_error,
                }
            )
        if request.method == "GET" and path.startswith("/api/v1/result/"):
            task_id = path.rsplit("/", 1)[1]
            if task_id not in self.polls:
                return self.json({"error": {"type": "not_found_error", "message": "no task"}}, 404)
            index = min(self.polls[task_id], len(self.script) - 1)
            self.polls[task_id] += 1
            status = self.script[index]
            data: dict[str, Any] = {"id": task_id, "created": 1_700_000_000, "status": status}
            if status == "completed":
                data["image_url"] = f"http://cdn.test/media/{task_id}.png"
            if status == "failed":
                data["error"] = self.fail_error
            return self.json(data)
        if request.method == "GET" and request.url.host == "cdn.test":
            return httpx2.Response(200, content=self.media)
        return self.json({"error": {"type": "not_found_error", "message": "no route"}}, 404)

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.requests]
