"""Issue 15, client side: size, model names, Chinese characters, reference video length.

For each kind, ``validate_request`` names the field as the user sees it and the rule, and the
``AsyncClient`` raises ``RequestValidationError`` with that problem while its transport
sees nothing. (The emulator's side of each kind is ``test_emulator_edges.py``.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.client import AsyncClient, TaskFailedError
from mediagen_nb.types import validate_request
from mediagen_nb.types._images import parse_size
from tests._emulator_helpers import make_app
from tests._support import KEY, FakeClock
from tests._validation_helpers import (
    SEEDANCE,
    NoNetwork,
    first_error,
    refused,
    silent_client,
)


@pytest.fixture
def wire() -> NoNetwork:
    return NoNetwork()


@pytest.fixture
async def client(wire: NoNetwork) -> AsyncIterator[AsyncClient]:
    async with silent_client(wire) as c:
        yield c


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


@pytest.mark.parametrize(
    ("path", "model"),
    [("/v1/chat/completions", "gpt-image-2"), ("/v1/messages", "nano-banana-pro")],
)
async def test_an_image_model_is_refused_on_the_text_endpoints(
    path: str, model: str, client: AsyncClient, wire: NoNetwork
) -> None:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
    if path.endswith("messages"):
        body["max_tokens"] = 8
    await refused(client, wire, path, body, "model", "not to the text models", "send it to")
    first_error(path, body, "model", "belongs to", allow_unknown_models=True)


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
        created_status: str = task.status
        assert created_status == "queued"
        with pytest.raises(TaskFailedError) as info:
            await task.wait()
    assert task.status == "failed"
    assert "referenceVideos[0]" in str(info.value)
    assert "12 s" in str(info.value)
    assert "3 to 10 s" in str(info.value)
