"""``validate_request``, the client and the emulator agree on every rule, valid and invalid.

For each row of the table (valid and invalid bodies for every family, both text endpoints and
both asset libraries):

* ``validate_request`` finds the expected first error (field and a word of the rule), or none;
* the client (``AsyncClient``) raises ``RequestValidationError`` with the same first problem and
  sends nothing: its transport fails the test on any request for an invalid body; a valid
  body goes through and yields a task / completion / asset answer;
* the emulator, sent the same body directly, rejects it naming the same field and rule
  (create: ``status "failed"``; text: 400 with ``param``; assets: non-``"0"`` code) or
  accepts it.

The panels' part of "all four agree" lives with the widget tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog import FAMILIES, family_for_path
from mediagen_nb.client import AsyncClient, RequestValidationError
from mediagen_nb.emulator import create_app
from mediagen_nb.types import validate_request
from mediagen_nb.types._problem import errors_only
from tests._support import KEY
from tests.reliability._reliability import report

BASE = "http://emulator.test/api"
TEXT = "http://emulator.test/gateway"
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
SEEDANCE2_UPLOAD = "/svcVideo2/asset/upload"
SD2_UPLOAD = "/asset/sd2Manxue/assetUpload"
SD2_STATUS = "/asset/sd2Manxue/assetStatus"
IMG = "https://example.com/ref.png"
IMG2 = "https://example.com/ref2.png"
VID = "https://example.com/clip.mp4"
ASSET = "asset://asset-1700000000-abc123"
USER_HI = [{"role": "user", "content": "hi"}]


@dataclass(frozen=True)
class Row:
    """One body with the verdict every layer must reach."""

    path: str
    body: dict[str, Any]
    field: str | None = None
    """First error's field; None for a valid body."""
    word: str = ""
    """A word the rule must contain (so the message says the rule, not just the field)."""


def ok(path: str, body: dict[str, Any]) -> Row:
    return Row(path, body)


def bad(path: str, body: dict[str, Any], field: str, word: str) -> Row:
    return Row(path, body, field, word)


def _p(family_id: str) -> str:
    return FAMILIES[family_id].create_path


BANANA = {"model": "nano-banana", "prompt": "a red fox"}
IMAGE2 = {"model": "gpt-image-2", "prompt": "a red fox"}
SORA = {"model": "neutralSora2Pro", "prompt": "a paper boat"}
TEXT_OBJ = {"type": "text", "text": "a lighthouse"}
SEEDANCE = {"model": "seedance_1_5_pro_720p", "content": [TEXT_OBJ]}
STAR = {"model": "starvideos_o3", "prompt": "a comet"}
CLAUDE_MSG = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": USER_HI}


def _image(role: str | None = None, url: str = IMG) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "image_url", "image_url": {"url": url}}
    if role:
        item["role"] = role
    return item


def _parts(*parts: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "look"}, *parts]}]


VIDEO_PART = {"type": "video_url", "video_url": {"url": VID}}
IMAGE_PART = {"type": "image_url", "image_url": {"url": IMG}}

