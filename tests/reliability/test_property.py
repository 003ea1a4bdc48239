"""Property: the emulator and ``validate_request`` agree on every generated request body.

Bodies for every endpoint with a body (11 creates, chat-completions, messages, three asset
POSTs) come in two kinds: well-formed ones built from the catalog's options (most valid, many
breaking exactly one cross-field rule) and malformed ones (random JSON, wrong types, dropped
and extra fields, unicode and control characters). For each body the emulator must answer
below 500, within a time limit, and:

* accept exactly the bodies ``validate_request`` accepts (create: ``queued``/``processing``;
  chat and messages: 200; assets: ``code "0"``);
* reject the others naming the same first field and rule (create: ``status "failed"`` with
  ``error`` starting ``"field: rule"``; chat: 400 with ``param`` = field; messages: 400 in
  Anthropic's envelope (``type: error``, message starting with the field); assets:
  a non-``"0"`` code with ``msg`` starting ``"field: rule"``).

The protocol aliases chat ``max_tokens`` and messages ``stop_sequences`` are generated too
(every layer checks them since the request types model them).

Runs >= 2,500 examples in all by default (asserted), in-process through
``httpx2.ASGITransport``; ``MEDIAGEN_RELIABILITY_PROPERTY_WELL_FORMED`` and
``MEDIAGEN_RELIABILITY_PROPERTY_MALFORMED`` scale the two runs. The runs are derandomised
(the same cases every time); ``MEDIAGEN_FUZZ_RANDOM=1`` explores new ones, and what such a
run found is kept in ``FOUND`` and checked on every run.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediagen_nb.catalog import FAMILIES, TEXT_MODELS, options
from mediagen_nb.catalog import _params as params
from mediagen_nb.emulator import create_app
from mediagen_nb.types import Problem, validate_request
from mediagen_nb.types._problem import errors_only
from tests._support import FUZZ_RANDOM, KEY
from tests.reliability._reliability import report, scale

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
TEXT_PATHS = (CHAT, MESSAGES)
SEEDANCE2_UPLOAD = "/svcVideo2/asset/upload"
SD2_UPLOAD = "/asset/sd2Manxue/assetUpload"
SD2_STATUS = "/asset/sd2Manxue/assetStatus"
ASSET_PATHS = (SEEDANCE2_UPLOAD, SD2_UPLOAD, SD2_STATUS)
CREATE_PATHS = tuple(f.create_path for f in FAMILIES.values())

WELL_FORMED_EXAMPLES = scale("property_well_formed", 1500)
MALFORMED_EXAMPLES = scale("property_malformed", 1000)
REQUEST_TIMEOUT_S = 10.0

# --- building blocks ------------------------------------------------------------------------

GOOD_URLS = [
    "https://example.com/a.png",
    "http://cdn.example.org/b.jpg?x=1",
    "https://example.com/clip.mp4#t=4",
    "https://example.com/face.png",
]
URL = st.sampled_from(
    GOOD_URLS * 4
    + [
        "asset://asset-1700000000-ab12",
        "asset://",
        "asset://bad id",
        "ftp://example.com/x.png",
        "not a url",
        "",
        "http://localhost/x.png",
    ]
)
PROMPT = st.one_of(
    st.sampled_from(["a red fox in snow", "城市夜景，霓虹灯", "[policy] test", "a [fail] b", "  "]),
    st.text(max_size=40),
)
JSON_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON_VALUE = st.recursive(
    JSON_SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def pick(values: Any, *extra: Any) -> st.SearchStrategy[Any]:
    """Mostly the catalog's values, sometimes a near miss."""
    known = list(options(values)) if not isinstance(values, (list, tuple)) else list(values)
    return st.sampled_from(known * 3 + list(extra))


def urls(max_size: int) -> st.SearchStrategy[list[str]]:
    return st.lists(URL, max_size=max_size)


# --- well-formed bodies per endpoint --------------------------------------------------------

