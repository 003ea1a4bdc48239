"""The catalog-derived form: visible fields and option lists per model, live validation,
load/body round trips, Active assets in reference fields, and "copy as code"."""

from __future__ import annotations

import ast
import json

import pytest

from mediagen_nb.catalog import families
from mediagen_nb.catalog._params import STARVIDEOS_MODE_FIELDS
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._form import GenerationForm, model_options
from mediagen_nb.widgets._form_content import ContentField, ModeField
from mediagen_nb.widgets._form_fields import EnumField, PairField
from mediagen_nb.widgets._session import ActiveAsset, Session

REFS = ["first_image", "last_image", "referenceImages", "referenceVideos", "referenceAudios"]


@pytest.fixture
def session() -> Session:
    return Session(mode_text="test")


def image_form(session: Session, model: str) -> GenerationForm:
    return GenerationForm("image", session=session, model=model)


def video_form(session: Session, model: str, family: str | None = None) -> GenerationForm:
    form = GenerationForm("video", session=session)
    form.select(model, family)
    return form


def messages(form: GenerationForm, name: str) -> str:
    return str(form.field(name).message.value)


# --- picker -----------------------------------------------------------------------------------


def test_picker_lists_every_model_grouped_by_family() -> None:
    for kind in ("image", "video"):
        labels = [label for label, _value in model_options(kind)]
        for fam in families(kind):
            for model in fam.models:
                assert f"{fam.title} · {model}" in labels
            if not fam.models:
                assert f"{fam.title} · (type a model name)" in labels


def test_family_description_names_resolution_durations_references(session: Session) -> None:
    form = video_form(session, "neutralSora2Pro")
    text = form.description.value
    assert "1280x720" in text
    assert "4, 8 or 12 s" in text
    form.select("seedance_1_5_pro_480p")
    assert "2-12 s" in form.description.value
    assert "reference images" in form.description.value


# --- image families ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "resolutions"),
    [
        ("nano-banana", (None, "1k")),
        ("nano-banana-2", (None, "1k")),
        ("nano-banana-2-stable", (None, "1k")),
        ("nano-banana-pro", (None, "1k", "2k", "4k")),
        ("nano-banana-pro-stable", (None, "1k", "2k", "4k")),
    ],
)
def test_banana_fields_and_resolutions(session: Session, model: str, resolutions: tuple) -> None:
    form = image_form(session, model)
    assert form.visible_names() == ["prompt", "resolution", "size", "image_urls"]
    resolution = form.field("resolution")
    assert isinstance(resolution, EnumField)
    assert resolution.offered == resolutions
    size = form.field("size")
    assert isinstance(size, EnumField)
    assert len(size.offered) == 11  # not set + the ten ratios
    assert form.body() == {"model": model, "prompt": "", "resolution": "1k"}


def test_image2_gpt_image_2_options_follow_the_rules(session: Session) -> None:
    form = image_form(session, "gpt-image-2")
    assert form.visible_names() == [
        "prompt",
        "quality",
        "ratio",
        "resolution",
        "size",
        "image_urls",
    ]
    quality, ratio, resolution = (form.field(n) for n in ("quality", "ratio", "resolution"))
    assert isinstance(quality, EnumField)
    assert isinstance(ratio, EnumField)
    assert isinstance(resolution, EnumField)
    assert quality.offered == (None, "low", "medium", "high")
    assert quality.value == "low"
    # resolution is set (default 1k): ratio is required, so "not set" is not offered
    assert None not in ratio.offered
    assert resolution.offered == (None, "1k", "2k")  # 4k needs a wide or tall ratio
    ratio.input.value = "16:9"
    assert resolution.offered == (None, "1k", "2k", "4k")
    resolution.input.value = "4k"
    assert ratio.offered == ("16:9", "9:16", "2:1", "1:2", "21:9", "9:21")
    resolution.value = None
    assert None in ratio.offered
    assert "4:3" in ratio.offered


