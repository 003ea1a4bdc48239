"""Fuzzing what a hostile caller or service controls, within bounded time and memory.

Hypothesis drives three inputs through the real code paths: JSON Schemas of chat requests
(structured output and tool arguments, both protocols) into the emulator, upload headers,
names and bytes into the emulator's file store and back out of its media route, and task ids
from a service into the client's ``Task.download``. Properties: no answer is a 500, no
example takes longer than ``DEADLINE`` (Hypothesis fails a slower one), the process grows
by less than ``MAX_GROWTH_MB`` over a run, media are never served as active content, and no
file is written outside its folder. Examples are bounded (``EXAMPLES`` per test, derandomised)
so the run suits CI; raise ``MEDIAGEN_FUZZ_EXAMPLES`` for a longer hunt.
"""

from __future__ import annotations

import asyncio
import os
import resource
import sys
import tempfile
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import create_app
from tests._support import FUZZ_RANDOM, KEY, FakeClock
from tests.client_fakes import BASE, TEXT, png_bytes

EXAMPLES = int(os.environ.get("MEDIAGEN_FUZZ_EXAMPLES", "40"))
DEADLINE = timedelta(seconds=2)
MAX_GROWTH_MB = 400
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=DEADLINE,
    derandomize=not FUZZ_RANDOM,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PASSIVE = ("image/", "video/", "audio/", "application/pdf", "application/octet-stream")
APP = create_app(api_key=KEY, seed=3)


def peak_mb() -> float:
    """The process's peak resident size so far, in MB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


@pytest.fixture(autouse=True)
def bounded_memory() -> Iterator[None]:
    """Each fuzz test leaves the process's peak memory less than ``MAX_GROWTH_MB`` higher."""
    before = peak_mb()
    yield
    assert peak_mb() - before < MAX_GROWTH_MB


def run(coro_fn: Callable[[httpx2.AsyncClient], Any], prefix: str = "/api") -> Any:
    """Run ``coro_fn(client)`` against the shared emulator app on a fresh loop."""

    async def main() -> Any:
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=APP),
            base_url=f"http://emu.test{prefix}",
            headers={"Authorization": f"Bearer {KEY}"},
            timeout=30,
        ) as http:
            return await coro_fn(http)

    return asyncio.run(main())


# -- chat schemas ------------------------------------------------------------------------------

HOSTILE_PATTERNS = ["^(a+)+$", "(a|a)*b", "(x+x+)+y", "[", "\\", "(?=a)*", "a{0,99999}", ".*"]
NUMBERS = st.one_of(
    st.integers(-3, 5),
    st.sampled_from([10**3, 10**5, 2 * 10**6, 1_500_000_000, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
REFS = st.sampled_from(["#", "#/$defs/a", "#/$defs/b", "#/properties/x", "#/nope", "other.json"])
NAMES = st.one_of(st.sampled_from(["x", "city", "a" * 40 + "!", ""]), st.text(max_size=12))


def schemas() -> st.SearchStrategy[Any]:
    leaves = st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "boolean", "null", "array"]),
            "minLength": NUMBERS,
            "maxLength": NUMBERS,
            "minItems": NUMBERS,
            "maxItems": NUMBERS,
            "minimum": NUMBERS,
            "multipleOf": NUMBERS,
            "pattern": st.sampled_from(HOSTILE_PATTERNS),
            "format": st.sampled_from(["date-time", "email", "uuid", "nope"]),
            "enum": st.lists(st.text(max_size=5), max_size=3),
            "$ref": REFS,
            "description": st.sampled_from(["{minLength: 900000000}", "{minItems: 5}", "ok"]),
        },
    )

    def nest(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.builds(
                lambda props: {"type": "object", "properties": props, "required": sorted(props)},
                st.dictionaries(NAMES, inner, max_size=3),
            ),
            st.builds(
                lambda item, low: {"type": "array", "items": item, "minItems": low}, inner, NUMBERS
            ),
            st.builds(lambda parts: {"allOf": parts}, st.lists(inner, max_size=3)),
            st.builds(lambda parts: {"anyOf": parts}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda a, b: {"$defs": {"a": a, "b": b}, "$ref": "#/$defs/a"}, inner, inner),
        )

    return st.recursive(leaves, nest, max_leaves=12)


def chat_body(schema: Any) -> dict[str, Any]:
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}
    return {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "go"}],
        "response_format": fmt,
    }