SIZES = st.one_of(
    st.sampled_from(["1024x1024", "1024x640", "3840x2160", "2400x800", "1536x1024"]),
    st.builds(lambda w, h: f"{w * 16}x{h * 16}", st.integers(0, 245), st.integers(0, 245)),
    st.builds(lambda w, h: f"{w}x{h}", st.integers(1, 5000), st.integers(1, 5000)),
)

BANANA = st.fixed_dictionaries(
    {"model": pick(params.BananaModel, "nano-banana-3"), "prompt": PROMPT},
    optional={
        "resolution": pick(params.BananaResolution, "8k"),
        "size": pick(params.BananaSize, "2:1"),
        "image_urls": urls(7),
    },
)
IMAGE2 = st.fixed_dictionaries(
    {"model": pick(params.Image2Model, "gpt-image-3"), "prompt": PROMPT},
    optional={
        "quality": pick(params.Image2Quality, "ultra"),
        "ratio": pick(params.Image2Ratio, "3:1"),
        "resolution": pick(params.Image2Resolution),
        "size": SIZES,
        "image_urls": urls(17),
    },
)
SORA_SECONDS = pick(params.SoraDuration, 5, 10, 8.0)
SORA = st.fixed_dictionaries(
    {"model": pick(params.SoraModel, "sora-2"), "prompt": PROMPT},
    optional={
        "size": pick(params.SoraSize, "1920x1080"),
        "aspect_ratio": pick(params.SoraAspect, "1:1"),
        "duration": SORA_SECONDS,
        "seconds": SORA_SECONDS,
        "input_reference": urls(2),
        "image_urls": urls(2),
    },
)
SEEDANCE_TEXT = st.fixed_dictionaries(
    {
        "type": st.just("text"),
        "text": st.one_of(PROMPT, st.sampled_from(["山" * 500, "山" * 501, "w " * 1001])),
    }
)
SEEDANCE_IMAGE = st.fixed_dictionaries(
    {"type": st.just("image_url"), "image_url": st.fixed_dictionaries({"url": URL})},
    optional={"role": pick(params.SeedanceRole, None, "middle_frame")},
)
SEEDANCE = st.fixed_dictionaries(
    {
        "model": pick(params.SeedanceModel, "seedance_1_5_pro_4k"),
        "content": st.lists(st.one_of(SEEDANCE_TEXT, SEEDANCE_IMAGE), min_size=1, max_size=6),
    },
    optional={
        "ratio": pick(params.SeedanceRatio, "2:1"),
        "duration": st.integers(-2, 14),
        "generate_audio": st.booleans(),
    },
)
STARVIDEOS = st.fixed_dictionaries(
    {"model": pick(params.StarvideosModel, "starvideos_o2"), "prompt": PROMPT},
    optional={
        "duration": st.integers(2, 16),
        "ratio": pick(params.StarvideosRatio, "4:3"),
        "referenceImages": urls(8),
        "first_image": URL,
        "last_image": URL,
        "referenceVideos": urls(2),
    },
)


def generic(family_id: str) -> st.SearchStrategy[dict[str, Any]]:
    fam = FAMILIES[family_id]
    low, high = fam.duration_range or (4, 8)
    models = list(fam.models) or [f"{family_id}-model", "brand-new-model"]
    return st.fixed_dictionaries(
        {"model": pick(models, f"{family_id}-unknown")},
        optional={
            "prompt": PROMPT,
            "duration": st.integers(low - 1, high + 1),
            "first_image": URL,
            "last_image": URL,
            "referenceImages": urls(3),
            "referenceVideos": urls(2),
            "referenceAudios": urls(3),
            "resolution": st.sampled_from(["720p", "1080p", "4k"]),
            "seed": st.integers(0, 2**31),
        },
    )


