"""Results and JSON answers are read within their caps, against a loopback server that streams.

Property: however large a result or an answer says (or turns out) to be, the client's peak
memory (``tracemalloc``) stays bounded by the cap, not by the body, and the refusal is a
``ResponseTooLargeError`` naming the limit. The server streams zeros through a real socket
and closes after ``SERVED`` bytes, so a client that reads everything shows it in its peak.
"""

from __future__ import annotations

import asyncio
import json
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from mediagen_nb.client import (
    AsyncClient,
    ConfigurationError,
    ResponseTooLargeError,
)
from mediagen_nb.client._limits import DEFAULT_MAX_DOWNLOAD, MAX_JSON_BYTES, MIB, download_limits
from tests._loopback import Answer, Loopback, chunks, zeros
from tests._support import KEY, FakeClock
from tests.client_fakes import png_bytes

SERVED = 48 * MIB
"""What the server sends at most before it closes the connection."""
DECLARED = 2 * 1024 * MIB
"""The size the hostile result declares: 2 GiB."""


def _json(data: Any) -> Answer:
    body = json.dumps(data).encode()
    headers = {"content-type": "application/json", "content-length": str(len(body))}
    return Answer(200, headers, chunks(body))


def service(media: Callable[[], Answer], poll: Callable[[], Answer] | None = None) -> Any:
    """A route: create and poll an image task whose result is at ``/media/r``."""
    base: dict[str, Any] = {"id": "task_1", "object": "image", "created": 1}

    def route(method: str, path: str) -> Answer:
        if path == "/media/r":
            return media()
        if method == "POST":
            return _json({**base, "status": "queued"})
        if poll is not None:
            return poll()
        return _json({**base, "status": "completed", "image_url": "/media/r"})

    return route


async def peak_of(action: Callable[[], Awaitable[Any]]) -> tuple[int, BaseException | None]:
    """Peak traced memory (bytes) while ``action`` runs, and what it raised (or None)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        try:
            await action()
        except Exception as exc:
            return tracemalloc.get_traced_memory()[1], exc
        return tracemalloc.get_traced_memory()[1], None
    finally:
        tracemalloc.stop()


async def fetch_result(route: Any, **client_args: Any) -> tuple[int, BaseException | None, int]:
    """Create, wait for and read the task's result through a real socket: (peak, error, sent)."""
    clock = FakeClock()
    async with Loopback(route) as server:
        async with AsyncClient(
            KEY,
            f"{server.url}/api",
            f"{server.url}/text",
            sleep=clock.sleep,
            clock=clock,
            recorder=None,
            **client_args,
        ) as client:
            task = await client.images.create("nano-banana", prompt="a square")
            await task.wait()
            peak, error = await peak_of(task.read_bytes)
        return peak, error, server.sent


def test_a_declared_2_gib_result_is_refused_before_its_body_is_read() -> None:
    def media() -> Answer:
        return Answer(200, {"content-length": str(DECLARED)}, zeros(SERVED))

    peak, error, sent = asyncio.run(fetch_result(service(media)))
    print(f"declared 2 GiB: peak {peak / MIB:.1f} MiB, server sent {sent / MIB:.1f} MiB")
    assert isinstance(error, ResponseTooLargeError)
    assert (error.limit, error.declared) == (DEFAULT_MAX_DOWNLOAD["image"], DECLARED)
    assert peak < 8 * MIB


def test_an_undeclared_body_stops_at_the_cap_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEDIAGEN_MAX_DOWNLOAD_MB", "4")

    def media() -> Answer:
        return Answer(200, {}, zeros(SERVED))  # no Content-Length: delimited by the close

    peak, error, sent = asyncio.run(fetch_result(service(media)))
    print(f"undeclared 48 MiB, cap 4 MiB: peak {peak / MIB:.1f} MiB, sent {sent / MIB:.1f} MiB")
    assert isinstance(error, ResponseTooLargeError)
    assert (error.limit, error.declared) == (4 * MIB, None)
    assert peak < 3 * 4 * MIB


def test_a_result_within_a_raised_cap_arrives_whole() -> None:
    picture = png_bytes((600, 600)) + bytes(5 * MIB)

    async def read() -> bytes:
        clock = FakeClock()

        def media() -> Answer:
            return Answer(200, {"content-length": str(len(picture))}, chunks(picture))

        async with (
            Loopback(service(media)) as server,
            AsyncClient(
                KEY,
                f"{server.url}/api",
                f"{server.url}/text",
                sleep=clock.sleep,
                clock=clock,
                recorder=None,
                max_download_bytes={"image": 6 * MIB},
            ) as client,
        ):
            task = await client.images.create("nano-banana", prompt="a square")
            await task.wait()
            return await task.read_bytes()

    assert asyncio.run(read()) == picture


def test_a_json_answer_over_its_cap_is_refused() -> None:
    def huge_poll() -> Answer:
        async def body() -> AsyncIterator[bytes]:
            yield b'{"id": "task_1", "status": "processing", "error": "'
            async for chunk in zeros(MAX_JSON_BYTES + MIB):
                yield chunk.replace(b"\x00", b"x")
            yield b'"}'

        return Answer(200, {"content-type": "application/json"}, body())

    def declared_poll() -> Answer:
        return Answer(200, {"content-length": str(DECLARED)}, zeros(SERVED))

    async def poll(route_poll: Callable[[], Answer]) -> tuple[int, BaseException | None]:
        clock = FakeClock()
        route = service(lambda: _json({}), route_poll)
        async with Loopback(route) as server, AsyncClient(
            KEY, f"{server.url}/api", f"{server.url}/t", sleep=clock.sleep, clock=clock,
            recorder=None,
        ) as client:  # fmt: skip
            return await peak_of(lambda: client.tasks.get("task_1"))

    _peak, error = asyncio.run(poll(huge_poll))
    assert isinstance(error, ResponseTooLargeError)
    assert (error.limit, error.declared) == (MAX_JSON_BYTES, None)
    peak, error = asyncio.run(poll(declared_poll))
    assert isinstance(error, ResponseTooLargeError)
    assert error.declared == DECLARED
    assert peak < 8 * MIB


def test_download_caps_per_kind_and_their_errors() -> None:
    assert download_limits(None, {}) == DEFAULT_MAX_DOWNLOAD
    assert download_limits(5, {}) == {"image": 5, "video": 5}
    assert download_limits({"video": 7}, {}) == {"image": DEFAULT_MAX_DOWNLOAD["image"], "video": 7}
    assert download_limits(None, {"MEDIAGEN_MAX_DOWNLOAD_MB": "1.5"}) == dict.fromkeys(
        ("image", "video"), int(1.5 * MIB)
    )
    bad: list[tuple[Any, dict[str, str]]] = [
        (0, {}),
        (-1, {}),
        (True, {}),
        ({"audio": 5}, {}),
        ({"image": 2.5}, {}),
        (None, {"MEDIAGEN_MAX_DOWNLOAD_MB": "lots"}),
        (None, {"MEDIAGEN_MAX_DOWNLOAD_MB": "-3"}),
        (None, {"MEDIAGEN_MAX_DOWNLOAD_MB": "nan"}),
    ]
    for value, env in bad:
        with pytest.raises(
            ConfigurationError, match=r"max_download_bytes|MEDIAGEN_MAX_DOWNLOAD_MB"
        ):
            download_limits(value, env)
