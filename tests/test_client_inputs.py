"""Results and files as inputs: a Task, a Path or bytes wherever a create takes a media URL.

Against the loopback emulator (600x): the image task's own URL goes out while valid; a
local file goes to the emulator's uploads; an expired URL without a media host is refused
naming the field, with nothing sent; pictures are checked with their real size first.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from mediagen_nb.client import AsyncClient, RequestValidationError, Task
from mediagen_nb.emulator import EmulatorHandle
from tests._support import KEY

pytestmark = pytest.mark.emulator(speed=600.0, api_key=KEY, seed=5)

FRAME_MEAN_TOLERANCE = 3.0
"""Mean absolute difference per channel (0-255) allowed between a clip's last frame and the
next clip's first frame: two H.264 encodes (crf 26 preview, crf 18 continuation) in between."""
FRAME_P99_TOLERANCE = 12
"""The 99th percentile of the per-pixel difference in grey levels (the worst 1 % may differ
more: edges after two encodes)."""


@pytest.fixture
async def client(emulator: EmulatorHandle) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(
        emulator.api_key, emulator.base_url, emulator.text_base_url, recorder=None
    ) as c:
        yield c


def created(emulator: EmulatorHandle) -> int:
    counters = emulator.app.state.emulator.counters
    return int(counters["tasks_created"] + counters["tasks_rejected"])


async def picture(client: AsyncClient, size: str = "1:1") -> Task:
    return await (
        await client.images.create("nano-banana", prompt="a lighthouse", size=size)
    ).wait()


def percentile(difference: Image.Image, share: float) -> int:
    """The grey level (0-255) that ``share`` of the difference's pixels stay at or under."""
    histogram = difference.convert("L").histogram()
    total, running = sum(histogram), 0
    for value, count in enumerate(histogram):
        running += count
        if running >= share * total:
            return value
    return 255


def first_frame_content(source: object, text: str = "animate it") -> list[dict[str, object]]:
    return [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": source}, "role": "first_frame"},
    ]


async def test_an_image_task_goes_where_each_family_takes_a_picture(client: AsyncClient) -> None:
    image = await picture(client)
    seedance = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame_content(image), duration=3
    )
    star = await client.videos.create(
        "starvideos_o3", prompt="the light turns", first_image=image, last_image=image
    )
    banana = await client.images.create("nano-banana", prompt="in winter", image_urls=[image])
    assert seedance.request is not None
    assert star.request is not None
    assert banana.request is not None
    assert seedance.request["content"][1]["image_url"]["url"] == image.url
    assert star.request["first_image"] == star.request["last_image"] == image.url
    assert banana.request["image_urls"] == [image.url]
    assert seedance.parents == star.parents == banana.parents == [image.id]
    await seedance.wait()
    await star.wait()
    await banana.wait()


async def test_the_next_clip_starts_on_the_last_frame_of_the_previous(
    client: AsyncClient,
) -> None:
    image = await picture(client)
    first = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame_content(image), duration=3
    )
    await first.wait()
    last = await first.last_frame()
    assert last.suffix == ".png"
    assert last.is_file()
    second = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame_content(last, "go on"), duration=3
    )
    assert second.parents == [first.id]  # the frame PNG names the video it came from
    await second.wait()
    before = Image.open(last).convert("RGB")
    after = Image.open(await second.first_frame()).convert("RGB")
    assert before.size == after.size == (480, 480)  # adaptive: the picture's 1:1
    difference = ImageChops.difference(before, after)
    assert max(ImageStat.Stat(difference).mean) <= FRAME_MEAN_TOLERANCE
    worst = percentile(difference, 0.99)
    assert worst <= FRAME_P99_TOLERANCE
    # and it is not just any picture: the clip's own first frame differs from its last
    opening = Image.open(await first.first_frame()).convert("RGB")
    assert (
        max(ImageStat.Stat(ImageChops.difference(opening, before)).mean) > 3 * FRAME_MEAN_TOLERANCE
    )