ROWS: dict[str, Row] = {
    # banana
    "banana ok pro 4k": ok(
        _p("banana"),
        {**BANANA, "model": "nano-banana-pro", "resolution": "4k", "size": "21:9"},
    ),
    "banana ok 6 refs": ok(_p("banana"), {**BANANA, "image_urls": [IMG] * 6}),
    "banana 2k non-pro": bad(_p("banana"), {**BANANA, "resolution": "2k"}, "resolution", "pro"),
    "banana 7 refs": bad(_p("banana"), {**BANANA, "image_urls": [IMG] * 7}, "image_urls", "6"),
    "banana ratio": bad(_p("banana"), {**BANANA, "size": "2:1"}, "size", "one of"),
    "banana asset ref": bad(
        _p("banana"), {**BANANA, "image_urls": [ASSET]}, "image_urls[0]", "http"
    ),
    "banana unknown model": bad(
        _p("banana"), {**BANANA, "model": "nano-banana-9"}, "model", "unknown"
    ),
    # image2
    "image2 ok size": ok(_p("image2"), {**IMAGE2, "size": "3840x2160"}),
    "image2 ok 4k wide": ok(_p("image2"), {**IMAGE2, "resolution": "4k", "ratio": "21:9"}),
    "image2 ok quality on r (warning)": ok(
        _p("image2"), {**IMAGE2, "model": "gpt-image-2-r", "quality": "high"}
    ),
    "image2 ok 16 refs on r": ok(
        _p("image2"), {**IMAGE2, "model": "gpt-image-2-r", "image_urls": [IMG] * 16}
    ),
    "image2 size multiple": bad(_p("image2"), {**IMAGE2, "size": "1000x1000"}, "size", "16"),
    "image2 size pixels": bad(_p("image2"), {**IMAGE2, "size": "3840x2176"}, "size", "8,294,400"),
    "image2 size aspect": bad(_p("image2"), {**IMAGE2, "size": "2416x800"}, "size", "3 times"),
    "image2 ratio needed": bad(_p("image2"), {**IMAGE2, "resolution": "2k"}, "ratio", "required"),
    "image2 4k square": bad(
        _p("image2"), {**IMAGE2, "resolution": "4k", "ratio": "1:1"}, "resolution", "9:21"
    ),
    "image2 2k on r": bad(
        _p("image2"),
        {**IMAGE2, "model": "gpt-image-2-r", "resolution": "2k", "ratio": "1:1"},
        "resolution",
        "1k",
    ),
    "image2 7 refs": bad(_p("image2"), {**IMAGE2, "image_urls": [IMG] * 7}, "image_urls", "6"),
    "image2 fullwidth size": bad(
        _p("image2"), {**IMAGE2, "size": "\uff11\uff10\uff12\uff14x1024"}, "size", "WIDTHx"
    ),
    "image2 size newline": bad(_p("image2"), {**IMAGE2, "size": "1024x1024\n"}, "size", "WIDTHx"),
    # sora
    "sora ok": ok(_p("sora"), {**SORA, "size": "1280x720", "seconds": 12, "image_urls": [IMG]}),
    "sora size+aspect": bad(
        _p("sora"), {**SORA, "size": "1280x720", "aspect_ratio": "16:9"}, "aspect_ratio", "size"
    ),
    "sora duration+seconds": bad(
        _p("sora"), {**SORA, "duration": 4, "seconds": 4}, "seconds", "exclusive"
    ),
    "sora duration 10": bad(_p("sora"), {**SORA, "duration": 10}, "duration", "12"),
    "sora float duration": bad(_p("sora"), {**SORA, "duration": 8.0}, "duration", "integer"),
    "sora 2 refs": bad(
        _p("sora"), {**SORA, "input_reference": [IMG, IMG2]}, "input_reference", "1"
    ),
    # seedance 1.5
    "seedance ok first+last": ok(
        _p("seedance"),
        {**SEEDANCE, "content": [TEXT_OBJ, _image("first_frame"), _image("last_frame", IMG2)]},
    ),
    "seedance ok 4 refs auto": ok(
        _p("seedance"),
        {**SEEDANCE, "content": [TEXT_OBJ] + [_image("reference_image")] * 4, "duration": -1},
    ),
    "seedance last alone": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [TEXT_OBJ, _image("last_frame")]},
        "content[1].role",
        "first_frame",
    ),
    "seedance mixed scenarios": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [TEXT_OBJ, _image(), _image("reference_image")]},
        "content[2].role",
        "exclusive",
    ),
    "seedance 5 refs": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [TEXT_OBJ] + [_image("reference_image")] * 5},
        "content[5].role",
        "4",
    ),
    "seedance no text": bad(_p("seedance"), {**SEEDANCE, "content": [_image()]}, "content", "text"),
    "seedance 501 CJK": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [{"type": "text", "text": "山" * 501}]},
        "content[0].text",
        "500",
    ),
    "seedance 501 extension-B chars": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [{"type": "text", "text": "\U00020000" * 501}]},
        "content[0].text",
        "500",
    ),
    "seedance 1001 words": bad(
        _p("seedance"),
        {**SEEDANCE, "content": [{"type": "text", "text": "fox " * 1001}]},
        "content[0].text",
        "1000",
    ),
    "seedance duration 13": bad(
        _p("seedance"), {**SEEDANCE, "duration": 13}, "duration", "2 to 12"
    ),
    "seedance duration string": bad(
        _p("seedance"), {**SEEDANCE, "duration": "5"}, "duration", "integer"
    ),
    # starvideos
    "star ok image+video": ok(
        _p("starvideos"), {**STAR, "referenceImages": [IMG] * 4, "referenceVideos": [VID]}
    ),
    "star ok frames": ok(
        _p("starvideos"), {**STAR, "first_image": IMG, "last_image": ASSET, "duration": 15}
    ),
    "star ok ignored duration (warning)": ok(
        _p("starvideos"), {**STAR, "referenceVideos": [VID], "duration": 5}
    ),
    "star first alone": bad(
        _p("starvideos"), {**STAR, "first_image": IMG}, "last_image", "first_image"
    ),
    "star 8 refs": bad(
        _p("starvideos"), {**STAR, "referenceImages": [IMG] * 8}, "referenceImages", "7"
    ),
    "star 5 refs with video": bad(
        _p("starvideos"),
        {**STAR, "referenceImages": [IMG] * 5, "referenceVideos": [VID]},
        "referenceImages",
        "4",
    ),
    "star frames with refs": bad(
        _p("starvideos"),
        {**STAR, "first_image": IMG, "last_image": IMG2, "referenceImages": [IMG]},
        "first_image",
        "combined",
    ),
    "star duration 16": bad(_p("starvideos"), {**STAR, "duration": 16}, "duration", "3 to 15"),
    "star 2 videos": bad(
        _p("starvideos"), {**STAR, "referenceVideos": [VID, VID]}, "referenceVideos", "1"
    ),
    # the six partly documented families
    "veo ok pass-through": ok(
        _p("veo"), {"model": "veo3", "prompt": "x", "resolution": "4k", "seed": 1}
    ),
    "seedance2 ok assets": ok(
        _p("seedance2"),
        {
            "model": "seedance-2.0",
            "prompt": "x",
            "duration": 15,
            "referenceImages": [ASSET],
            "referenceAudios": [ASSET],
        },
    ),
    "vidu ok": ok(_p("vidu"), {"model": "viduq3-pro", "prompt": "x", "duration": 1}),
    "grok ok": ok(_p("grok"), {"model": "grok-video", "prompt": "x", "duration": 30}),
    "videos ok": ok(
        _p("videos"), {"model": "videos-1", "prompt": "x", "first_image": IMG, "last_image": IMG2}
    ),
    "sd2 ok": ok(
        _p("sd2_manxue"), {"model": "sd2_manxue_4k", "prompt": "x", "referenceVideos": [ASSET]}
    ),
    "vidu duration 17": bad(
        _p("vidu"), {"model": "viduq3-turbo", "prompt": "x", "duration": 17}, "duration", "1 to 16"
    ),
    "grok duration 5": bad(
        _p("grok"), {"model": "grok-video", "prompt": "x", "duration": 5}, "duration", "6 to 30"
    ),
    "sd2 unknown model (warning)": ok(_p("sd2_manxue"), {"model": "sd2_manxue_8k", "prompt": "x"}),
    "sd2 vidu model": bad(
        _p("sd2_manxue"), {"model": "viduq3-pro", "prompt": "x"}, "model", "Vidu"
    ),
    "veo banana model": bad(_p("veo"), {"model": "nano-banana", "prompt": "x"}, "model", "banana"),
    "grok vidu model": bad(_p("grok"), {"model": "viduq3-turbo", "prompt": "x"}, "model", "vidu"),
    "videos refs not a list": bad(
        _p("videos"),
        {"model": "videos-1", "prompt": "x", "referenceVideos": VID},
        "referenceVideos",
        "list",
    ),
    "seedance2 bad asset uri": bad(
        _p("seedance2"),
        {"model": "s2", "prompt": "x", "first_image": "asset://"},
        "first_image",
        "asset://",
    ),
    "veo empty prompt": bad(_p("veo"), {"model": "veo3", "prompt": " "}, "prompt", "empty"),
    # chat-completions
    "chat ok gemini video": ok(CHAT, {"model": "gemini-2.5-pro", "messages": _parts(VIDEO_PART)}),
    "chat ok claude image": ok(CHAT, {"model": "claude-opus-4-6", "messages": _parts(IMAGE_PART)}),
    "chat ok both set (warning)": ok(
        CHAT,
        {
            "model": "gpt-5.5-low",
            "messages": USER_HI,
            "temperature": 2,
            "top_p": 0.5,
            "stop": ["a"] * 4,
        },
    ),
    "chat video on gpt": bad(
        CHAT,
        {"model": "gpt-5.4", "messages": _parts(VIDEO_PART)},
        "messages[0].content[1]",
        "Gemini",
    ),
    "chat temperature": bad(
        CHAT, {"model": "gpt-5.4", "messages": USER_HI, "temperature": 2.5}, "temperature", "2"
    ),
    "chat 5 stops": bad(
        CHAT, {"model": "gpt-5.4", "messages": USER_HI, "stop": ["a"] * 5}, "stop", "4"
    ),
    "chat unknown model": bad(
        CHAT, {"model": "claude-opus-4-7-low", "messages": USER_HI}, "model", "unknown"
    ),
    "chat tool role without its call": bad(
        CHAT,
        {"model": "gpt-5.4", "messages": [{"role": "tool", "content": "x"}]},
        "messages[0].tool_call_id",
        "required",
    ),
    "chat function role": bad(
        CHAT,
        {"model": "gpt-5.4", "messages": [{"role": "function", "content": "x"}]},
        "messages[0].role",
        "developer",
    ),
    "messages thinking budget": bad(
        MESSAGES,
        {
            "model": "claude-sonnet-4-6",
            "max_tokens": 1024,
            "messages": USER_HI,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
        },
        "thinking.budget_tokens",
        "less than max_tokens",
    ),
    "chat image_url without url": bad(
        CHAT,
        {"model": "gpt-5.4", "messages": _parts({"type": "image_url", "image_url": {}})},
        "messages[0].content[1].image_url.url",
        "required",
    ),
    "chat empty": bad(CHAT, {"model": "gpt-5.4", "messages": []}, "messages", "at least one"),
    # messages
    "messages ok claude image": ok(
        MESSAGES,
        {
            **CLAUDE_MSG,
            "messages": _parts({"type": "image", "source": {"type": "url", "url": IMG}}),
        },
    ),
    "messages ok gpt text": ok(
        MESSAGES, {**CLAUDE_MSG, "model": "gpt-5.4-official", "system": "brief"}
    ),
    "messages gpt image": bad(
        MESSAGES,
        {**CLAUDE_MSG, "model": "gpt-5.5", "messages": _parts(IMAGE_PART)},
        "messages[0].content[1]",
        "GPT",
    ),
    "messages gpt image in tool_result": bad(
        MESSAGES,
        {
            **CLAUDE_MSG,
            "model": "gpt-5.4",
            "messages": [
                *USER_HI,
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "chart", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "t1",
                            "content": [{"type": "image", "source": {"type": "url", "url": IMG}}],
                        }
                    ],
                },
            ],
        },
        "messages[2].content[0].content[0]",
        "GPT",
    ),
    "messages image without source": bad(
        MESSAGES,
        {**CLAUDE_MSG, "messages": _parts({"type": "image"})},
        "messages[0].content[1].source",
        "required",
    ),
    "messages gemini": bad(MESSAGES, {**CLAUDE_MSG, "model": "gemini-2.5-pro"}, "model", "Claude"),
    "messages max_tokens 0": bad(
        MESSAGES, {**CLAUDE_MSG, "max_tokens": 0}, "max_tokens", "at least 1"
    ),
    "messages system role": bad(
        MESSAGES,
        {**CLAUDE_MSG, "messages": [{"role": "system", "content": "x"}]},
        "messages[0].role",
        "user",
    ),
    "messages temperature": bad(MESSAGES, {**CLAUDE_MSG, "temperature": -1}, "temperature", "0"),
    # asset libraries
    "seedance2 upload ok": ok(
        SEEDANCE2_UPLOAD, {"assetType": "Document", "url": IMG, "name": "doc"}
    ),
    "seedance2 upload type": bad(
        SEEDANCE2_UPLOAD, {"assetType": "image", "url": IMG}, "assetType", "Image"
    ),
    "seedance2 upload url": bad(
        SEEDANCE2_UPLOAD, {"assetType": "Image", "url": ASSET}, "url", "http"
    ),
    "seedance2 upload loopback": bad(
        SEEDANCE2_UPLOAD, {"assetType": "Image", "url": "http://127.0.0.1/a.png"}, "url", "public"
    ),
    "sd2 upload ok": ok(SD2_UPLOAD, {"imageUrls": [IMG], "videoUrls": [VID], "audioUrls": []}),
    "sd2 upload empty": bad(
        SD2_UPLOAD, {"imageUrls": [], "videoUrls": [], "audioUrls": []}, "imageUrls", "at least one"
    ),
    "sd2 upload bad url": bad(
        SD2_UPLOAD,
        {"imageUrls": [], "videoUrls": ["nope"], "audioUrls": []},
        "videoUrls[0]",
        "http",
    ),
    "sd2 upload private host": bad(
        SD2_UPLOAD,
        {"imageUrls": [IMG, "http://192.168.1.4/b.png"], "videoUrls": [], "audioUrls": []},
        "imageUrls[1]",
        "public",
    ),
    "sd2 status ok": ok(SD2_STATUS, {"assetIds": ["some-id"]}),
    "sd2 status empty": bad(SD2_STATUS, {"assetIds": []}, "assetIds", "at least one"),
    "sd2 status blank id": bad(SD2_STATUS, {"assetIds": ["ok", " "]}, "assetIds[1]", "empty"),
}

