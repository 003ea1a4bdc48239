"""Saved files carry their request, and lineage follows parents back through the history.

Against the loopback emulator (600x) with the history ledger of the test's own home: a
picture is animated and continued; ``mg.lineage`` gives the chain oldest first; ``Save``
(``task.save``, the Studio's full-size bytes) writes the request into the PNG and the MP4;
reading it back refills a panel's form, and names the parameters the catalog no longer knows.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path

import av
import pytest
from PIL import Image

import mediagen_nb as mg
from mediagen_nb._provenance import embed, extract, make_record, sidecar_path
from mediagen_nb.client import AsyncClient, read_request
from mediagen_nb.client._saved import save_with_request
from mediagen_nb.emulator import EmulatorHandle
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._history_panel import HistoryPanel
from mediagen_nb.widgets._session import Session
from tests._support import KEY

pytestmark = pytest.mark.emulator(speed=600.0, api_key=KEY, seed=9)


@pytest.fixture
async def client(emulator: EmulatorHandle) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(emulator.api_key, emulator.base_url, emulator.text_base_url) as c:
        yield c


def first_frame(source: object, text: str) -> list[dict[str, object]]:
    return [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": source}, "role": "first_frame"},
    ]


async def test_parents_and_lineage_follow_picture_animate_continue(client: AsyncClient) -> None:
    image = await (await client.images.create("nano-banana", prompt="a lighthouse")).wait()
    clip = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame(image, "waves"), duration=3
    )
    await clip.wait()
    more = await client.videos.create(
        "seedance_1_5_pro_480p",
        content=first_frame(await clip.last_frame(), "the storm"),
        duration=3,
    )
    await more.wait()
    unrelated = await (await client.images.create("nano-banana", prompt="other")).wait()
    table = mg.history(kind="task").set_index("task_id")
    assert table.loc[more.id, "parents"] == [clip.id]
    assert table.loc[clip.id, "parents"] == [image.id]
    assert table.loc[image.id, "parents"] == []
    chain = mg.lineage(more.id)
    assert list(chain["task_id"]) == [image.id, clip.id, more.id]
    assert list(chain["generation"]) == [2, 1, 0]
    assert list(chain["prompt"]) == ["a lighthouse", "waves", "the storm"]
    assert unrelated.id not in set(chain["task_id"])
    assert list(mg.lineage(image.id)["task_id"]) == [image.id]
    with pytest.raises(KeyError, match="no task or asset"):
        mg.lineage("vid_nope")
    panel = HistoryPanel(session=Session(mode_text="test"))
    panel.set_values(scope="all")
    rows = {row["id"]: row for row in panel.rows}
    assert rows[more.id]["parents"] == [clip.id]  # the card says "made from <clip>"
    assert rows[image.id]["parents"] == []


async def test_saved_files_carry_their_request_and_refill_a_form(
    client: AsyncClient, tmp_path: Path
) -> None:
    image = await (
        await client.images.create("nano-banana-pro", prompt="a red fox", resolution="2k")
    ).wait()
    saved = await image.save(tmp_path)
    assert saved.name == f"{image.id}.png"
    Image.open(saved).verify()  # still a valid PNG
    back = read_request(saved)
    assert (back.family, back.model, back.task_id) == ("banana", "nano-banana-pro", image.id)
    assert back.body == {"model": "nano-banana-pro", "prompt": "a red fox", "resolution": "2k"}
    assert back.unknown == ()
    assert back.notes == ()

    clip = await client.videos.create(
        "seedance_1_5_pro_480p", content=first_frame(image, "it runs"), duration=3
    )
    await clip.wait()
    movie = await clip.save(tmp_path / "clip.mp4")
    with av.open(str(movie)) as container:  # the extra box leaves it playable
        assert sum(1 for _ in container.decode(video=0)) == 36
    clip_back = read_request(movie)
    assert clip_back.parents == (image.id,)
    assert clip_back.body["content"][1]["image_url"]["url"] == image.url

    session = Session(client=client)
    images, videos = ImagePanel(session=session), VideoPanel(session=session)
    videos.set(family="sora")
    images.load_saved(saved)
    assert images.values["family"] == "banana"
    assert images.values["model"] == "nano-banana-pro"
    assert images.body() == back.body
    assert images.notice == f"Filled from the saved request of task {image.id}"
    videos.handle_action({"action": "open_file", "buffers": [movie.read_bytes()]})
    assert videos.values["family"] == "seedance"
    assert videos.body()["content"] == clip_back.body["content"]
    images.handle_action({"action": "open_file", "buffers": [movie.read_bytes()]})
    assert images.notice_kind == "error"
    assert "video" in images.notice


def test_unknown_parameters_are_named_and_left_out(tmp_path: Path) -> None:
    body = {"model": "nano-banana", "prompt": "p", "size": "1:1", "style": "noir", "seed": 4}
    data = embed(_png(), make_record("img_1", "banana", body, ["img_0"]))
    back = read_request(data)
    assert back.unknown == ("seed", "style")
    assert back.body == {"model": "nano-banana", "prompt": "p", "size": "1:1"}
    assert back.notes == ("the catalog no longer knows: seed, style (left out)",)
    assert back.parents == ("img_0",)
    panel = ImagePanel(session=Session(client=None))
    panel.load_saved(data)
    assert panel.notice == (
        "Filled from the saved request of task img_1; "
        "the catalog no longer knows: seed, style (left out)"
    )


def test_formats_without_room_get_a_sidecar(tmp_path: Path) -> None:
    buffer = BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, "JPEG")
    record = make_record("img_2", "banana", {"model": "nano-banana", "prompt": "q"}, [])
    written = save_with_request(buffer.getvalue(), record, tmp_path / "x.jpg")
    assert written == [tmp_path / "x.jpg", sidecar_path(tmp_path / "x.jpg")]
    assert (tmp_path / "x.jpg").read_bytes() == buffer.getvalue()
    assert json.loads(written[1].read_text("utf-8"))["task_id"] == "img_2"
    assert read_request(tmp_path / "x.jpg").body == {"model": "nano-banana", "prompt": "q"}
    assert read_request(written[1].read_bytes()).task_id == "img_2"  # the sidecar dropped
    with pytest.raises(ValueError, match="carries no mediagen_nb request"):
        read_request(buffer.getvalue())


def test_embedding_twice_keeps_one_record() -> None:
    once = embed(_png(), {"task_id": "a"})
    twice = embed(once, {"task_id": "b"})
    assert extract(twice) == {"task_id": "b"}
    assert twice.count(b"iTXtmediagen") == 1
    Image.open(BytesIO(twice)).verify()


def _png() -> bytes:
    buffer = BytesIO()
    Image.new("RGB", (4, 4), (9, 9, 9)).save(buffer, "PNG")
    return buffer.getvalue()
