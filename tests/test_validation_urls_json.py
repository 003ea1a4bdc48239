"""Issue 15, client side: non-public upload URLs, NaN and Infinity.

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

from mediagen_nb.client import AsyncClient, RequestValidationError
from mediagen_nb.client._http import encode_json
from mediagen_nb.types import validate_request
from mediagen_nb.types._urls import not_public_reason, origin, origins
from tests._emulator_helpers import make_app
from tests._support import KEY, FakeClock
from tests._validation_helpers import (
    CHAT,
    IMG,
    MESSAGES,
    SD2_UPLOAD,
    SEEDANCE,
    SEEDANCE2_UPLOAD,
    USER_HI,
    NoNetwork,
    first_error,
    refused,
    silent_client,
)

NAN, INF = float("nan"), float("inf")
IMAGE2 = {"model": "gpt-image-2", "prompt": "a lighthouse"}


def seedance(text: str) -> dict[str, Any]:
    return {"model": "seedance_1_5_pro_720p", "content": [{"type": "text", "text": text}]}


@pytest.fixture
def wire() -> NoNetwork:
    return NoNetwork()


@pytest.fixture
async def client(wire: NoNetwork) -> AsyncIterator[AsyncClient]:
    async with silent_client(wire) as c:
        yield c


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


def test_origins_compare_scheme_host_and_port_with_defaults_filled_in() -> None:
    assert origin("HTTP://Example.COM/a?b") == "http://example.com:80"
    assert origin("https://example.com:443/x") == "https://example.com:443"
    assert origin("http://[::1]:8765/api") == "http://[::1]:8765"
    assert origin("not a url") is None
    assert origins("http://127.0.0.1:8765/api") == {"http://127.0.0.1:8765"}  # one base URL
    assert origins([None, "", "http://a.test/api", "http://a.test/gateway"]) == {"http://a.test:80"}
    # a public URL needs no origin; a service on https does not vouch for http on its host
    assert not_public_reason("https://cdn.example.org/a.png") is None
    assert not_public_reason("http://10.0.0.1/a", ["https://10.0.0.1/api"]) is not None


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

NON_FINITE: dict[str, tuple[str, dict[str, Any], str]] = {
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
    loop: dict[str, Any] = {"n": 1}
    loop["again"] = loop
    loop["and_again"] = loop  # the walk visits each container once: no blow-up
    with pytest.raises(RequestValidationError, match=r"\(body\): cannot be sent as JSON"):
        encode_json(loop)
    with pytest.raises(RequestValidationError, match="finite"):
        await client._ctx.core.request("POST", "base", "/v1/unvalidated", {"t": INF})
    assert wire.sent == []
