"""The emulator's HTTP front: auth, error shapes, headers and hostile input (in process)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

import httpx2
import pytest

from mediagen_nb._serverkit.body import MAX_BODY_BYTES
from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import KEY, FakeClock

SPEED = "x-mediagen-emulator-speed"
JSON = {"content-type": "application/json"}


def assert_error(response: httpx2.Response, status: int, kind: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    if response.request.url.path == "/gateway/v1/messages":
        assert body["type"] == "error"  # the Anthropic envelope, with the request's id
        assert body.pop("request_id") == response.headers["request-id"]
        del body["type"]
    assert set(body) == {"error"}
    assert body["error"]["type"] == kind
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    assert response.headers[SPEED] == "1"
    assert response.headers["x-request-id"].startswith("req_")
    assert response.headers["request-id"] == response.headers["x-request-id"]


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {KEY}"},
        {"Authorization": f"Bearer {KEY}x"},
        {"Authorization": "Bearer"},
        {"x-api-key": "nope"},
        {"Authorization": "Bearer ключ".encode()},
    ],
)
@pytest.mark.parametrize(
    "path", ["/api/v1/result/x", "/api/v1/sora/videos", "/gateway/v1/messages", "/api/nowhere"]
)
async def test_requests_without_the_right_key_get_401(headers: dict[str, Any], path: str) -> None:
    async with client(make_app(), key=None, prefix="") as c:
        response = await c.post(path, json={}, headers=headers)
    assert_error(response, 401, "authentication_error")
    assert response.headers["www-authenticate"] == "Bearer"
    assert KEY not in response.text


@pytest.mark.parametrize(
    "headers",
    [{"Authorization": f"Bearer {KEY}"}, {"Authorization": f"bearer  {KEY}"}, {"x-api-key": KEY}],
)
async def test_the_right_key_is_accepted_in_either_header(headers: dict[str, str]) -> None:
    async with client(make_app(), key=None) as c:
        response = await c.post(path_of("banana"), json=VALID_BODIES["banana"], headers=headers)
    assert response.status_code == 200
    assert response.headers[SPEED] == "1"


async def test_speed_header_reports_the_speed() -> None:
    async with client(make_app(speed=12.5)) as c:
        response = await c.get("/v1/result/none")
    assert response.headers[SPEED] == "12.5"


async def test_unknown_path_404_and_wrong_method_405() -> None:
    async with client(make_app(), prefix="") as c:
        assert_error(await c.get("/api/v2/result/x"), 404, "not_found_error")
        assert_error(await c.get("/"), 404, "not_found_error")
        assert_error(await c.post("/api/v1/unknown/videos", json={}), 404, "not_found_error")
        wrong = await c.put("/api/v1/result/x", json={})
        assert_error(wrong, 405, "method_not_allowed_error")
        assert "GET" in wrong.headers["allow"]
        assert_error(await c.get("/api/v1/sora/videos"), 405, "method_not_allowed_error")
        assert_error(
            await c.delete("/gateway/v1/chat/completions"), 405, "method_not_allowed_error"
        )


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"{bad json", "not valid JSON"),
        (b"", "empty"),
        (b"   ", "empty"),
        (b'{"prompt": NaN}', "not valid JSON"),
        (b'{"a": Infinity}', "not valid JSON"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"prompt": "\\ud800"}', "surrogate"),
        (b'{"prompt": "a\x01b"}', "not valid JSON"),
        (b'{"a": 1} trailing', "not valid JSON"),
    ],
)
@pytest.mark.parametrize(
    "path",
    ["/api/v1/seedance/videos", "/api/svcVideo2/asset/upload", "/gateway/v1/chat/completions"],
)
async def test_malformed_json_is_400(content: bytes, why: str, path: str) -> None:
    async with client(make_app(), prefix="") as c:
        response = await c.post(path, content=content, headers={"content-type": "application/json"})
    assert_error(response, 400, "invalid_request_error")
    assert why in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "ctype",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "application/jsonx",
    ],
)
async def test_wrong_content_type_is_415(ctype: str | None) -> None:
    headers = {"content-type": ctype} if ctype else {}
    async with client(make_app()) as c:
        response = await c.post(path_of("sora"), content=b"{}", headers=headers)
    assert_error(response, 415, "unsupported_media_type_error")


@pytest.mark.parametrize(
    "ctype", ["application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.api+json"]
)
async def test_json_content_type_variants_are_accepted(ctype: str) -> None:
    async with client(make_app()) as c:
        body = json.dumps(VALID_BODIES["sora"]).encode()
        response = await c.post(path_of("sora"), content=body, headers={"content-type": ctype})
    assert response.status_code == 200
    assert response.json()["status"] == "queued"


async def test_declared_oversize_body_is_413() -> None:
    big = b'{"prompt": "' + b"x" * MAX_BODY_BYTES + b'"}'
    async with client(make_app()) as c:
        response = await c.post(
            path_of("banana"), content=big, headers={"content-type": "application/json"}
        )
    assert_error(response, 413, "request_too_large_error")


async def test_streamed_oversize_body_is_413() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"prompt": "'
        for _ in range(20):
            yield b"y" * 65_536
        yield b'"}'

    async with client(make_app()) as c:
        response = await c.post(
            path_of("banana"), content=chunks(), headers={"content-type": "application/json"}
        )
    assert "content-length" not in response.request.headers
    assert_error(response, 413, "request_too_large_error")


async def test_bad_content_length_is_400() -> None:
    app = make_app()
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/sora/videos",
        "raw_path": b"/api/v1/sora/videos",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"authorization", f"Bearer {KEY}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", b"-5"),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }
    await app(scope, receive, send)
    assert sent[0]["status"] == 400


async def test_control_characters_in_the_path_are_400() -> None:
    async with client(make_app()) as c:
        for path in ("/v1/result/a%00b", "/v1/result/%0d%0aSet-Cookie:x", "/svcVideo2/asset/%7f"):
            assert_error(await c.get(path), 400, "invalid_request_error")


async def test_unicode_and_escaped_control_characters_in_prompts_render() -> None:
    clock = FakeClock()
    prompt = "日本語 🚀 مرحبا \u202e rtl \u0000 nul \t tab \ud83d\ude00 pair"
    async with client(make_app(clock)) as c:
        body = json.dumps({**VALID_BODIES["banana"], "prompt": prompt})  # ASCII: escapes only
        created = (await c.post(path_of("banana"), content=body, headers=JSON)).json()
        clock.advance(600)
        result = (await c.get(f"/v1/result/{created['id']}")).json()
        image = await c.get(result["image_url"])
    assert result["status"] == "completed"
    assert image.status_code == 200
    assert image.content.startswith(b"\x89PNG")


async def test_hostile_model_strings_are_echoed_safely() -> None:
    model = "\u0000<script>" + "é" * 300
    async with client(make_app()) as c:
        created = (await c.post(path_of("banana"), json={"model": model, "prompt": "x"})).json()
    assert created["status"] == "failed"
    assert created["model"] == model[:200]


async def test_hostile_host_header_does_not_reach_media_urls() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = (await c.post(path_of("banana"), json=VALID_BODIES["banana"])).json()
        clock.advance(600)
        result = await c.get(f"/v1/result/{created['id']}", headers={"host": "evil.test/<x>"})
    assert result.json()["image_url"].startswith("http://emu.test/api/media/")


async def test_server_keeps_serving_after_hostile_requests() -> None:
    async with client(make_app()) as c:
        await c.post(
            path_of("sora"), content=b"\x00\x01", headers={"content-type": "application/json"}
        )
        await c.post(
            path_of("sora"), content=b"{" * 5000, headers={"content-type": "application/json"}
        )
        await c.get("/v1/result/" + "%ff" * 50)
        response = await c.post(path_of("sora"), json=VALID_BODIES["sora"])
    assert response.status_code == 200