ALIAS_ROWS: dict[str, Row] = {
    "chat max_tokens alias": bad(
        CHAT, {"model": "gpt-5.4", "messages": USER_HI, "max_tokens": 0}, "max_tokens", "at least 1"
    ),
    "messages stop_sequences": bad(
        MESSAGES, {**CLAUDE_MSG, "stop_sequences": "END"}, "stop_sequences", "array"
    ),
}
"""Protocol aliases (chat ``max_tokens``, messages ``stop_sequences``) every layer checks."""


def _cases() -> list[Any]:
    cases: list[Any] = [pytest.param(row, id=name) for name, row in ROWS.items()]
    cases += [pytest.param(row, id=name) for name, row in ALIAS_ROWS.items()]
    return cases


def test_table_covers_every_endpoint_both_ways() -> None:
    paths = {f.create_path for f in FAMILIES.values()}
    paths |= {CHAT, MESSAGES, SEEDANCE2_UPLOAD, SD2_UPLOAD, SD2_STATUS}
    valid = {row.path for row in ROWS.values() if row.field is None}
    invalid = {row.path for row in ROWS.values() if row.field is not None}
    assert valid == paths
    assert invalid == paths
    rows = [*ROWS.values(), *ALIAS_ROWS.values()]
    report(
        "agreement table",
        rows=len(rows),
        valid=sum(1 for r in rows if r.field is None),
        invalid=sum(1 for r in rows if r.field is not None),
        endpoints=len(paths),
    )


