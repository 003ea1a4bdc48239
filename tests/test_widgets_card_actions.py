"""Card actions, headless: which families take a picture (from the catalog), the reason when
none fits, and the Studio carrying out Animate, Use as reference and Continue from last
frame against the loopback emulator, with the next request recording its parent."""

from __future__ import annotations

import asyncio
import time

import pytest

import mediagen_nb as mg
from mediagen_nb import _hooks
from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.catalog import FAMILIES
from mediagen_nb.client import AsyncClient, Task
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.history import ledger
from mediagen_nb.widgets import Studio
from mediagen_nb.widgets._card_actions import card_actions
from mediagen_nb.widgets._generate_panel import GeneratePanel
from mediagen_nb.widgets._session import Session
from tests._support import KEY

pytestmark = pytest.mark.emulator(speed=600.0, api_key=KEY, seed=13)


def actions(kind: str, size: tuple[int, int]) -> dict[str, dict[str, str]]:
    """action -> {family: reason} ("" where it fits)."""
    return {a.name: {t.family: t.reason for t in a.targets} for a in card_actions(kind, size)}


def test_the_catalog_decides_where_a_picture_goes() -> None:
    square = actions("image", (1024, 1024))
    assert list(square) == ["animate", "reference", "first_frame", "last_frame", "asset"]
    assert all(FAMILIES[f].kind == "video" for f in square["animate"])
    assert list(square["animate"])[:2] == ["seedance", "starvideos"]  # documented first
    assert square["reference"]["banana"] == ""
    assert square["reference"]["sora"] == (
        "sora needs a 720x1280 picture for portrait; this one is 1024x1024"
    )
    wide = card_actions("image", (1280, 720))
    sora = next(t for a in wide if a.name == "reference" for t in a.targets if t.family == "sora")
    assert (sora.reason, sora.preset) == ("", {"size": "1280x720"})
    small = actions("video", (480, 270))
    assert small["continue"]["seedance"] == (
        "seedance needs 300 to 6000 px a side; this one is 480x270"
    )
    assert small["continue"]["starvideos"] == ""
    thin = {a.name: a for a in card_actions("image", (100, 1000))}
    assert thin["animate"].enabled  # families without picture rules still take it
    assert thin["animate"].usable()[0].family == "starvideos"


async def wait_done(panel: GeneratePanel, count: int) -> None:
    for _ in range(600):
        cards = panel.cards
        if len(cards) >= count and all(c.done and (c.source or c.error) for c in cards):
            return
        await asyncio.sleep(0.05)
    raise AssertionError([(c.status, c.error) for c in panel.cards])


async def newest_task(client: AsyncClient, panel: GeneratePanel) -> Task:
    card = panel.cards[0]
    task = client.tasks.attach(card.task_id, card.family, card.model)
    return await task.refresh()


async def test_animate_then_continue_from_the_studio(emulator: EmulatorHandle) -> None:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        studio = Studio(session=Session(client=client), resume=False)
        images, videos = studio.images, studio.videos
        images.set(prompt="a lighthouse at dusk")
        images.generate()
        await wait_done(images, 1)
        card = images.cards[0]
        assert {a["action"]: a["enabled"] for a in card.to_json()["actions"]}["animate"]

        target = await studio.use(images, card.id, "animate")
        assert target is not None
        assert target.family == "seedance"
        assert studio.tab == "Videos"
        body = videos.body()
        assert body["content"][0] == {"type": "text", "text": "a lighthouse at dusk"}
        assert body["content"][1]["image_url"]["url"] == card.url  # its own URL, still valid
        assert body["content"][1].get("role", "first_frame") == "first_frame"
        videos.set(duration=3)
        assert videos.body()["ratio"] == "adaptive"  # the clip takes the picture's shape
        videos.generate()
        await wait_done(videos, 1)
        clip = videos.cards[0]
        assert clip.parents == [card.task_id]  # the URL named the picture's task

        target = await studio.use(videos, clip.id, "continue")
        frame_url = videos.body()["content"][1]["image_url"]["url"]
        assert "/media/uploads/" in frame_url  # the last frame went to the emulator
        videos.generate()
        await wait_done(videos, 2)
        assert videos.cards[0].parents == [clip.task_id]

        await studio.use(images, card.id, "reference", "banana")
        assert studio.tab == "Images"
        assert images.body()["image_urls"] == [card.url]

        assert await studio.use(images, card.id, "reference", "sora") is None
        assert images.notice == (
            "Use as reference: sora needs a 720x1280 picture for portrait; this one is 1024x1024"
        )
        studio.close()