def messages_body(schema: Any) -> dict[str, Any]:
    tool_schema = {"type": "object", "properties": {"arg": schema}, "required": ["arg"]}
    if isinstance(schema, dict) and "$defs" in schema:
        tool_schema["$defs"] = schema["$defs"]
    tool = {"name": "fill", "description": "fill", "input_schema": tool_schema}
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 100,
        "tools": [tool],
        "messages": [{"role": "user", "content": "go"}],
        "tool_choice": {"type": "any"},
    }


@FUZZ
@given(schemas())
def test_fuzzed_chat_schemas_never_get_a_500(schema: Any) -> None:
    async def send(http: httpx2.AsyncClient) -> list[int]:
        chat = await http.post("/v1/chat/completions", json=chat_body(schema))
        messages = await http.post("/v1/messages", json=messages_body(schema))
        return [chat.status_code, messages.status_code]

    statuses = run(send, prefix="/gateway")
    assert all(status in (200, 400) for status in statuses), statuses


# -- upload headers ------------------------------------------------------------------------------

CONTENT_TYPES = st.one_of(
    st.sampled_from(
        [
            "image/png",
            "image/x, text/html",
            "image/svg+xml",
            "video/mp4",
            "audio/mpeg",
            "application/pdf",
            "text/html",
            "image/png; charset=x",
        ]
    ),
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30),
)
BODIES = st.one_of(
    st.binary(min_size=1, max_size=300),
    st.sampled_from(
        [
            b"<html><script>alert(1)</script>",
            b"<svg><script>x()</script></svg>",
            png_bytes(),
            b"GIF89a" + b"\0" * 20,
        ]
    ),
)
FILE_NAMES = st.one_of(st.text(max_size=40), st.sampled_from(["../../etc/passwd", "/abs", "a\\b"]))


@FUZZ
@given(CONTENT_TYPES, FILE_NAMES, BODIES)
def test_fuzzed_uploads_are_stored_and_served_safely(ctype: str, name: str, data: bytes) -> None:
    async def send(http: httpx2.AsyncClient) -> tuple[int, httpx2.Response | None, str]:
        answer = await http.post(
            "/uploads", params={"name": name}, content=data, headers={"Content-Type": ctype}
        )
        if answer.status_code != 200:
            return answer.status_code, None, ""
        url = answer.json()["data"]["url"]
        return 200, await http.get(url), url

    status, served, url = run(send)
    assert status < 500
    if served is None:
        return
    assert served.status_code == 200
    assert served.content == data
    assert served.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in served.headers["content-security-policy"]
    assert served.headers["content-type"].startswith(PASSIVE)
    segments = httpx2.URL(url).path.split("/")
    assert segments[:4] == ["", "api", "media", "uploads"]
    assert len(segments) == 6
    assert ".." not in segments


# -- task ids ----------------------------------------------------------------------------------

TASK_IDS = st.one_of(
    st.text(min_size=1, max_size=60),
    st.sampled_from(["../../x", "/abs/x", "..", ".", "a/../../b", "C:\\x", "~/x", "\0x"]),
)


def download_in(folder: Path, task_id: str) -> Path:
    """Complete a task whose id is ``task_id`` on a fake service and download it to ``folder``."""
    media = png_bytes()

    def service(request: httpx2.Request) -> httpx2.Response:
        if request.url.host == "cdn.test":
            return httpx2.Response(200, content=media)
        body: dict[str, Any] = {"id": task_id, "created": 1, "object": "image"}
        if request.method == "POST":
            return httpx2.Response(200, json={**body, "status": "queued"})
        url = "http://cdn.test/m.png"
        return httpx2.Response(200, json={**body, "status": "completed", "image_url": url})

    async def main() -> Path:
        clock = FakeClock()
        transport = httpx2.MockTransport(service)
        async with AsyncClient(
            KEY, BASE, TEXT, transport, sleep=clock.sleep, clock=clock, recorder=None
        ) as client:
            task = await client.images.create("nano-banana", prompt="a square")
            await task.wait()
            return await task.download(folder)

    return asyncio.run(main())


@FUZZ
@given(TASK_IDS)
def test_fuzzed_task_ids_never_write_outside_the_folder(task_id: str) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "chosen"
        folder.mkdir()
        saved = download_in(folder, task_id)
        written = [p for p in Path(root).rglob("*") if p.is_file()]
        assert saved.parent.resolve() == folder.resolve()
        assert written == [saved]


@FUZZ
@given(TASK_IDS)
def test_fuzzed_task_ids_never_get_a_500_from_the_emulator(task_id: str) -> None:
    async def poll(http: httpx2.AsyncClient) -> int:
        answer = await http.get(f"/v1/result/{quote(task_id, safe='')}")
        return answer.status_code

    assert run(poll) < 500