TEXT_PART = st.fixed_dictionaries({"type": st.just("text"), "text": PROMPT})
IMAGE_PART = st.fixed_dictionaries(
    {"type": st.just("image_url"), "image_url": st.fixed_dictionaries({"url": URL})}
)
VIDEO_PART = st.fixed_dictionaries(
    {"type": st.just("video_url"), "video_url": st.fixed_dictionaries({"url": URL})}
)
CLAUDE_IMAGE = st.fixed_dictionaries(
    {
        "type": st.just("image"),
        "source": st.fixed_dictionaries({"type": st.just("url"), "url": URL}),
    }
)
TEXT_MODEL = pick(list(TEXT_MODELS), "gpt-6", "claude-opus-9", "gemini-4-pro", "llama-3")


def conversation(roles: list[str], parts: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    message = st.fixed_dictionaries(
        {
            "role": st.sampled_from(roles),
            "content": st.one_of(PROMPT, st.lists(parts, min_size=1, max_size=3)),
        }
    )
    return st.lists(message, min_size=1, max_size=3)


CHAT_BODY = st.fixed_dictionaries(
    {
        "model": TEXT_MODEL,
        "messages": conversation(
            ["system", "user", "assistant", "user", "tool"],
            st.one_of(TEXT_PART, TEXT_PART, IMAGE_PART, VIDEO_PART),
        ),
    },
    optional={
        "temperature": st.floats(-0.5, 2.5),
        "top_p": st.floats(-0.2, 1.2),
        "stop": st.one_of(st.text(max_size=5), st.lists(st.text(max_size=5), max_size=5)),
        "max_completion_tokens": st.integers(-1, 64),
        "max_tokens": st.one_of(st.integers(-1, 64), st.sampled_from(["8", 8.0, None])),
        "stream": st.booleans(),
    },
)
MESSAGES_BODY = st.fixed_dictionaries(
    {
        "model": TEXT_MODEL,
        "max_tokens": st.integers(0, 64),
        "messages": conversation(
            ["user", "assistant", "user", "system"],
            st.one_of(TEXT_PART, TEXT_PART, CLAUDE_IMAGE, IMAGE_PART),
        ),
    },
    optional={
        "system": st.one_of(PROMPT, st.lists(TEXT_PART, max_size=2)),
        "temperature": st.floats(-0.5, 1.5),
        "stop_sequences": st.one_of(st.lists(st.text(max_size=5), max_size=3), st.text(max_size=5)),
        "stream": st.booleans(),
    },
)
SEEDANCE2_UPLOAD_BODY = st.fixed_dictionaries(
    {"assetType": pick(params.AssetType, "image", "Photo"), "url": URL},
    optional={"name": st.text(max_size=20)},
)
SD2_UPLOAD_BODY = st.fixed_dictionaries(
    {}, optional={"imageUrls": urls(3), "videoUrls": urls(2), "audioUrls": urls(2)}
)
SD2_STATUS_BODY = st.fixed_dictionaries(
    {"assetIds": st.lists(st.one_of(st.sampled_from(["a1", "asset-1-x"]), st.text(max_size=8)))}
)

BY_PATH: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    FAMILIES["banana"].create_path: BANANA,
    FAMILIES["image2"].create_path: IMAGE2,
    FAMILIES["sora"].create_path: SORA,
    FAMILIES["seedance"].create_path: SEEDANCE,
    FAMILIES["starvideos"].create_path: STARVIDEOS,
    **{
        FAMILIES[f].create_path: generic(f)
        for f in ("veo", "seedance2", "vidu", "grok", "videos", "sd2_manxue")
    },
    CHAT: CHAT_BODY,
    MESSAGES: MESSAGES_BODY,
    SEEDANCE2_UPLOAD: SEEDANCE2_UPLOAD_BODY,
    SD2_UPLOAD: SD2_UPLOAD_BODY,
    SD2_STATUS: SD2_STATUS_BODY,
}
assert set(CREATE_PATHS) <= set(BY_PATH)