async def test_a_local_file_goes_to_the_emulator_once(
    client: AsyncClient, emulator: EmulatorHandle, tmp_path: Path
) -> None:
    file = tmp_path / "face.png"
    buffer = BytesIO()
    Image.new("RGB", (640, 640), (200, 120, 40)).save(buffer, "PNG")
    file.write_bytes(buffer.getvalue())
    await picture(client)  # the client learns the service is the emulator
    one = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame_content(file), duration=3
    )
    two = await client.videos.create("starvideos_o3", prompt="p", first_image=file, last_image=file)
    assert one.request is not None
    assert two.request is not None
    url = one.request["content"][1]["image_url"]["url"]
    assert "/media/uploads/" in url
    assert two.request["first_image"] == url  # same bytes, one upload
    assert one.parents == []  # a plain file was made from nothing we know
    assert await client.assets.fetch_media(url, max_bytes=10_000_000) == file.read_bytes()


async def test_an_expired_result_without_a_host_is_refused_and_nothing_is_sent(
    emulator: EmulatorHandle,
) -> None:
    async with AsyncClient(
        emulator.api_key, emulator.base_url, emulator.text_base_url, recorder=None
    ) as client:
        image = await picture(client)
        client._ctx.host_file = None  # as on the real service: no emulator to upload to
        image.url_expires = time.time() - 60
        before = created(emulator)
        with pytest.raises(RequestValidationError) as caught:
            await client.videos.create(
                "starvideos_o3", prompt="p", first_image=image, last_image=image
            )
        assert created(emulator) == before
    fields = [p.field for p in caught.value.problems]
    assert fields == ["first_image", "last_image"]
    rule = caught.value.problems[0].rule
    assert rule.startswith("this picture's service URL expired at ")
    assert "MEDIAGEN_MEDIA_HOST" in rule
    assert "public URL" in rule


async def test_pictures_are_checked_with_their_real_size(
    client: AsyncClient, emulator: EmulatorHandle
) -> None:
    square = await picture(client)  # 1024x1024
    before = created(emulator)
    with pytest.raises(RequestValidationError) as caught:
        await client.videos.create(
            "neutralSora2Plus", prompt="p", size="1280x720", input_reference=[square]
        )
    assert [str(p) for p in caught.value.problems] == [
        "input_reference[0]: sora needs a 1280x720 picture for landscape; this one is 1024x1024"
    ]
    tiny = BytesIO()
    Image.new("RGB", (200, 640)).save(tiny, "JPEG")
    with pytest.raises(RequestValidationError) as caught:
        await client.videos.create(
            "seedance_1_5_pro_480p", content=first_frame_content(tiny.getvalue())
        )
    rules = [str(p) for p in caught.value.problems]
    assert rules == [
        "content[1].image_url.url: seedance needs 300 to 6000 px a side; this one is 200x640",
        "content[1].image_url.url: seedance needs a width/height ratio of 0.4 to 2.5; "
        "this one is 200x640 (0.31)",
    ]
    assert created(emulator) == before
    wide = await picture(client, "16:9")
    with pytest.raises(RequestValidationError, match="1280x720"):
        await client.videos.create(
            "neutralSora2Plus", prompt="p", aspect_ratio="16:9", image_urls=[wide]
        )


async def test_a_video_where_a_picture_goes_and_an_unfinished_task_are_refused(
    client: AsyncClient,
) -> None:
    image = await picture(client)
    clip = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame_content(image), duration=3
    )
    with pytest.raises(RequestValidationError, match="has not completed"):
        await client.images.create("nano-banana", prompt="p", image_urls=[clip])
    await clip.wait()
    with pytest.raises(RequestValidationError, match=r"image_urls\[0\]: takes a picture"):
        await client.images.create("nano-banana", prompt="p", image_urls=[clip])
    with pytest.raises(RequestValidationError, match="prompt: takes no media file"):
        await client.images.create("nano-banana", prompt=await image.read_bytes())


async def test_an_asset_upload_takes_a_task_and_the_asset_becomes_a_parent(
    client: AsyncClient,
) -> None:
    image = await picture(client)
    info = await client.assets.upload(image, "Image", name="face")
    assert info.url == image.url
    batch = await client.assets.sd2_upload(image_urls=[await image.read_bytes()])
    assert "/media/uploads/" in str(batch.items[0].originalUrl)
    await client.assets.wait_active([info.assetId])
    clip = await client.videos.create(
        "seedance-2.0",
        family="seedance2",
        prompt="she turns",
        referenceImages=[client.assets.asset_uri(info.assetId)],
    )
    assert clip.parents == [info.assetId]
    with pytest.raises(RequestValidationError, match=r"imageUrls\[0\]: cannot read"):
        await client.assets.sd2_upload(image_urls=[Path("/nonexistent/face.png")])