def test_image2_r_hides_quality_and_high_resolutions(session: Session) -> None:
    form = image_form(session, "gpt-image-2-r")
    assert "quality" not in form.visible_names()
    assert "quality" not in form.body()
    resolution = form.field("resolution")
    assert isinstance(resolution, EnumField)
    assert resolution.offered == (None, "1k")
    form.select("gpt-image-2")
    assert form.body()["quality"] == "low"  # the spec's default comes back


def test_image2_bad_size_is_named_and_generate_disabled(session: Session) -> None:
    form = image_form(session, "gpt-image-2")
    form.field("prompt").input.value = "a cat"
    assert form.valid
    form.field("size").input.value = "100x100"
    assert not form.valid
    text = messages(form, "size")
    assert "total pixels must be between" in text
    assert "size:" in form.reason
    form.field("size").input.value = "1024x1536"
    assert form.valid
    assert "overrides resolution and ratio" in messages(form, "size")  # a softer warning
    assert "mediagen-warning" in messages(form, "size")


def test_too_many_reference_images(session: Session) -> None:
    form = image_form(session, "nano-banana")
    form.field("prompt").input.value = "x"
    form.field("image_urls").input.value = "\n".join(f"https://e.org/{i}.png" for i in range(7))
    assert "takes at most 6 item(s)" in messages(form, "image_urls")
    assert not form.valid
    form.field("image_urls").input.value = "not a url"
    assert "image_urls[0]: must be an http(s) URL" in messages(form, "image_urls")
    assert form.field("image_urls").picker.input.layout.display == "none"  # type: ignore[attr-defined]


def test_empty_prompt_message_sits_next_to_prompt(session: Session) -> None:
    form = image_form(session, "nano-banana-pro")
    assert "prompt: must not be empty" in messages(form, "prompt")
    assert form.reason == "fix prompt: must not be empty"
    form.field("prompt").input.value = "a lighthouse"
    assert messages(form, "prompt") == ""
    assert form.reason == ""


# --- video families ---------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["neutralSora2Plus", "neutralSora2Pro"])
def test_sora_pairs_are_one_control_each(session: Session, model: str) -> None:
    form = video_form(session, model)
    assert form.visible_names() == ["prompt", "size", "duration", "input_reference"]
    pairs = [f for f in form.fields if isinstance(f, PairField)]
    assert [p.names for p in pairs] == [
        ("size", "aspect_ratio"),
        ("duration", "seconds"),
        ("input_reference", "image_urls"),
    ]
    size = form.field("size")
    assert isinstance(size, EnumField)
    assert size.offered == (None, "720x1280", "1280x720")
    assert form.body()["size"] == "720x1280"
    pairs[0].choice.value = "aspect_ratio"
    aspect = form.field("aspect_ratio")
    assert isinstance(aspect, EnumField)
    assert aspect.offered == (None, "16:9", "9:16")
    aspect.input.value = "16:9"
    pairs[1].choice.value = "seconds"
    seconds = form.field("seconds")
    assert isinstance(seconds, EnumField)
    assert seconds.offered == (None, 4, 8, 12)
    seconds.input.value = 8
    form.field("prompt").input.value = "a drone shot"
    body = form.body()
    assert body == {"model": model, "prompt": "a drone shot", "aspect_ratio": "16:9", "seconds": 8}
    assert form.valid


@pytest.mark.parametrize(
    "model", ["seedance_1_5_pro_480p", "seedance_1_5_pro_720p", "seedance_1_5_pro_1080p"]
)
def test_seedance_scenarios_show_exactly_their_slots(session: Session, model: str) -> None:
    form = video_form(session, model)
    assert form.visible_names() == ["content", "ratio", "duration", "generate_audio"]
    content = form.field("content")
    assert isinstance(content, ContentField)
    expected = {"text": [], "first_frame": ["first_frame"]}
    expected["first_last_frame"] = ["first_frame", "last_frame"]
    for scenario, roles in expected.items():
        content.scenario.value = scenario
        assert [s.role for s in content.active_slots()] == roles
        assert len(content.slot_box.children) == len(roles)
    content.scenario.value = "reference_images"
    for count in range(1, 5):
        content.count.value = count
        assert [s.role for s in content.active_slots()] == ["reference_image"] * count
    assert form.body()["duration"] == 5
    assert form.body()["generate_audio"] is True