class GuardTransport(httpx2.AsyncBaseTransport):
    """Passes requests to the emulator, or fails the test when nothing may be sent."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.allow = True
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(f"{request.method} {request.url.path}")
        if not self.allow:
            pytest.fail(f"invalid input reached the network: {request.method} {request.url}")
        return await self.inner.handle_async_request(request)


@pytest.fixture
def app() -> Any:
    return create_app(api_key=KEY, speed=1000.0, seed=5)


@pytest.fixture
async def raw(app: Any) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://emulator.test",
        headers={"Authorization": f"Bearer {KEY}"},
    ) as http:
        yield http


@pytest.fixture
def guard(app: Any) -> GuardTransport:
    return GuardTransport(httpx2.ASGITransport(app=app))


@pytest.fixture
async def client(guard: GuardTransport) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(KEY, BASE, TEXT, guard, recorder=None, max_retries=0) as c:
        yield c


async def _client_call(client: AsyncClient, path: str, body: dict[str, Any]) -> Any:
    """The public client call that sends ``body`` to ``path``."""
    fam = family_for_path(path)
    if fam is not None:
        params = {k: v for k, v in body.items() if k != "model"}
        resource = client.images if fam.kind == "image" else client.videos
        return await resource.create(body["model"], family=fam.id, **params)
    if path == CHAT:
        return await client.chat.completions.create(**body)
    if path == MESSAGES:
        return await client.messages.create(**body)
    if path == SEEDANCE2_UPLOAD:
        extra = {"name": body["name"]} if "name" in body else {}
        return await client.assets.upload(body["url"], body["assetType"], **extra)
    if path == SD2_UPLOAD:
        return await client.assets.sd2_upload(
            image_urls=body["imageUrls"], video_urls=body["videoUrls"], audio_urls=body["audioUrls"]
        )
    assert path == SD2_STATUS
    return await client.assets.sd2_status(body["assetIds"])


async def _emulator_verdict(raw: httpx2.AsyncClient, path: str, body: dict[str, Any]) -> str | None:
    """The emulator's first ``field: rule`` text, or None when it accepted the body."""
    prefix = "/gateway" if path in (CHAT, MESSAGES) else "/api"
    response = await raw.post(prefix + path, json=body)
    assert response.status_code < 500
    data = response.json()
    if path in (CHAT, MESSAGES):
        if response.status_code == 200:
            assert data["object" if path == CHAT else "type"] in ("chat.completion", "message")
            return None
        assert response.status_code == 400
        error = data["error"]
        assert error["type"] == "invalid_request_error"
        if path == CHAT:  # OpenAI's envelope names the field in param
            assert error["message"].startswith(f"{error['param']}: ")
        else:  # Anthropic's has a top-level type and no param
            assert data["type"] == "error"
            assert set(error) == {"type", "message"}
        text: str = error["message"]
        return text
    assert response.status_code == 200
    if path in (SEEDANCE2_UPLOAD, SD2_UPLOAD, SD2_STATUS):
        if data["code"] == "0":
            return None
        msg: str = data["msg"]
        return msg
    if data["status"] in ("queued", "processing"):
        assert data.get("error") is None
        return None
    assert data["status"] == "failed"
    error_text: str = data["error"]
    return error_text


