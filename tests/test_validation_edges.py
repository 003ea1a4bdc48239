"""Issue 15, client side: the spec edges a second reading found, refused before sending.

For each kind, ``validate_request`` names the field as the user sees it and the rule, and the
``AsyncClient`` raises ``RequestValidationError`` with that problem while its transport
sees nothing. (The emulator's side of each kind is ``test_emulator_edges.py``.)
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog import FAMILIES, family_for_path
from mediagen_nb.client import AsyncClient, RequestValidationError, TaskFailedError
from mediagen_nb.client._http import encode_json
from mediagen_nb.types import Problem, errors_only, parse_size, validate_request
from tests._emulator_helpers import KEY, FakeClock, make_app

BASE = "http://svc.test/api"
TEXT = "http://svc.test/gateway"
CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
SEEDANCE2_UPLOAD = "/svcVideo2/asset/upload"
SD2_UPLOAD = "/asset/sd2Manxue/assetUpload"
IMG = "https://example.com/ref.png"
USER_HI = [{"role": "user", "content": "hi"}]
NAN, INF = float("nan"), float("inf")


class NoNetwork(httpx2.AsyncBaseTransport):
    """Counts requests; any request at all fails the test."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.sent.append(f"{request.method} {request.url}")
        pytest.fail(f"refused input reached the network: {request.method} {request.url}")


@pytest.fixture
def wire() -> NoNetwork:
    return NoNetwork()


@pytest.fixture
async def client(wire: NoNetwork) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(KEY, BASE, TEXT, wire, recorder=None, max_retries=0) as c:
        yield c


async def send(client: AsyncClient, path: str, body: dict[str, Any]) -> Any:
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
        return await client.assets.upload(body["url"], body["assetType"])
    assert path == SD2_UPLOAD
    return await client.assets.sd2_upload(
        image_urls=body.get("imageUrls", ()),
        video_urls=body.get("videoUrls", ()),
        audio_urls=body.get("audioUrls", ()),
    )


def first_error(path: str, body: Any, field: str, *words: str, **kw: Any) -> Problem:
    """``validate_request``'s first error is on ``field`` and its rule says every word."""
    errors = errors_only(validate_request(path, body, **kw))
    assert errors, f"accepted: {body}"
    problem = errors[0]
    assert problem.field == field, errors
    for word in words:
        assert word.lower() in problem.rule.lower(), problem
    return problem


async def refused(
    client: AsyncClient, wire: NoNetwork, path: str, body: dict[str, Any], field: str, *words: str
) -> None:
    """Refused by ``validate_request`` and by the client, which sends nothing."""
    problem = first_error(path, body, field, *words)
    with pytest.raises(RequestValidationError) as info:
        await send(client, path, body)
    assert info.value.problems[0] == problem
    assert str(problem) in str(info.value)
    assert wire.sent == []


# --- 1. size {width}x{height}: ASCII digits only, nothing around them -----------------------

IMAGE2 = {"model": "gpt-image-2", "prompt": "a lighthouse"}
BAD_SIZES = [
    "\uff11\uff10\uff12\uff14x\uff11\uff10\uff12\uff14",  # fullwidth digits
    "\u0661\u0660\u0662\u0664x\u0661\u0660\u0662\u0664",  # Arabic-Indic digits
    "\u0967\u0966\u0968\u096ax1024",  # Devanagari digits in one edge
    "1024x1024\n",
    "1024x1024 ",
    " 1024x1024",
    "+1024x1024",
    "1024X1024",
    "1024x1024x16",
    "1024\u00d71024",  # multiplication sign
]


@pytest.mark.parametrize("size", BAD_SIZES)
async def test_size_takes_ascii_digits_only(
    size: str, client: AsyncClient, wire: NoNetwork
) -> None:
    assert parse_size(size) is None
    await refused(client, wire, "/v1/image2/images", {**IMAGE2, "size": size}, "size", "WIDTHx")


def test_size_in_ascii_is_parsed_and_accepted() -> None:
    assert parse_size("1024x1536") == (1024, 1536)
    assert validate_request("/v1/image2/images", {**IMAGE2, "size": "1024x1536"}) == []
    assert parse_size("1" * 13 + "x16") is None  # not a size, and never a crash in int()


# --- 2. messages + GPT: no image anywhere in the message ------------------------------------

GPT_MSG = {"model": "gpt-5.4", "max_tokens": 32}
IMAGE_BLOCK = {"type": "image", "source": {"type": "url", "url": IMG}}