def test_seedance_messages_go_to_the_slot_and_prompt(session: Session) -> None:
    form = video_form(session, "seedance_1_5_pro_720p")
    content = form.field("content")
    assert isinstance(content, ContentField)
    content.scenario.value = "first_last_frame"
    assert "content[0].text: must not be empty" in content.text_message.value
    content.text.value = "waves at dusk"
    first, last = content.active_slots()
    assert "must be an http(s) URL" in first.message.value
    first.input.value = "https://e.org/a.png"
    last.input.value = "https://e.org/b.png"
    assert first.message.value == ""
    assert form.valid
    form.field("duration").input.value = "20"
    assert "duration: must be 2 to 12 seconds" in messages(form, "duration")
    form.field("duration").input.value = "abc"
    assert "duration: must be an integer" in messages(form, "duration")
    assert not form.valid


@pytest.mark.parametrize("mode", list(STARVIDEOS_MODE_FIELDS))
def test_starvideos_modes_show_their_fields(session: Session, mode: str) -> None:
    form = video_form(session, "starvideos_o3")
    field = form.field("mode")
    assert isinstance(field, ModeField)
    field.input.value = mode
    assert set(form.visible_names()) == {"mode", "prompt", *STARVIDEOS_MODE_FIELDS[mode]}
    assert set(form.body()) <= {"model", "prompt", *STARVIDEOS_MODE_FIELDS[mode]}


def test_starvideos_duration_range_and_frames(session: Session) -> None:
    form = video_form(session, "starvideos_o3")
    form.field("prompt").input.value = "a fox"
    form.field("duration").input.value = "2"
    assert "duration: must be 3 to 15 seconds" in messages(form, "duration")
    form.field("duration").input.value = "15"
    assert form.valid
    field = form.field("mode")
    assert isinstance(field, ModeField)
    field.input.value = "first_last_frame"
    form.field("first_image").input.value = "https://e.org/first.png"
    assert "last_image: is required when first_image is set" in messages(form, "last_image")


@pytest.mark.parametrize("fam", [f for f in families("video") if not f.documented])
def test_partly_documented_families(session: Session, fam: object) -> None:
    from mediagen_nb.catalog import Family

    assert isinstance(fam, Family)
    model = fam.models[0] if fam.models else "some-model-v1"
    form = video_form(session, model, fam.id)
    expected = ["prompt"]
    if fam.duration_range is not None:
        expected.append("duration")
    expected += [r for r in REFS if r in fam.reference_fields]
    assert form.visible_names() == expected
    assert form.model_name.layout.display == ("none" if fam.models else None)
    assert form.extra_box.selected_index == 0  # "more parameters (JSON)" open
    form.field("prompt").input.value = "hello"
    form.extra.value = '{"resolution": "1080p", "seed": 7}'
    assert form.body()["resolution"] == "1080p"
    assert form.body()["model"] == model
    assert form.valid, form.problems
    form.extra.value = "{nope"
    assert "is not valid JSON" in form.extra_message.value
    assert not form.valid
    if fam.duration_range is not None:
        low, high = fam.duration_range
        form.extra.value = ""
        form.field("duration").input.value = str(high + 1)
        assert f"must be {low} to {high} seconds" in messages(form, "duration")


def test_unnamed_family_needs_a_model_name(session: Session) -> None:
    form = video_form(session, "", "veo")
    form.field("prompt").input.value = "x"
    assert "model: must not be empty" in form.model_message.value
    form.model_name.value = "veo-3"
    assert form.valid
    assert form.body()["model"] == "veo-3"


