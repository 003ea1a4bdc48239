"""The emulator's failure conventions: each failure path of the spec can be shown on purpose."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mediagen_nb.emulator._conventions import (
    FACE_ERROR,
    FAIL_ERROR,
    POLICY_ERROR,
    SORA_FACE_ERROR,
    media_seconds,
)
from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import FakeClock


async def run(
    c: httpx2.AsyncClient, clock: FakeClock, family: str, body: dict[str, Any]
) -> list[dict[str, Any]]:
    """Create, then poll every 30 s for an hour; return the distinct result states seen."""
    created = (await c.post(path_of(family), json=body)).json()
    assert created["status"] in ("queued", "processing"), created
    seen: list[dict[str, Any]] = []
    for _ in range(120):
        clock.advance(30)
        result = (await c.get(f"/v1/result/{created['id']}")).json()
        if not seen or seen[-1]["status"] != result["status"]:
            seen.append(result)
    return seen


async def test_policy_trigger_fails_from_the_first_poll() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["sora"], "prompt": "something [POLICY] here"}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "sora", body)
    assert [s["status"] for s in seen] == ["failed"]
    assert seen[0]["error"] == POLICY_ERROR


async def test_policy_trigger_in_seedance_text_content() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["seedance"], "content": [{"type": "text", "text": "[policy] boat"}]}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "seedance", body)
    assert seen[-1]["error"] == POLICY_ERROR


async def test_fail_trigger_fails_after_processing() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["starvideos"], "prompt": "a dragon [fail]"}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "starvideos", body)
    assert [s["status"] for s in seen] == ["queued", "processing", "failed"]
    assert seen[-1]["error"] == FAIL_ERROR
    assert seen[-1]["video_url"] is None


async def test_fail_trigger_on_an_image_task() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["banana"], "prompt": "[fail] owl"}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "banana", body)
    assert seen[-1]["status"] == "failed"


async def test_face_reference_url_in_a_video_request_fails() -> None:
    clock = FakeClock()
    body = {
        **VALID_BODIES["seedance"],
        "content": [
            {"type": "text", "text": "a walk"},
            {
                "type": "image_url",
                "image_url": {"url": "https://e.com/img/Face-01.jpg"},
                "role": "first_frame",
            },
        ],
    }
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "seedance", body)
    assert seen[-1]["status"] == "failed"
    assert seen[-1]["error"] == f"content[1].image_url.url: {FACE_ERROR}"


async def test_sora_portrait_reference_has_its_own_message() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["sora"], "input_reference": ["https://e.com/portrait.jpg"]}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "sora", body)
    assert seen[-1]["error"] == f"input_reference[0]: {SORA_FACE_ERROR}"


async def test_face_reference_is_fine_for_image_families_and_hosts() -> None:
    clock = FakeClock()
    banana = {**VALID_BODIES["banana"], "image_urls": ["https://e.com/face.png"]}
    sora = {**VALID_BODIES["sora"], "image_urls": ["https://face.example.com/landscape.png"]}
    async with client(make_app(clock)) as c:
        assert (await run(c, clock, "banana", banana))[-1]["status"] == "completed"
        assert (await run(c, clock, "sora", sora))[-1]["status"] == "completed"


@pytest.mark.parametrize(
    ("audio", "status"),
    [
        (["https://e.com/a.mp3#t=10", "https://e.com/b.mp3?duration=5"], "completed"),
        (["https://e.com/a.mp3#t=10", "https://e.com/b.mp3?duration=5.5"], "failed"),
        (["https://e.com/a.mp3", "https://e.com/b.mp3", "https://e.com/c.mp3"], "completed"),
        (["https://e.com/a.mp3", "https://e.com/b.mp3", "https://e.com/c.mp3#t=2,8"], "failed"),
    ],
)
async def test_sd2_reference_audio_total_limit(audio: list[str], status: str) -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["sd2_manxue"], "referenceAudios": audio}
    async with client(make_app(clock)) as c:
        seen = await run(c, clock, "sd2_manxue", body)
    assert seen[-1]["status"] == status
    if status == "failed":
        assert seen[-1]["error"].startswith("referenceAudios: reference audio totals")
        assert "15 s" in seen[-1]["error"]


async def test_sd2_audio_assets_count_with_their_url_length() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        upload = {"audioUrls": ["https://e.com/long.mp3#t=16"]}
        data = (await c.post("/asset/sd2Manxue/assetUpload", json=upload)).json()
        asset_id = data["data"]["items"][0]["assetId"]
        clock.advance(60)
        body = {**VALID_BODIES["sd2_manxue"], "referenceAudios": [f"asset://{asset_id}"]}
        seen = await run(c, clock, "sd2_manxue", body)
    assert seen[-1]["status"] == "failed"
    assert "16 s" in seen[-1]["error"]


async def test_starvideos_reference_video_sets_the_length() -> None:
    clock = FakeClock()
    body = {"model": "starvideos_o3", "prompt": "x", "referenceVideos": ["https://e.com/v.mp4#t=7"]}
    async with client(make_app(clock)) as c:
        created = (await c.post(path_of("starvideos"), json=body)).json()
        clock.advance(3600)
        await c.get(f"/v1/result/{created['id']}")
    task = c._transport.app.state.emulator.tasks.get(created["id"])  # type: ignore[attr-defined]
    assert task.spec.seconds == 7.0


@pytest.mark.parametrize(
    ("url", "seconds"),
    [
        ("https://e.com/a.mp3", 5.0),
        ("https://e.com/a.mp3#t=12", 12.0),
        ("https://e.com/a.mp3#t=3,9.5", 6.5),
        ("https://e.com/a.mp3#t=npt:4", 4.0),
        ("https://e.com/a.mp3?duration=2.5", 2.5),
        ("https://e.com/a.mp3?duration=abc", 5.0),
        ("https://e.com/a.mp3#t=-3", 5.0),
        ("https://[bad/a.mp3", 5.0),
    ],
)
def test_media_seconds_reads_fragment_or_query(url: str, seconds: float) -> None:
    assert media_seconds(url) == seconds