WELL_FORMED = st.one_of(
    *(st.tuples(st.just(path), strategy) for path, strategy in sorted(BY_PATH.items()))
)


def _containers(value: Any) -> Iterator[list[Any] | dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _containers(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from _containers(item)


@st.composite
def malformed(draw: st.DrawFn) -> tuple[str, Any]:
    """A well-formed body broken in one of five ways."""
    path, body = draw(WELL_FORMED)
    body = copy.deepcopy(body)
    how = draw(st.sampled_from(["random", "drop", "retype", "extra", "nested"]))
    if how == "random":
        return path, draw(JSON_VALUE)
    keys = sorted(body)
    if how == "drop" and keys:
        del body[draw(st.sampled_from(keys))]
    elif how == "retype" and keys:
        body[draw(st.sampled_from(keys))] = draw(JSON_VALUE)
    elif how == "nested":
        targets = [c for c in _containers(body) if c]
        if targets:
            target = draw(st.sampled_from(targets))
            if isinstance(target, dict):
                target[draw(st.sampled_from(sorted(target)))] = draw(JSON_VALUE)
            else:
                target[draw(st.integers(0, len(target) - 1))] = draw(JSON_VALUE)
    else:
        body[
            draw(
                st.one_of(
                    st.text(max_size=12),
                    st.sampled_from(["prompt", "model", "max_tokens", "stop_sequences", "\x00"]),
                )
            )
        ] = draw(JSON_VALUE)
    return path, body


# --- the property ---------------------------------------------------------------------------


def _url(path: str) -> str:
    return ("/gateway" if path in TEXT_PATHS else "/api") + path


async def _check(http: httpx2.AsyncClient, path: str, body: Any, stats: Counter[str]) -> None:
    """Send ``body`` and compare the emulator's verdict with ``validate_request``."""
    errors: list[Problem] = errors_only(validate_request(path, body))
    raw = json.dumps(body, ensure_ascii=False).encode("utf-8")
    response = await asyncio.wait_for(
        http.post(_url(path), content=raw, headers={"content-type": "application/json"}),
        REQUEST_TIMEOUT_S,
    )
    status = response.status_code
    assert status < 500, f"{path} answered {status}: {response.text[:300]}"
    stats["rejected" if errors else "accepted"] += 1
    stats[path] += 1
    if path in TEXT_PATHS:
        if errors:
            assert status == 400, (path, body, errors, response.text[:300])
            data = response.json()
            error = data["error"]
            assert error["type"] == "invalid_request_error"
            if path.endswith("/v1/messages"):  # Anthropic's envelope: no param
                assert data["type"] == "error", data
            else:
                assert error["param"] == errors[0].field, (errors, error)
            assert error["message"].startswith(str(errors[0])), (errors, error)
        else:
            assert status == 200, (path, body, response.text[:300])
        return
    assert status == 200, (path, body, response.text[:300])
    data = response.json()
    if path in ASSET_PATHS:
        if errors:
            assert data["code"] not in ("0", 0), (body, errors, data)
            assert data["msg"].startswith(str(errors[0])), (errors, data)
        else:
            assert data["code"] == "0", (path, body, data)
        return
    if errors:
        assert data["status"] == "failed", (path, body, errors, data)
        assert data["error"].startswith(str(errors[0])), (errors, data)
    else:
        assert data["status"] in ("queued", "processing"), (path, body, data)
        assert data["id"]
        assert data.get("error") is None


def _run_property(
    strategy: st.SearchStrategy[tuple[str, Any]], examples: int, stats: Counter[str]
) -> None:
    """Drive ``examples`` generated bodies through one emulator on a private event loop."""
    loop = asyncio.new_event_loop()
    app = create_app(api_key=KEY, speed=1000.0, seed=11)
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app),
        base_url="http://emulator.test",
        headers={"Authorization": f"Bearer {KEY}"},
    )

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=not FUZZ_RANDOM,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=strategy)
    def prop(case: tuple[str, Any]) -> None:
        path, body = case
        stats["examples"] += 1
        loop.run_until_complete(_check(http, path, body, stats))

    try:
        prop()
    finally:
        loop.run_until_complete(http.aclose())
        loop.close()


