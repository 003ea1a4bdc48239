"""Issue 15, emulator side: the same spec edges, answered as the spec says.

Task creates answer ``status: failed`` with ``error`` naming the field; asset endpoints a
non-``"0"`` code; text endpoints a 400 in the protocol's error shape with ``param``. (The
client's side of each kind is ``test_validation_edges.py``.)
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.emulator._media import image_pixels, video_pixels
from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import KEY, FakeClock

IMG = "https://example.com/ref.png"
USER_HI = [{"role": "user", "content": "hi"}]
IMAGE_BLOCK: dict[str, Any] = {"type": "image", "source": {"type": "url", "url": IMG}}


async def create(c: httpx2.AsyncClient, path: str, body: Any) -> dict[str, Any]:
    response = await c.post(path, json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def assert_rejected(created: dict[str, Any], field: str, *words: str) -> None:
    """A create refused naming ``field`` first, with every word in its rule."""
    assert created["status"] == "failed", created
    error: str = created["error"]
    assert error.startswith(f"{field}: "), error
    for word in words:
        assert word.lower() in error.lower(), error


async def text_400(app: Any, path: str, body: Any | bytes) -> dict[str, Any]:
    async with client(app, prefix="/gateway") as c:
        if isinstance(body, bytes):
            headers = {"content-type": "application/json"}
            response = await c.post(path, content=body, headers=headers)
        else:
            response = await c.post(path, json=body)
    assert response.status_code == 400, response.text
    data = response.json()
    if path == "/v1/messages":  # Anthropic's envelope, exactly: no ``param`` in it
        assert set(data) == {"type", "error", "request_id"}, data
        assert data["type"] == "error", data
        assert set(data["error"]) == {"type", "message"}, data
    else:  # OpenAI's envelope
        assert set(data) == {"error"}, data
        assert set(data["error"]) == {"message", "type", "param", "code"}, data
    error: dict[str, Any] = data["error"]
    assert error["type"] == "invalid_request_error"
    return error


def field_named(path: str, error: dict[str, Any]) -> str:
    """The field a text 400 names, read from the protocol's own envelope.

    OpenAI's carries it in ``param``; Anthropic's has no such key, so the field is the
    ``<field>: `` that starts the message (the user reads the field there).
    """
    if path == "/v1/messages":
        message: str = error["message"]
        field, sep, _ = message.partition(": ")
        assert sep, message
        return field
    param: str = error["param"]
    assert error["message"].startswith(f"{param}: "), error["message"]
    return param


# --- 1. size ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size",
    [
        "\uff11\uff10\uff12\uff14x\uff11\uff10\uff12\uff14",
        "\u0661\u0660\u0662\u0664x\u0661\u0660\u0662\u0664",
        "1024x1024\n",
        " 1024x1024",
    ],
)
async def test_image2_create_with_a_non_ascii_or_padded_size_fails(size: str) -> None:
    async with client(make_app(FakeClock())) as c:
        body = {**VALID_BODIES["image2"], "size": size}
        del body["ratio"]
        created = await create(c, path_of("image2"), body)
    assert_rejected(created, "size", "WIDTHxHEIGHT")


def test_the_renderer_reads_ascii_digits_only() -> None:
    assert image_pixels("image2", "gpt-image-2", {"size": "1024x1536"}) == (1024, 1536)
    for size in ("\uff11\uff10\uff12\uff14x1024", "\u0661\u0660x10", "\u00b2x2"):
        with pytest.raises(ValueError, match="WxH"):
            image_pixels("image2", "gpt-image-2", {"size": size})
    with pytest.raises(ValueError, match="aspect ratio"):
        video_pixels("\uff11\uff16:9")


# --- 2. messages + GPT: images anywhere ---------------------------------------------------------


def _tool_turns(*content: dict[str, Any]) -> list[dict[str, Any]]:
    """A protocol-shaped tool round whose answer (``messages[2]``) holds ``content``."""
    call = {"type": "tool_use", "id": "t1", "name": "chart", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": list(content)}
    return [
        {"role": "user", "content": "plot it"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [result]},
    ]


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ([IMAGE_BLOCK], "messages[2].content[0].content[0]"),
        ([{"type": "text", "text": "chart:"}, IMAGE_BLOCK], "messages[2].content[0].content[1]"),
    ],
)
async def test_messages_gpt_image_inside_tool_result_is_a_400_naming_it(
    content: list[dict[str, Any]], field: str
) -> None:
    body = {"model": "gpt-5.5", "max_tokens": 16, "messages": _tool_turns(*content)}
    error = await text_400(make_app(), "/v1/messages", body)
    assert f"{field}: image input on the messages endpoint" in error["message"]
    assert "GPT" in error["message"]


async def test_messages_claude_takes_an_image_inside_tool_result() -> None:
    content = [{"type": "text", "text": "x"}, IMAGE_BLOCK]
    body = {"model": "claude-sonnet-4-6", "max_tokens": 16, "messages": _tool_turns(*content)}
    async with client(make_app(), prefix="/gateway") as c:
        response = await c.post("/v1/messages", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["type"] == "message"


# --- 3. model names -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family_id", "model", "owner"),
    [
        ("veo", "nano-banana", "Nano Banana"),
        ("grok", "viduq3-pro", "Vidu"),
        ("vidu", "sd2_manxue_4k", "SD2"),
        ("videos", "claude-opus-4-6", "text models"),
    ],
)
async def test_a_create_with_another_familys_model_fails(
    family_id: str, model: str, owner: str
) -> None:
    async with client(make_app(FakeClock())) as c:
        created = await create(c, path_of(family_id), {**VALID_BODIES[family_id], "model": model})
    assert_rejected(created, "model", owner, FAMILIES[family_id].title)
    assert created["model"] == model


async def test_an_image_model_on_chat_completions_is_a_400_naming_model() -> None:
    body = {"model": "gpt-image-2", "messages": USER_HI}
    error = await text_400(make_app(), "/v1/chat/completions", body)
    assert field_named("/v1/chat/completions", error) == "model"
    assert "GPT Image 2" in error["message"]


@pytest.mark.parametrize("family_id", ["veo", "vidu", "sd2_manxue", "grok"])
async def test_an_unknown_model_name_is_accepted(family_id: str) -> None:
    async with client(make_app(FakeClock())) as c:
        body = {**VALID_BODIES[family_id], "model": "brand-new-9"}
        created = await create(c, path_of(family_id), body)
    assert created["status"] == "queued"
    assert created["error"] is None


# --- 4. seedance Han characters ----------------------------------------------------------------


@pytest.mark.parametrize("char", ["\U00020000", "\U00030000", "\uf900", "\U0002f800"])
async def test_seedance_create_counts_han_characters_of_every_block(char: str) -> None:
    async with client(make_app(FakeClock())) as c:
        body = {**VALID_BODIES["seedance"], "content": [{"type": "text", "text": char * 501}]}
        created = await create(c, path_of("seedance"), body)
        body["content"] = [{"type": "text", "text": char * 500}]
        accepted = await create(c, path_of("seedance"), body)
    assert_rejected(created, "content[0].text", "500", "got 501")
    assert accepted["status"] == "queued"


# --- 5. malformed parts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        (
            "/v1/chat/completions",
            {
                "model": "gpt-5.4",
                "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}],
            },
            "messages[0].content[0].image_url.url",
        ),
        (
            "/v1/chat/completions",
            {"model": "gpt-5.4", "messages": [{"role": "user", "content": [{"type": "text"}]}]},
            "messages[0].content[0].text",
        ),
        (
            "/v1/messages",
            {
                "model": "claude-sonnet-4-6",
                "max_tokens": 8,
                "messages": [{"role": "user", "content": [{"type": "image"}]}],
            },
            "messages[0].content[0].source",
        ),
        (
            "/v1/messages",
            {
                "model": "claude-sonnet-4-6",
                "max_tokens": 8,
                "messages": [
                    {"role": "user", "content": [{"type": "image", "source": {"type": "url"}}]}
                ],
            },
            "messages[0].content[0].source.url",
        ),
    ],
)
async def test_malformed_parts_get_a_400_naming_the_part(path: str, body: Any, param: str) -> None:
    error = await text_400(make_app(), path, body)
    assert field_named(path, error) == param
    assert error["message"].startswith(f"{param}: ")


# --- 6. starvideos reference video 3-10 s ------------------------------------------------------

STAR = {"model": "starvideos_o3", "prompt": "a comet"}


async def first_poll(c: httpx2.AsyncClient, clock: FakeClock, task_id: str) -> dict[str, Any]:
    clock.advance(60)
    response = await c.get(f"/v1/result/{task_id}")
    assert response.status_code == 200
    data: dict[str, Any] = response.json()
    return data


@pytest.mark.parametrize(
    ("url", "seconds"),
    [
        ("https://example.com/v.mp4#t=2", "2 s"),
        ("https://example.com/v.mp4#t=2.9", "2.9 s"),
        ("https://example.com/v.mp4#t=10.5", "10.5 s"),
        ("https://example.com/v.mp4?duration=11", "11 s"),
        ("https://example.com/v.mp4#t=5,17", "12 s"),
    ],
)
async def test_a_reference_video_outside_3_to_10_s_fails_the_task(url: str, seconds: str) -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(c, path_of("starvideos"), {**STAR, "referenceVideos": [url]})
        assert created["status"] == "queued"
        result = await first_poll(c, clock, created["id"])
    assert result["status"] == "failed"
    assert result["error"].startswith("referenceVideos[0]: ")
    assert seconds in result["error"]
    assert "3 to 10 s" in result["error"]


@pytest.mark.parametrize(("fragment", "length"), [("#t=3", 3.0), ("#t=10", 10.0), ("", 5.0)])
async def test_a_reference_video_of_3_to_10_s_completes_with_its_length(
    fragment: str, length: float
) -> None:
    clock = FakeClock()
    url = f"https://example.com/v.mp4{fragment}"
    async with client(make_app(clock)) as c:
        created = await create(c, path_of("starvideos"), {**STAR, "referenceVideos": [url]})
        clock.advance(3600)
        result = (await c.get(f"/v1/result/{created['id']}")).json()
        task = c._transport.app.state.emulator.tasks.get(created["id"])  # type: ignore[attr-defined]
    assert result["status"] == "completed"
    assert task.spec.seconds == length


async def test_an_asset_reference_video_is_measured_by_its_assets_url() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        ids = []
        for url in ("https://example.com/long.mp4#t=14", "https://example.com/ok.mp4#t=8"):
            body = {"assetType": "Video", "url": url}
            data = (await c.post("/svcVideo2/asset/upload", json=body)).json()
            ids.append(data["data"]["assetId"])
        clock.advance(60)  # reviews end: Active
        long_task = await create(
            c, path_of("starvideos"), {**STAR, "referenceVideos": [f"asset://{ids[0]}"]}
        )
        ok_task = await create(
            c, path_of("starvideos"), {**STAR, "referenceVideos": [f"asset://{ids[1]}"]}
        )
        failed = await first_poll(c, clock, long_task["id"])
        task = c._transport.app.state.emulator.tasks.get(ok_task["id"])  # type: ignore[attr-defined]
    assert failed["status"] == "failed"
    assert failed["error"].startswith("referenceVideos[0]: ")
    assert "14 s" in failed["error"]
    assert task.outcome == "completed"
    assert task.spec.seconds == 8.0


# --- 7. asset uploads of non-public URLs -------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["http://localhost/a.png", "http://10.1.2.3/a.png", "http://[::1]/a.png", "http://127.1/a.png"],
)
async def test_both_libraries_answer_a_non_zero_code_for_non_public_urls(url: str) -> None:
    async with client(make_app(FakeClock())) as c:
        seedance2 = (
            await c.post("/svcVideo2/asset/upload", json={"assetType": "Image", "url": url})
        ).json()
        sd2 = (await c.post("/asset/sd2Manxue/assetUpload", json={"imageUrls": [IMG, url]})).json()
    assert seedance2["code"] == "400"
    assert seedance2["data"] is None
    assert seedance2["msg"].startswith("url: must be publicly reachable")
    assert sd2["code"] == "400"
    assert sd2["msg"].startswith("imageUrls[1]: must be publicly reachable")
    assert sd2["data"]["items"] == []  # nothing was submitted, the good URL included
    (item,) = sd2["data"]["failedItems"]
    assert item["url"] == url
    assert item["assetType"] == "Image"
    assert "publicly reachable" in item["reason"]


async def test_the_emulators_own_urls_are_accepted_by_both_libraries() -> None:
    """Its results (and in demo mode the files the Studio hands it) are its public URLs."""
    clock = FakeClock()
    app = make_app(clock)
    async with client(app) as c:
        image = await create(c, path_of("image2"), VALID_BODIES["image2"])
        clock.advance(3600)
        result = (await c.get(f"/v1/result/{image['id']}")).json()
        own = result["image_url"]
        assert own.startswith("http://emu.test/api/media/")
        seedance2 = (
            await c.post("/svcVideo2/asset/upload", json={"assetType": "Image", "url": own})
        ).json()
        sd2 = (await c.post("/asset/sd2Manxue/assetUpload", json={"imageUrls": [own]})).json()
    assert seedance2["code"] == "0", seedance2
    assert sd2["code"] == "0", sd2
    assert [i["originalUrl"] for i in sd2["data"]["items"]] == [own]


async def test_loopback_emulator_accepts_its_own_origin_and_refuses_another_port() -> None:
    app = make_app(FakeClock())
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://127.0.0.1:8765/api",
        headers={"Authorization": f"Bearer {KEY}"},
    ) as c:
        own = {"assetType": "Image", "url": "http://127.0.0.1:8765/api/files/upload-1.png"}
        other = {"assetType": "Image", "url": "http://127.0.0.1:8766/files/upload-1.png"}
        accepted = (await c.post("/svcVideo2/asset/upload", json=own)).json()
        refused = (await c.post("/svcVideo2/asset/upload", json=other)).json()
    assert accepted["code"] == "0"
    assert refused["code"] == "400"
    assert refused["msg"].startswith("url: ")


# --- 8. NaN / Infinity -------------------------------------------------------------------------

HUGE = b"1e999"  # read as infinity by Python's json: the emulator must still refuse it


async def test_an_infinite_number_fails_a_create_naming_the_field() -> None:
    async with client(make_app(FakeClock())) as c:
        for family_id, field in (("sora", "duration"), ("veo", "seed"), ("banana", "seed")):
            raw = b'{"model": "%s", "prompt": "x", "%s": %s}' % (
                VALID_BODIES[family_id]["model"].encode(),
                field.encode(),
                HUGE,
            )
            response = await c.post(
                path_of(family_id), content=raw, headers={"content-type": "application/json"}
            )
            assert_rejected(response.json(), field, "finite")


async def test_an_infinite_number_is_a_400_on_both_text_endpoints() -> None:
    hi = b'"messages": [{"role": "user", "content": "hi"}]'
    chat = b'{"model": "gpt-5.4", ' + hi + b', "temperature": 1e999}'
    error = await text_400(make_app(), "/v1/chat/completions", chat)
    assert field_named("/v1/chat/completions", error) == "temperature"
    assert "finite" in error["message"]
    messages = b'{"model": "claude-sonnet-4-6", "max_tokens": 8, ' + hi + b', "top_p": -1e999}'
    error = await text_400(make_app(), "/v1/messages", messages)
    assert field_named("/v1/messages", error) == "top_p"
    assert "finite" in error["message"]


async def test_an_infinite_number_is_a_non_zero_code_on_the_asset_libraries() -> None:
    async with client(make_app(FakeClock())) as c:
        headers = {"content-type": "application/json"}
        upload = b'{"assetType": "Image", "url": "https://example.com/a.png", "w": 1e999}'
        data = (await c.post("/svcVideo2/asset/upload", content=upload, headers=headers)).json()
        sd2 = b'{"imageUrls": ["https://example.com/a.png"], "weight": -1e999}'
        sd2_data = (
            await c.post("/asset/sd2Manxue/assetUpload", content=sd2, headers=headers)
        ).json()
    assert data["code"] == "400"
    assert data["msg"].startswith("w: must be a finite number")
    assert sd2_data["code"] == "400"
    assert sd2_data["msg"].startswith("weight: must be a finite number")


@pytest.mark.parametrize(
    ("prefix", "path"),
    [
        ("/api", "/v1/sora/videos"),
        ("/api", "/svcVideo2/asset/upload"),
        ("/gateway", "/v1/chat/completions"),
        ("/gateway", "/v1/messages"),
    ],
)
@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
async def test_nan_and_infinity_literals_are_not_json_on_every_path(
    prefix: str, path: str, literal: bytes
) -> None:
    async with client(make_app(FakeClock()), prefix=prefix) as c:
        raw = b'{"model": "neutralSora2Plus", "prompt": "x", "temperature": ' + literal + b"}"
        response = await c.post(path, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert "not valid JSON" in message
    assert literal.decode().lstrip("-") in message