def tool_result(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": "toolu_1", "content": list(content)}


NESTED_IMAGES = {
    "in tool_result": (
        [tool_result({"type": "text", "text": "chart:"}, IMAGE_BLOCK)],
        "messages[0].content[0].content[1]",
    ),
    "openai part in tool_result": (
        [tool_result({"type": "image_url", "image_url": {"url": IMG}})],
        "messages[0].content[0].content[0]",
    ),
    "two levels down": (
        [{"type": "text", "text": "see"}, tool_result(tool_result(IMAGE_BLOCK))],
        "messages[0].content[1].content[0].content[0]",
    ),
}


@pytest.mark.parametrize("case", sorted(NESTED_IMAGES))
async def test_gpt_on_messages_refuses_an_image_wherever_it_sits(
    case: str, client: AsyncClient, wire: NoNetwork
) -> None:
    content, field = NESTED_IMAGES[case]
    body = {**GPT_MSG, "messages": [{"role": "user", "content": content}]}
    await refused(client, wire, MESSAGES, body, field, "GPT", "chat-completions")


def test_claude_on_messages_takes_the_same_nested_image() -> None:
    content = [tool_result({"type": "text", "text": "chart:"}, IMAGE_BLOCK)]
    body = {
        **GPT_MSG,
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": content}],
    }
    assert errors_only(validate_request(MESSAGES, body)) == []
    text_only = {
        **GPT_MSG,
        "messages": [{"role": "user", "content": [tool_result({"type": "text", "text": "42"})]}],
    }
    assert errors_only(validate_request(MESSAGES, text_only)) == []


# --- 3. model names: another family's name is refused; an unknown one passes (warning) -------

CROSS = [
    ("veo", "nano-banana", "Nano Banana"),
    ("grok", "viduq3-pro", "Vidu"),
    ("vidu", "sd2_manxue_4k", "SD2"),
    ("sd2_manxue", "viduq3-turbo", "Vidu"),
    ("seedance2", "seedance_1_5_pro_720p", "Seedance 1.5"),
    ("videos", "gpt-image-2", "GPT Image 2"),
    ("veo", "claude-opus-4-6", "text models"),
    ("banana", "gpt-image-2", "GPT Image 2"),
    ("sora", "starvideos_o3", "StarVideos"),
]


@pytest.mark.parametrize(("family_id", "model", "owner"), CROSS)
async def test_a_name_of_another_family_is_refused(
    family_id: str, model: str, owner: str, client: AsyncClient, wire: NoNetwork
) -> None:
    fam = FAMILIES[family_id]
    body: dict[str, Any] = {"model": model, "prompt": "a fox"}
    if family_id == "seedance":
        body = {"model": model, "content": [{"type": "text", "text": "a fox"}]}
    await refused(client, wire, fam.create_path, body, "model", owner, "send it to")
    # allow_unknown_models is for names newer than the catalog, not for misplaced ones
    first_error(fam.create_path, body, "model", owner, allow_unknown_models=True)


@pytest.mark.parametrize("family_id", sorted(f.id for f in FAMILIES.values() if not f.documented))
def test_an_unknown_name_passes_with_a_warning_on_every_partly_documented_family(
    family_id: str,
) -> None:
    path = FAMILIES[family_id].create_path
    (problem,) = validate_request(path, {"model": "brand-new-9", "prompt": "a fox"})
    assert (problem.field, problem.severity) == ("model", "warning")
    assert "may refuse it" in problem.rule
    assert validate_request(path, {"model": "brand-new-9"}, allow_unknown_models=True) == []


# --- 4. seedance: every Han block counts as Chinese characters -------------------------------

SEEDANCE = "/v1/seedance/videos"
HAN_SAMPLES = {
    "extension A": "\u3400",
    "extension B": "\U00020000",
    "extension C": "\U0002a700",
    "extension E": "\U0002b820",
    "extension F": "\U0002ceb0",
    "extension G": "\U00030000",
    "compatibility": "\uf900",
    "compatibility supplement": "\U0002f800",
}


def seedance(text: str) -> dict[str, Any]:
    return {"model": "seedance_1_5_pro_720p", "content": [{"type": "text", "text": text}]}


@pytest.mark.parametrize("block", sorted(HAN_SAMPLES))
async def test_han_characters_of_every_block_count(
    block: str, client: AsyncClient, wire: NoNetwork
) -> None:
    char = HAN_SAMPLES[block]
    assert validate_request(SEEDANCE, seedance(char * 500)) == []
    await refused(client, wire, SEEDANCE, seedance(char * 501), "content[0].text", "500", "got 501")


def test_mixed_blocks_add_up_and_kana_does_not_count() -> None:
    mixed = "山" * 250 + "\U00020000" * 251
    first_error(SEEDANCE, seedance(mixed), "content[0].text", "got 501")
    assert validate_request(SEEDANCE, seedance("山" * 500 + "かな" * 100)) == []


# --- 5. malformed multimodal parts ------------------------------------------------------------


def chat_parts(*parts: Any, model: str = "gpt-5.4") -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": list(parts)}]}


def message_blocks(*blocks: Any) -> dict[str, Any]:
    return {
        **GPT_MSG,
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": list(blocks)}],
    }


MALFORMED = {
    "chat image_url without url": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {}}),
        "messages[0].content[0].image_url.url",
        "required",
    ),
    "chat image_url missing": (
        CHAT,
        chat_parts({"type": "image_url"}),
        "messages[0].content[0].image_url",
        "required",
    ),
    "chat image_url as a string": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": IMG}),
        "messages[0].content[0].image_url",
        "object",
    ),
    "chat image_url empty url": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {"url": " "}}),
        "messages[0].content[0].image_url.url",
        "empty",
    ),
    "chat image detail": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {"url": IMG, "detail": "max"}}),
        "messages[0].content[0].image_url.detail",
        "auto",
    ),
    "chat text without text": (
        CHAT,
        chat_parts({"type": "text"}),
        "messages[0].content[0].text",
        "required",
    ),
    "chat text not a string": (
        CHAT,
        chat_parts({"type": "text", "text": 5}),
        "messages[0].content[0].text",
        "string",
    ),
    "chat input_audio without data": (
        CHAT,
        chat_parts({"type": "input_audio", "input_audio": {"format": "wav"}}),
        "messages[0].content[0].input_audio.data",
        "required",
    ),
    "chat video_url without url (gemini)": (
        CHAT,
        chat_parts({"type": "video_url", "video_url": {}}, model="gemini-2.5-pro"),
        "messages[0].content[0].video_url.url",
        "required",
    ),
    "messages image without source": (
        MESSAGES,
        message_blocks({"type": "image"}),
        "messages[0].content[0].source",
        "required",
    ),
    "messages url source without url": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "url"}}),
        "messages[0].content[0].source.url",
        "required",
    ),
    "messages base64 without data": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "base64", "media_type": "image/png"}}),
        "messages[0].content[0].source.data",
        "required",
    ),
    "messages base64 media type": (
        MESSAGES,
        message_blocks(
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/bmp", "data": "AA=="},
            }
        ),
        "messages[0].content[0].source.media_type",
        "image/png",
    ),
    "messages unknown source type": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "ftp", "url": IMG}}),
        "messages[0].content[0].source.type",
        "base64",
    ),
    "messages text without text": (
        MESSAGES,
        message_blocks({"type": "text"}),
        "messages[0].content[0].text",
        "required",
    ),
    "messages blank text block": (
        MESSAGES,
        message_blocks({"type": "text", "text": "  "}),
        "messages[0].content[0].text",
        "empty",
    ),
    "messages document without source": (
        MESSAGES,
        message_blocks({"type": "document"}),
        "messages[0].content[0].source",
        "required",
    ),
    "messages image in system": (
        MESSAGES,
        {**message_blocks({"type": "text", "text": "hi"}), "system": [IMAGE_BLOCK]},
        "system[0]",
        "text block",
    ),
    "messages system block without text": (
        MESSAGES,
        {**message_blocks({"type": "text", "text": "hi"}), "system": [{"type": "text"}]},
        "system[0].text",
        "required",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
async def test_malformed_parts_are_refused(case: str, client: AsyncClient, wire: NoNetwork) -> None:
    path, body, field, word = MALFORMED[case]
    await refused(client, wire, path, body, field, word)


def test_well_formed_parts_of_both_protocols_pass() -> None:
    chat = chat_parts(
        {"type": "text", "text": ""},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA==", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}},
        {"type": "file", "file": {"file_id": "file-1"}},
        {"type": "some_future_part", "anything": 1},
    )
    assert validate_request(CHAT, chat) == []
    blocks = message_blocks(
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
        {"type": "image", "source": {"type": "url", "url": IMG}},
        {"type": "image", "source": {"type": "file", "file_id": "file-1"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
    )
    assert (
        validate_request(MESSAGES, {**blocks, "system": [{"type": "text", "text": "be brief"}]})
        == []
    )


# --- 6. starvideos reference video 3-10 s: only the media tells (the task fails) -------------


async def test_reference_video_length_is_reported_by_the_task_naming_the_field() -> None:
    """The client cannot know a video's length: it sends, and the task fails naming it."""
    long_clip = "https://example.com/clip.mp4#t=12"
    body = {"model": "starvideos_o3", "prompt": "a comet", "referenceVideos": [long_clip]}
    assert validate_request("/v1/starvideos/videos", body) == []
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    app = make_app(clock, speed=1000.0)
    async with AsyncClient(
        KEY,
        "http://emu.test/api",
        "http://emu.test/gateway",
        httpx2.ASGITransport(app=app),
        sleep=sleep,
        clock=clock,
        recorder=None,
        max_retries=0,
    ) as c:
        task = await c.videos.create(
            "starvideos_o3", family="starvideos", prompt="a comet", referenceVideos=[long_clip]
        )
        assert task.status == "queued"
        with pytest.raises(TaskFailedError) as info:
            await task.wait()
    assert task.status == "failed"
    assert "referenceVideos[0]" in str(info.value)
    assert "12 s" in str(info.value)
    assert "3 to 10 s" in str(info.value)


# --- 7. asset uploads: one rule for non-public URLs in both libraries ------------------------

NOT_PUBLIC = [
    "http://localhost/a.png",
    "http://127.0.0.1:9000/a.png",
    "http://127.1/a.png",
    "http://2130706433/a.png",
    "http://10.0.0.7/a.png",
    "http://192.168.1.4/b.png",
    "http://172.16.5.5/a.png",
    "http://169.254.169.254/latest/meta-data",
    "http://100.64.0.1/a.png",
    "http://[::1]/a.png",
    "http://[fd00::1]/a.png",
    "http://[::ffff:10.0.0.1]/a.png",
    "http://nas.local/a.png",
    "http://db.internal/a.png",
    "http://fileserver/a.png",
    "http://LOCALHOST./a.png",
]


@pytest.mark.parametrize("url", NOT_PUBLIC)
async def test_both_libraries_refuse_urls_the_service_cannot_fetch(
    url: str, client: AsyncClient, wire: NoNetwork
) -> None:
    body = {"assetType": "Image", "url": url}
    await refused(client, wire, SEEDANCE2_UPLOAD, body, "url", "publicly reachable")
    sd2 = {"imageUrls": [IMG], "videoUrls": [url]}
    await refused(client, wire, SD2_UPLOAD, sd2, "videoUrls[0]", "publicly reachable")


async def test_file_urls_are_refused_by_both_libraries(
    client: AsyncClient, wire: NoNetwork
) -> None:
    await refused(
        client,
        wire,
        SEEDANCE2_UPLOAD,
        {"assetType": "Image", "url": "file:///tmp/a.png"},
        "url",
        "http",
    )
    await refused(
        client, wire, SD2_UPLOAD, {"audioUrls": ["file:///a.mp3"]}, "audioUrls[0]", "http"
    )


def test_the_services_own_urls_count_as_public() -> None:
    own = "http://127.0.0.1:8765/api/media/0123.png"
    body = {"assetType": "Image", "url": own}
    origins = ["http://127.0.0.1:8765/api", "http://127.0.0.1:8765/gateway"]
    assert validate_request(SEEDANCE2_UPLOAD, body, service_origins=origins) == []
    assert validate_request(SD2_UPLOAD, {"imageUrls": [own]}, service_origins=origins) == []
    # another port of the same loopback host is not the service
    other = {"assetType": "Image", "url": "http://127.0.0.1:8766/a.png"}
    first_error(SEEDANCE2_UPLOAD, other, "url", "publicly", service_origins=origins)
    first_error(SEEDANCE2_UPLOAD, body, "url", "loopback")  # without the origin: refused


async def test_the_client_uploads_the_emulators_own_url_and_refuses_a_neighbour() -> None:
    """In demo mode the emulator is the service: files it serves are its public URLs."""
    base = "http://127.0.0.1:8765"
    app = make_app(FakeClock())
    transport = httpx2.ASGITransport(app=app)
    async with AsyncClient(
        KEY, f"{base}/api", f"{base}/gateway", transport, recorder=None, max_retries=0
    ) as c:
        info = await c.assets.upload(f"{base}/api/media/studio-upload.png", "Image")
        assert info.assetId.startswith("asset-")
        batch = await c.assets.sd2_upload(image_urls=[f"{base}/api/media/a.png"])
        assert len(batch.items) == 1
        with pytest.raises(RequestValidationError) as error:
            await c.assets.upload("http://127.0.0.1:9999/x.png", "Image")
    assert error.value.problems[0].field == "url"


# --- 8. NaN and Infinity: refused in any numeric field, on every path ------------------------

NON_FINITE = {
    "chat temperature": (
        CHAT,
        {"model": "gpt-5.4", "messages": USER_HI, "temperature": NAN},
        "temperature",
    ),
    "chat top_p": (CHAT, {"model": "gpt-5.4", "messages": USER_HI, "top_p": -INF}, "top_p"),
    "chat pass-through": (
        CHAT,
        {"model": "gpt-5.4", "messages": USER_HI, "logit_bias": {"50256": INF}},
        "logit_bias.50256",
    ),
    "messages temperature": (
        MESSAGES,
        {"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": USER_HI, "temperature": NAN},
        "temperature",
    ),
    "messages top_k": (
        MESSAGES,
        {"model": "claude-sonnet-4-6", "max_tokens": 8, "messages": USER_HI, "top_k": INF},
        "top_k",
    ),
    "banana extra": (
        "/v1/banana/images",
        {"model": "nano-banana", "prompt": "x", "seed": NAN},
        "seed",
    ),
    "image2 extra": ("/v1/image2/images", {**IMAGE2, "guidance": INF}, "guidance"),
    "sora duration": (
        "/v1/sora/videos",
        {"model": "neutralSora2Plus", "prompt": "x", "duration": NAN},
        "duration",
    ),
    "seedance duration": (SEEDANCE, {**seedance("x"), "duration": INF}, "duration"),
    "starvideos duration": (
        "/v1/starvideos/videos",
        {"model": "starvideos_o3", "prompt": "x", "duration": -INF},
        "duration",
    ),
    "veo nested": (
        "/v1/veo/videos",
        {"model": "veo3", "prompt": "x", "camera": {"pan": [0.5, NAN]}},
        "camera.pan[1]",
    ),
    "grok duration": ("/v1/grok/videos", {"model": "grok-video", "duration": INF}, "duration"),
    "seedance2 upload extra": (SEEDANCE2_UPLOAD, {"assetType": "Image", "url": IMG, "w": NAN}, "w"),
    "sd2 upload extra": (SD2_UPLOAD, {"imageUrls": [IMG], "weight": INF}, "weight"),
}


@pytest.mark.parametrize("case", sorted(NON_FINITE))
async def test_non_finite_numbers_are_refused_on_every_path(
    case: str, client: AsyncClient, wire: NoNetwork
) -> None:
    path, body, field = NON_FINITE[case]
    if path == SEEDANCE2_UPLOAD:  # the client's upload() takes no extra fields: check the rule
        first_error(path, body, field, "finite", "NaN")
        return
    if path == SD2_UPLOAD:
        first_error(path, body, field, "finite", "NaN")
        return
    await refused(client, wire, path, body, field, "finite", "NaN")


def test_huge_literals_read_as_infinity_are_refused_too() -> None:
    raw = '{"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}], "temperature": '
    body = json.loads(raw + "1e999}")
    assert math.isinf(body["temperature"])
    first_error(CHAT, body, "temperature", "finite")


async def test_the_client_never_writes_a_body_that_is_not_json(
    client: AsyncClient, wire: NoNetwork
) -> None:
    """The last guard: a body that skipped validation still cannot leave as NaN."""
    with pytest.raises(RequestValidationError) as info:
        encode_json({"outer": [1, {"x": NAN}]})
    assert [str(p) for p in info.value.problems] == [
        "outer[1].x: must be a finite number (NaN and Infinity are not valid JSON)"
    ]
    with pytest.raises(RequestValidationError, match=r"cannot be sent as JSON|JSON value"):
        encode_json({"when": object()})
    assert encode_json({"t": 0.5}) == b'{"t": 0.5}'
    with pytest.raises(RequestValidationError, match="finite"):
        await client._ctx.core.request("POST", "base", "/v1/unvalidated", {"t": INF})
    assert wire.sent == []