def test_well_formed_bodies_agree() -> None:
    stats: Counter[str] = Counter()
    _run_property(WELL_FORMED, WELL_FORMED_EXAMPLES, stats)
    assert stats["examples"] >= WELL_FORMED_EXAMPLES
    # both sides of the property were exercised, on every endpoint
    assert stats["accepted"] >= WELL_FORMED_EXAMPLES // 5, stats
    assert stats["rejected"] >= WELL_FORMED_EXAMPLES // 10, stats
    assert all(stats[path] > 0 for path in BY_PATH), stats
    _report("property well-formed", stats)


def test_malformed_bodies_agree() -> None:
    stats: Counter[str] = Counter()
    _run_property(malformed(), MALFORMED_EXAMPLES, stats)
    assert stats["examples"] >= MALFORMED_EXAMPLES
    assert stats["rejected"] >= MALFORMED_EXAMPLES // 4, stats
    _report("property malformed", stats)


FOUND: list[tuple[str, Any]] = [
    # A content part whose "type" is a list (unhashable): the rules crashed with a TypeError,
    # the emulator answered 500 (found by a random run in CI, 2026-11-24).
    (
        MESSAGES,
        {
            "model": "gpt-5.4",
            "max_tokens": 0,
            "messages": [{"role": "user", "content": [{"type": [], "text": "a red fox"}]}],
        },
    ),
    (
        MESSAGES,
        {
            "model": "gpt-5.4",
            "max_tokens": 0,
            "messages": [{"role": "user", "content": [{"type": [], "text": "a red fox"}]}],
            "system": "a red fox in snow",
            "stop_sequences": "",
        },
    ),
    # the same shape on chat-completions (it did not crash there; kept beside its twin)
    (
        CHAT,
        {
            "model": "gpt-5.4",
            "messages": [{"role": "user", "content": [{"type": {"x": 1}, "text": "a fox"}]}],
        },
    ),
    # seedance's content as a boolean: the emulator's first-frame lookup iterated it before
    # the rules refused the body, and answered 500 (found by the derandomised run, 2026-11-26)
    ("/v1/seedance/videos", {"model": "seedance_1_5_pro_480p", "content": True}),
]


@pytest.mark.parametrize("case", FOUND, ids=lambda case: f"{case[0]}:{json.dumps(case[1])[:60]}")
def test_found_cases_agree(case: tuple[str, Any]) -> None:
    """Bodies a random run once failed on: the emulator and the validator agree on them."""
    path, body = case
    stats: Counter[str] = Counter()

    async def run() -> None:
        app = create_app(api_key=KEY, speed=1000.0, seed=11)
        transport = httpx2.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {KEY}"}
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://emulator.test", headers=headers
        ) as http:
            await _check(http, path, body, stats)

    asyncio.run(run())
    assert stats["rejected"] == 1, stats


def _report(name: str, stats: Counter[str]) -> None:
    endpoints = sum(1 for path in BY_PATH if stats[path])
    report(
        name,
        examples=stats["examples"],
        accepted=stats["accepted"],
        rejected=stats["rejected"],
        endpoints=endpoints,
    )


@pytest.mark.parametrize("path", sorted(BY_PATH))
def test_every_endpoint_has_a_valid_generated_body(path: str) -> None:
    """The well-formed strategy can produce an accepted body for each endpoint."""
    found: list[Any] = []

    @settings(max_examples=200, deadline=None, database=None)
    @given(body=BY_PATH[path])
    def collect(body: dict[str, Any]) -> None:
        if not errors_only(validate_request(path, body)):
            found.append(body)

    collect()
    assert found, f"no valid body generated for {path}"