# --- load / body ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "body", "family"),
    [
        (
            "image",
            {"model": "nano-banana-pro", "prompt": "p", "resolution": "4k", "size": "21:9"},
            None,
        ),
        (
            "image",
            {
                "model": "gpt-image-2",
                "prompt": "p",
                "quality": "high",
                "ratio": "9:21",
                "resolution": "4k",
            },
            None,
        ),
        (
            "image",
            {
                "model": "gpt-image-2-r",
                "prompt": "p",
                "size": "1024x1536",
                "image_urls": ["https://e.org/a.png"],
            },
            None,
        ),
        (
            "video",
            {"model": "neutralSora2Pro", "prompt": "p", "aspect_ratio": "9:16", "seconds": 12},
            None,
        ),
        (
            "video",
            {
                "model": "seedance_1_5_pro_480p",
                "content": [
                    {"type": "text", "text": "p"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://e.org/1.png"},
                        "role": "reference_image",
                    },
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://e.org/2.png"},
                        "role": "reference_image",
                    },
                ],
                "ratio": "adaptive",
                "duration": -1,
                "generate_audio": False,
            },
            None,
        ),
        (
            "video",
            {
                "model": "starvideos_o3",
                "prompt": "p",
                "referenceImages": ["https://e.org/a.png"],
                "referenceVideos": ["https://e.org/v.mp4"],
            },
            None,
        ),
        ("video", {"model": "grok-video-1", "prompt": "p", "duration": 10, "fps": 24}, "grok"),
    ],
)
def test_load_then_body_round_trips(
    session: Session, kind: str, body: dict, family: str | None
) -> None:
    form = GenerationForm(kind, session=session)  # type: ignore[arg-type]
    form.load(body, family)
    assert form.body() == body
    assert form.valid, form.problems


def test_load_puts_unknown_keys_in_the_json_box(session: Session) -> None:
    form = GenerationForm("video", session=session)
    form.load({"model": "viduq3-pro", "prompt": "p", "movement": "slow"})
    assert json.loads(form.extra.value) == {"movement": "slow"}


# --- assets -----------------------------------------------------------------------------------


def test_active_assets_are_offered_and_inserted(session: Session) -> None:
    form = video_form(session, "starvideos_o3")
    field = form.field("mode")
    assert isinstance(field, ModeField)
    field.input.value = "image_reference"
    refs = form.field("referenceImages")
    picker = refs.picker  # type: ignore[attr-defined]
    assert picker.input.disabled
    session.add_active_asset(ActiveAsset("asset-1-a", name="face", asset_type="Image"))
    session.add_active_asset(ActiveAsset("asset-2-b", asset_type="Video"))
    assert [v for _l, v in picker.input.options] == ["", "asset://asset-1-a"]
    picker.input.value = "asset://asset-1-a"
    assert form.body()["referenceImages"] == ["asset://asset-1-a"]
    assert picker.input.value == ""
    session.remove_active_asset("asset-1-a")
    assert [v for _l, v in picker.input.options] == [""]


# --- copy as code -----------------------------------------------------------------------------


def test_copy_as_code_is_valid_python_with_the_body(session: Session) -> None:
    form = video_form(session, "seedance_1_5_pro_720p")
    content = form.field("content")
    assert isinstance(content, ContentField)
    content.text.value = 'say "hi"'
    code = code_for("video", form.body(), form.family.id)
    tree = ast.parse("async def cell():\n" + "\n".join("    " + line for line in code.splitlines()))
    call = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create"
    )
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert kwargs == form.body()
    assert "client.videos.create(" in code
    assert "family=" not in code


def test_copy_as_code_names_the_family_for_unnamed_models() -> None:
    code = code_for("video", {"model": "veo-3", "prompt": "x", "generate_audio": True}, "veo")
    assert 'family="veo"' in code
    assert "generate_audio=True" in code


@pytest.mark.parametrize(
    ("mode", "needed"),
    [
        ("image_reference", ["referenceImages"]),
        ("first_last_frame", ["first_image", "last_image"]),
        ("video_reference", ["referenceVideos"]),
        ("image_video", ["referenceImages", "referenceVideos"]),
    ],
)
def test_starvideos_mode_requires_its_inputs(session: Session, mode: str, needed: list) -> None:
    form = video_form(session, "starvideos_o3")
    form.field("prompt").input.value = "a fox"
    field = form.field("mode")
    assert isinstance(field, ModeField)
    field.input.value = mode
    assert not form.valid
    for name in needed:
        assert "is required" in messages(form, name)
        value = "https://e.org/v.mp4" if name == "referenceVideos" else "https://e.org/a.png"
        form.field(name).input.value = value
    assert form.valid, form.problems
