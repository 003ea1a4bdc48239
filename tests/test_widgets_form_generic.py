"""Forms are data: a made-up family, registered in the catalog with today's shapes (a prompt
and images as items of a ``content`` array under a "start from" selector, an orientation
choice standing for an exclusive API pair, a length read back from either of two names, a
mode selector over plain fields), gets a working panel form with no change under
``widgets/``: values -> body -> validation -> create on the emulator -> load back."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

import mediagen_nb
from mediagen_nb.catalog import FAMILIES, VALUE, Family, FormControl, Param, register_family
from mediagen_nb.catalog._controls import form_spec
from mediagen_nb.catalog._families import REFERENCE_FIELDS
from mediagen_nb.catalog._labels import ORIENTATIONS
from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator import create_app
from mediagen_nb.widgets._generate_panel import VideoPanel
from mediagen_nb.widgets._session import Session

KEY = "test-key-0123456789"
WIDGETS = Path(mediagen_nb.__file__).parent / "widgets"


def _family(family_id: str, models: tuple[str, ...]) -> Family:
    return Family(
        id=family_id,
        kind="video",
        title=f"{family_id.capitalize()} (made up)",
        create_path=f"/v1/{family_id}/videos",
        models=models,
        documented=True,
        max_resolution="1080p",
        duration_range=(4, 12),
        poll_interval=(30.0, 60.0),
        eta_s=(120.0, 300.0),
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object=None,
        description="A family made up by a test.",
        reference_fields=REFERENCE_FIELDS,
    )


def _image(role: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": VALUE}, "role": role}


SHOWS = {"text": (), "first_frame": ("first_frame",), "reference_images": ("reference_images",)}
COMET_FORM = (
    FormControl(
        Param("prompt", "text", "What happens.", required=True),
        send="item",
        to="content",
        item={"type": "text", "text": VALUE},
    ),
    FormControl(
        Param("scenario", "enum", "", options=tuple(SHOWS), default="text"),
        send="selector",
        shows=SHOWS,
        needs=SHOWS,
        label="Start from",
    ),
    FormControl(
        Param("first_frame", "url", "", carry="first_frame"),
        send="item",
        to="content",
        item=_image("first_frame"),
        item_optional=("role",),
    ),
    FormControl(
        Param("reference_images", "url_list", "1 to 3 images.", max_items=3),
        send="item",
        to="content",
        item=_image("reference_image"),
    ),
    FormControl(
        Param(
            "orientation",
            "enum",
            "",
            options=tuple(ORIENTATIONS),
            default="portrait",
            carry="ratio",
        ),
        send="choice",
        to="aspect_ratio",
        reads=("size",),
        table=ORIENTATIONS,
    ),
    FormControl(
        Param("length", "enum", "Seconds.", options=(4, 8, 12), carry="length"),
        to="duration",
        reads=("seconds",),
    ),
    FormControl(Param("generate_audio", "bool", "Sound.", default=True)),
)
NOVA_PARAMS = (
    Param("prompt", "text", "What happens.", True),
    Param("duration", "int", "Seconds.", default=5, minimum=4, maximum=12),
    Param("referenceImages", "url_list", "Images.", max_items=3),
    Param("first_image", "url", "First frame."),
    Param("last_image", "url", "Last frame."),
    Param("referenceVideos", "url_list", "One video.", max_items=1),
    Param("negative_prompt", "text", "What to leave out."),
)
MODES = {
    "text": ("duration",),
    "images": ("referenceImages", "duration"),
    "frames": ("first_image", "last_image", "duration"),
    "video": ("referenceVideos",),
}
NOVA_FORM = (
    FormControl("prompt"),
    FormControl(
        Param("mode", "enum", "What the video is made from.", options=tuple(MODES)),
        send="selector",
        shows=MODES,
        needs={k: tuple(v for v in keys if v != "duration") for k, keys in MODES.items()},
    ),
    *(FormControl(p.name) for p in NOVA_PARAMS[1:]),
)


@pytest.fixture
def made_up() -> Iterator[None]:
    """Two made-up families in the catalog for one test, gone again afterwards."""
    undo = [
        register_family(_family("comet", ("comet-1", "comet-1-fast")), (), COMET_FORM),
        register_family(_family("nova", ("nova-1",)), NOVA_PARAMS, NOVA_FORM, {"nova-1": "Nova"}),
    ]
    yield
    for remove in undo:
        remove()
    assert "comet" not in FAMILIES
    assert "comet" not in [f["id"] for f in form_spec("video")["families"]]


@pytest.fixture
async def session(made_up: None) -> AsyncIterator[Session]:
    app = create_app(api_key=KEY, speed=2000.0, seed=1)  # routes of the families now listed
    client = AsyncClient(
        api_key=KEY,
        base_url="http://emulator.test/api",
        text_base_url="http://emulator.test/gateway",
        transport=httpx2.ASGITransport(app=app),
    )
    yield Session(client=client)
    await client.aclose()


def errors_of(panel: VideoPanel, key: str) -> list[str]:
    return [p["message"] for p in panel.problems if p["key"] == key and p["error"]]


def test_widget_code_names_no_family() -> None:
    pattern = re.compile(r"seedance|starvideos|sora|banana|image2|sd2")
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(WIDGETS.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line.lower())
    ]
    assert found == []


def test_made_up_family_gets_a_form_in_the_users_words(made_up: None) -> None:
    comet = next(f for f in form_spec("video")["families"] if f["id"] == "comet")
    assert [(c["key"], c["type"], c["label"]) for c in comet["controls"]] == [
        ("prompt", "text", "Prompt"),
        ("scenario", "segmented", "Start from"),
        ("first_frame", "ref", "First frame"),
        ("reference_images", "refs", "Reference images"),
        ("orientation", "segmented", "Orientation"),
        ("length", "segmented", "Length"),
        ("generate_audio", "checkbox", "Sound"),
    ]
    by_key = {c["key"]: c for c in comet["controls"]}
    assert by_key["first_frame"]["show_when"] == {"key": "scenario", "in": ["first_frame"]}
    assert [o["value"] for o in by_key["orientation"]["options"]] == ["portrait", "landscape"]
    assert [o["value"] for o in by_key["length"]["options"]] == ["", 4, 8, 12]
    nova = next(f for f in form_spec("video")["families"] if f["id"] == "nova")
    assert nova["models"] == [{"value": "nova-1", "label": "Nova", "title": "nova-1"}]


async def test_content_array_family_end_to_end(session: Session) -> None:
    panel = VideoPanel(session=session)
    panel.select("comet-1")
    assert panel.hint == "Add a prompt to generate"
    panel.set(prompt="a comet over the sea", scenario="reference_images", orientation="landscape")
    assert errors_of(panel, "reference_images") == ["Reference images: is required"]
    panel.set(reference_images=["https://e.org/1.png", "https://e.org/2.png"], length=8)
    body = {
        "model": "comet-1",
        "content": [
            {"type": "text", "text": "a comet over the sea"},
            *(
                {"type": "image_url", "image_url": {"url": f"https://e.org/{n}.png"}}
                | {"role": "reference_image"}
                for n in (1, 2)
            ),
        ],
        "aspect_ratio": "16:9",
        "duration": 8,
        "generate_audio": True,
    }
    assert panel.body() == body
    assert panel.valid, panel.problems
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert (card.status, card.body) == ("completed", body)
    ledger = mediagen_nb.history()
    assert ledger[ledger["task_id"] == card.task_id]["request"].iloc[-1] == body
    again = VideoPanel(session=session)
    again.load(body, "comet")
    assert (again.values["scenario"], again.values["orientation"]) == (
        "reference_images",
        "landscape",
    )
    assert again.body() == body
    panel.close()
    again.close()


def test_alternative_names_and_role_less_items_load_back(made_up: None) -> None:
    panel = VideoPanel(session=Session(mode_text="test"))
    frame = {"type": "image_url", "image_url": {"url": "https://e.org/f.png"}}
    panel.load(
        {
            "model": "comet-1-fast",
            "content": [{"type": "text", "text": "p"}, frame],
            "size": "9:16",
            "seconds": 4,
        },
        "comet",
    )
    assert panel.values["scenario"] == "first_frame"
    assert panel.values["first_frame"] == "https://e.org/f.png"
    assert (panel.values["orientation"], panel.values["length"]) == ("portrait", 4)
    assert panel.body()["content"][1]["role"] == "first_frame"
    assert panel.body()["aspect_ratio"] == "9:16"


def test_work_carries_into_the_made_up_family(made_up: None) -> None:
    panel = VideoPanel(session=Session(mode_text="test"), model="neutralSora2Plus")
    panel.set(prompt="a lighthouse", orientation="landscape", length=12)
    panel.select_family("comet")
    assert panel.values["prompt"] == "a lighthouse"
    assert (panel.values["orientation"], panel.values["length"]) == ("landscape", 12)
    panel.select_family("nova")
    assert (panel.values["prompt"], panel.values["mode"]) == ("a lighthouse", "text")


@pytest.mark.parametrize(
    ("mode", "filled"),
    [
        ("text", {"duration": 6}),
        ("images", {"referenceImages": ["https://e.org/a.png"], "duration": 4}),
        ("frames", {"first_image": "https://e.org/a.png", "last_image": "https://e.org/b.png"}),
        ("video", {"referenceVideos": ["https://e.org/v.mp4"]}),
    ],
)
async def test_mode_family_end_to_end(session: Session, mode: str, filled: dict[str, Any]) -> None:
    panel = VideoPanel(session=session, model="nova-1")
    panel.set(prompt="a fox", mode=mode, referenceImages=["ftp://e.org/a.png"])
    if "referenceImages" in MODES[mode]:
        assert errors_of(panel, "referenceImages") == [
            "Reference images: item 1 must be an http(s) URL or asset://{assetId}"
        ]
    panel.set(referenceImages=[])
    for key in MODES[mode]:
        if key != "duration":
            assert errors_of(panel, key)[0].endswith(": is required")
    panel.set(**filled)
    body = {"model": "nova-1", "prompt": "a fox", **filled}
    if "duration" in MODES[mode] and "duration" not in filled:
        body["duration"] = 5
    assert panel.body() == body
    assert panel.valid, panel.problems
    job = panel.generate()
    assert job is not None
    card = await job
    assert card is not None
    assert card.status == "completed"
    again = VideoPanel(session=session)
    again.load(body, "nova")
    assert again.values["mode"] == mode
    assert again.body() == body


def test_a_free_text_parameter_is_a_text_box_sent_only_when_filled(made_up: None) -> None:
    panel = VideoPanel(session=Session(mode_text="test"), model="nova-1")
    nova = next(f for f in form_spec("video")["families"] if f["id"] == "nova")
    box = next(c for c in nova["controls"] if c["key"] == "negative_prompt")
    assert (box["type"], box["label"], box["carry"]) == ("text", "Negative prompt", "")
    panel.set(prompt="a fox")
    assert "negative_prompt" not in panel.body()
    panel.set(negative_prompt="rain")
    body = panel.body()
    assert body["negative_prompt"] == "rain"
    again = VideoPanel(session=Session(mode_text="test"))
    again.load(body, "nova")
    assert (again.values["negative_prompt"], again.values["extra"]) == ("rain", "")