@pytest.mark.parametrize("row", _cases())
async def test_all_layers_agree(
    row: Row, client: AsyncClient, guard: GuardTransport, raw: httpx2.AsyncClient
) -> None:
    # 1. validate_request
    errors = errors_only(validate_request(row.path, row.body))
    if row.field is None:
        assert errors == []
    else:
        assert errors, f"validate_request accepted {row.body}"
        first = errors[0]
        assert first.field == row.field, errors
        assert row.word.lower() in first.rule.lower(), first
        expected = str(first)

    # 2. the client: invalid input never reaches the network
    guard.allow = row.field is None
    if row.field is None:
        answer = await _client_call(client, row.path, row.body)
        assert answer is not None
        status = getattr(answer, "status", None)
        if family_for_path(row.path) is not None:
            assert status in ("queued", "processing"), answer
        assert guard.sent, "a valid body was not sent"
    else:
        with pytest.raises(RequestValidationError) as info:
            await _client_call(client, row.path, row.body)
        assert guard.sent == []
        assert str(info.value.problems[0]) == expected
        assert expected in str(info.value)

    # 3. the emulator
    verdict = await _emulator_verdict(raw, row.path, row.body)
    if row.field is None:
        assert verdict is None
    else:
        assert verdict is not None, f"the emulator accepted {row.body}"
        assert verdict.startswith(expected), (verdict, expected)


async def test_the_guard_catches_a_request(client: AsyncClient, guard: GuardTransport) -> None:
    """The no-network check is real: a request while sending is forbidden fails the test."""
    guard.allow = False
    with pytest.raises(pytest.fail.Exception, match="reached the network"):
        await client.chat.completions.create(model="gpt-5.4", messages=USER_HI)
    assert guard.sent == ["POST /gateway/v1/chat/completions"]
