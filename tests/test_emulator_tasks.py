"""Image and video tasks in the emulator: creates, timelines, result shapes, polling, expiry."""

from __future__ import annotations

import io
from typing import Any

import av
import pytest
from PIL import Image

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.emulator import _anchors
from mediagen_nb.emulator._tasks import DEFAULT_RETENTION_S, MAX_ERROR_PROBLEMS
from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import FakeClock

CREATE_OBJECT = {
    "banana": "nanobanana",
    "image2": "image",
    "sora": "video.generation",
    "seedance": "video",
    "starvideos": "video",
    "sd2_manxue": "video",
}
RESULT_OBJECT = {"image2": "image.generation", "seedance": "video", "sd2_manxue": "video"}


async def create(c: Any, family_id: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = await c.post(
        path_of(family_id), json=VALID_BODIES[family_id] if body is None else body
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    data: dict[str, Any] = response.json()
    return data


async def finish(c: Any, clock: FakeClock, task_id: str, seconds: float = 3600) -> dict[str, Any]:
    """Advance the clock past any ETA (at speed 1) and poll once."""
    clock.advance(seconds)
    response = await c.get(f"/v1/result/{task_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


@pytest.mark.parametrize("family_id", sorted(FAMILIES))
async def test_every_create_path_accepts_a_valid_body_and_completes(family_id: str) -> None:
    clock = FakeClock()
    fam = FAMILIES[family_id]
    async with client(make_app(clock)) as c:
        created = await create(c, family_id)
        assert created["status"] == ("processing" if fam.kind == "image" else "queued")
        assert created["model"] == VALID_BODIES[family_id]["model"]
        assert created["created"] == int(clock.now)
        if family_id in CREATE_OBJECT:
            assert created["object"] == CREATE_OBJECT[family_id]
        if family_id == "banana":
            assert "error" not in created
        else:
            assert created["error"] is None
        result = await finish(c, clock, created["id"])
    assert result["status"] == "completed"
    assert result["id"] == created["id"]
    assert result["error"] is None
    url_key = "image_url" if fam.kind == "image" else "video_url"
    other = "video_url" if fam.kind == "image" else "image_url"
    assert result[url_key].startswith("http://emu.test/api/media/")
    assert other not in result
    if family_id in RESULT_OBJECT:
        assert result["object"] == RESULT_OBJECT[family_id]
    if family_id == "vidu":
        assert result["object"] == "Video"
        assert result["totalTokens"] == 4000
    if family_id in ("seedance", "sd2_manxue", "vidu", "seedance2"):
        assert result["actualDuration"] == VALID_BODIES[family_id]["duration"]
    else:
        assert "actualDuration" not in result


async def test_video_timeline_queued_processing_completed_and_terminal_is_frozen() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(c, "seedance")
        task_id = created["id"]
        seen: list[str] = []
        for _ in range(20):  # 30 s apart (720p minimum); 600 s > its ETA of at most 300 s
            clock.advance(30)
            response = await c.get(f"/v1/result/{task_id}")
            assert response.status_code == 200
            body = response.json()
            if not seen or seen[-1] != body["status"]:
                seen.append(body["status"])
            if body["status"] == "processing":
                assert body["video_url"] is None
                assert "actualDuration" not in body
        final = response.content
        clock.advance(10_000)
        assert (await c.get(f"/v1/result/{task_id}")).content == final
    assert seen == ["queued", "processing", "completed"]


async def test_image_tasks_start_processing() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(c, "image2")
        clock.advance(2)
        body = (await c.get(f"/v1/result/{created['id']}")).json()
    assert body["status"] == "processing"
    assert body["image_url"] is None


async def test_timings_follow_the_catalog_eta_scaled_by_speed() -> None:
    clock = FakeClock()
    async with client(make_app(clock, speed=10)) as c:
        created = await create(
            c, "seedance", {**VALID_BODIES["seedance"], "model": "seedance_1_5_pro_480p"}
        )
        clock.advance(2.9)  # 30 s of service time / 10: below the low end of the ETA
        assert (await c.get(f"/v1/result/{created['id']}")).json()["status"] != "completed"
        clock.advance(12.2)  # past 120 s / 10
        assert (await c.get(f"/v1/result/{created['id']}")).json()["status"] == "completed"


async def test_seedance_auto_duration_picks_4_to_12_seconds() -> None:
    clock = FakeClock()
    body = {**VALID_BODIES["seedance"], "duration": -1}
    async with client(make_app(clock, seed=None)) as c:
        durations = set()
        for _ in range(12):
            created = await create(c, "seedance", body)
            durations.add((await finish(c, clock, created["id"]))["actualDuration"])
    assert durations <= set(range(4, 13))
    assert len(durations) > 1


async def test_vidu_total_tokens_null_until_completed() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(c, "vidu", {**VALID_BODIES["vidu"], "model": "viduq3-pro"})
        clock.advance(30)
        early = (await c.get(f"/v1/result/{created['id']}")).json()
        late = await finish(c, clock, created["id"])
    assert early["totalTokens"] is None
    assert late["totalTokens"] == 8000


async def test_invalid_create_is_a_failed_create_response_naming_field_and_rule() -> None:
    clock = FakeClock()
    body = {"model": "gpt-image-2", "prompt": "x", "resolution": "4k", "ratio": "1:1"}
    async with client(make_app(clock)) as c:
        created = await create(c, "image2", body)
        assert created["status"] == "failed"
        assert "resolution" in created["error"] or "ratio" in created["error"]
        clock.advance(5)
        result = (await c.get(f"/v1/result/{created['id']}")).json()
    assert result["status"] == "failed"
    assert result["error"] == created["error"]
    assert result["image_url"] is None


@pytest.mark.parametrize("body", [[], "text", 42, None, {"prompt": 5}])
async def test_non_object_and_ill_typed_bodies_fail_cleanly(body: Any) -> None:
    async with client(make_app(FakeClock())) as c:
        created = await create(c, "sora", body) if body is not None else None
        if created is None:
            response = await c.post(
                path_of("sora"), content=b"null", headers={"content-type": "application/json"}
            )
            created = response.json()
    assert created["status"] == "failed"
    assert created["error"]


async def test_error_text_is_bounded() -> None:
    body = {"model": "nano-banana", "prompt": "x", "image_urls": ["nope"] * 200}
    async with client(make_app(FakeClock())) as c:
        created = await create(c, "banana", body)
    assert created["error"].count(";") <= MAX_ERROR_PROBLEMS
    assert created["error"].endswith("more)")


async def test_polling_too_fast_gets_429_with_retry_after() -> None:
    clock = FakeClock()
    async with client(make_app(clock, speed=2)) as c:
        created = await create(
            c, "seedance", {**VALID_BODIES["seedance"], "model": "seedance_1_5_pro_480p"}
        )
        task_id = created["id"]
        clock.advance(1)  # min interval 10 s / speed 2 = 5 s
        early = await c.get(f"/v1/result/{task_id}")
        assert early.status_code == 429
        assert early.json()["error"]["type"] == "rate_limit_error"
        wait = float(early.headers["retry-after"])
        assert 3.9 < wait <= 4.2
        clock.advance(wait)
        assert (await c.get(f"/v1/result/{task_id}")).status_code == 200
        clock.advance(2)
        assert (await c.get(f"/v1/result/{task_id}")).status_code == 429
        clock.advance(3)
        assert (await c.get(f"/v1/result/{task_id}")).status_code == 200
        assert c._transport.app.state.emulator.counters["poll_too_fast"] == 2  # type: ignore[attr-defined]


async def test_unknown_and_hostile_ids_are_404() -> None:
    async with client(make_app(FakeClock())) as c:
        for task_id in (
            "vid_000000000000000000000000",
            "..",
            "a" * 200,
            "x%2F..%2Fetc",
            "%E2%80%AE",
        ):
            response = await c.get(f"/v1/result/{task_id}")
            assert response.status_code == 404, task_id
            assert response.json()["error"]["type"] == "not_found_error"


async def test_media_is_real_and_expires_then_is_purged() -> None:
    clock = FakeClock()
    app = make_app(clock, speed=100)
    async with client(app) as c:
        created = await create(
            c, "image2", {"model": "gpt-image-2", "prompt": "owl", "ratio": "16:9"}
        )
        result = await finish(c, clock, created["id"], seconds=10)
        url = result["image_url"]
        got = await c.get(url)
        assert got.status_code == 200
        assert got.headers["content-type"] == "image/png"
        assert Image.open(io.BytesIO(got.content)).size == (1024, 576)
        nobody = await client(app, key=None).get(url)  # a direct link: no key needed
        assert nobody.status_code == 200
        clock.advance(86_400 / 100)  # image2 URLs live 24 h
        expired = await c.get(url)
        assert expired.status_code == 410
        assert expired.json()["error"]["type"] == "gone_error"
        assert (await c.get(f"/v1/result/{created['id']}")).json()["image_url"] == url
        clock.advance(DEFAULT_RETENTION_S / 100)
        assert (await c.get(url)).status_code == 404
        assert (await c.get(f"/v1/result/{created['id']}")).status_code == 404
    assert len(app.state.emulator.tasks) == 0


async def test_video_media_is_a_playable_mp4_of_actual_duration() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(
            c, "seedance", {**VALID_BODIES["seedance"], "duration": 2, "ratio": "9:16"}
        )
        result = await finish(c, clock, created["id"])
        got = await c.get(result["video_url"])
    assert got.headers["content-type"] == "video/mp4"
    with av.open(io.BytesIO(got.content)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.name == "h264"
        assert (stream.width, stream.height) == (270, 480)
        duration = getattr(container, "duration", None)  # an input container's
        assert duration is not None
        assert float(duration / av.time_base) == pytest.approx(2.0, abs=0.15)


async def test_media_with_wrong_suffix_or_token_is_404() -> None:
    clock = FakeClock()
    async with client(make_app(clock)) as c:
        created = await create(c, "banana")
        url = (await finish(c, clock, created["id"]))["image_url"]
        assert (await c.get(url.replace(".png", ".mp4"))).status_code == 404
        assert (await c.get("/media/" + "0" * 32 + ".png")).status_code == 404
        assert (await c.get("/media/..%2F..%2Fetc%2Fpasswd")).status_code == 404


async def test_seedance_records_are_purged_after_one_day() -> None:
    clock = FakeClock()
    app = make_app(clock)
    async with client(app) as c:
        created = await create(c, "seedance")
        await finish(c, clock, created["id"])
        clock.advance(86_400)
        assert (await c.get(f"/v1/result/{created['id']}")).status_code == 404


async def test_task_count_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mediagen_nb.emulator._tasks.MAX_TASKS", 5)
    app = make_app(FakeClock())
    async with client(app) as c:
        ids = [(await create(c, "banana"))["id"] for _ in range(8)]
    store = app.state.emulator.tasks
    assert len(store) == 5
    assert store.get(ids[0]) is None
    assert store.get(ids[-1]) is not None


async def test_an_invalid_video_body_is_refused_before_its_first_frame_is_looked_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a first-frame lookup may render the picture it names: a body that breaks a rule
    # gets its error without that work
    looked_up: list[str] = []

    async def picture(state: Any, url: str) -> bytes | None:
        looked_up.append(url)
        return None

    monkeypatch.setattr(_anchors, "_picture", picture)
    frame = "http://emu.test/api/media/" + "ab" * 16 + ".png"
    content = [
        {"type": "text", "text": "a walk"},
        {"type": "image_url", "image_url": {"url": frame}, "role": "first_frame"},
    ]
    valid = {**VALID_BODIES["seedance"], "content": content}
    async with client(make_app(FakeClock())) as c:
        refused = await create(c, "seedance", {**valid, "duration": 99})
        assert refused["status"] == "failed"
        assert refused["error"].startswith("duration: ")
        assert looked_up == []
        accepted = await create(c, "seedance", valid)
    assert accepted["status"] == "queued"
    assert looked_up == [frame]