async def test_a_face_goes_through_the_asset_library(emulator: EmulatorHandle) -> None:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        studio = Studio(session=Session(client=client), resume=False)
        images, videos = studio.images, studio.videos
        images.set(prompt="portrait of a smiling face")
        images.generate()
        await wait_done(images, 1)
        card = images.cards[0]
        target = await studio.use(images, card.id, "asset", "seedance2")
        assert target is not None
        assert studio.tab == "Videos"
        refs = videos.body()["referenceImages"]
        assert len(refs) == 1
        assert refs[0].startswith("asset://asset-")
        asset_id = refs[0].removeprefix("asset://")
        assert client.assets.known_status(asset_id) == "Active"
        assert [a.asset_id for a in studio.session.active_assets] == [asset_id]
        videos.set(model="seedance-2.0", prompt="she waves")
        videos.generate()
        await wait_done(videos, 1)
        assert videos.cards[0].status == "completed"
        assert videos.cards[0].parents == [asset_id]
        studio.close()


async def test_reopen_restores_an_expired_reference(emulator: EmulatorHandle) -> None:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        image = await (await client.images.create("nano-banana", prompt="a harbour")).wait()
        clip = await client.videos.create(
            "seedance_1_5_pro_480p",
            content=[
                {"type": "text", "text": "boats"},
                {"type": "image_url", "image_url": {"url": image.url}, "role": "first_frame"},
            ],
            duration=3,
        )
        await clip.wait()
    # a new kernel: a fresh client that has never seen the picture, whose URL has expired
    ledger().record(LedgerEvent("task", "status", image.id, data={"url_expires": time.time() - 60}))
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as fresh:
        studio = Studio(session=Session(client=fresh), resume=False)
        studio.history.set_values(scope="all")
        studio.history.reopen(clip.id)
        videos = studio.videos
        assert videos.body()["content"][1]["image_url"]["url"] == image.url  # at once
        for _ in range(200):
            restored = videos.body()["content"][1]["image_url"]["url"]
            if restored != image.url:
                break
            await asyncio.sleep(0.05)
        assert "/media/uploads/" in restored, videos.errors  # the kept file, hosted again
        videos.generate()
        await wait_done(videos, 1)
        assert videos.cards[0].parents == [image.id]
        studio.close()


async def test_an_asset_keeps_the_picture_it_was_made_from(
    emulator: EmulatorHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Demo mode: picture -> "Send to the asset library" -> a video using the asset; the
    lineage of the video shows all three, and the asset's row names the picture."""
    monkeypatch.setattr(_hooks, "_fallback_factory", emulator.endpoint)
    studio = Studio(session=Session(), resume=False)
    assert studio.session.demo
    images, videos = studio.images, studio.videos
    images.set(prompt="portrait of a smiling face")
    images.generate()
    await wait_done(images, 1)
    picture = images.cards[0]
    assert await studio.use(images, picture.id, "asset", "seedance2") is not None
    asset_id = videos.body()["referenceImages"][0].removeprefix("asset://")
    videos.set(model="seedance-2.0", prompt="she waves")
    videos.generate()
    await wait_done(videos, 1)
    clip = videos.cards[0]
    assert clip.parents == [asset_id]

    chain = mg.lineage(clip.task_id)
    assert list(chain["task_id"]) == [picture.task_id, asset_id, clip.task_id]
    assert list(chain["generation"]) == [2, 1, 0]
    assert list(chain["status"])[:1] == ["completed"]
    assets = mg.history(kind="asset")
    assert list(assets.loc[assets["task_id"] == asset_id, "parents"]) == [[picture.task_id]]
    studio.close()
    await studio.session.aclose()


async def test_client_uploads_record_the_task_they_show(emulator: EmulatorHandle) -> None:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as client:
        one = await (await client.images.create("nano-banana", prompt="a fox")).wait()
        two = await (await client.images.create("nano-banana", prompt="a hare")).wait()
        single = await client.assets.upload(one, "Image", name="fox")  # a Task passed in
        assert one.url is not None
        by_url = await client.assets.upload(one.url, "Image")  # its URL, as a string
        batch = await client.assets.sd2_upload(image_urls=[two, one])
        plain = await client.assets.upload("https://example.com/cat.png", "Image")
    rows = {r["task_id"]: r["parents"] for r in mg.history_records(kind="asset")}
    assert rows[single.assetId] == [one.id]
    assert rows[by_url.assetId] == [one.id]
    assert [rows[item.assetId] for item in batch.items] == [[two.id], [one.id]]
    assert rows[plain.assetId] == []
