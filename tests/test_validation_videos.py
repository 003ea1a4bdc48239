"""Every sora and seedance 1.5 rule of the spec, both ways."""

from __future__ import annotations

from typing import Any

import pytest

from tests._validation_helpers import assert_clean, assert_error, errors_of

SORA = "/v1/sora/videos"
SEEDANCE = "/v1/seedance/videos"
IMG = "https://example.com/ref.png"
IMG2 = "https://example.com/ref2.png"
VID = "https://example.com/clip.mp4"
ASSET = "asset://asset-1700000000-abc123"


# --- sora ---------------------------------------------------------------------------------


def sora(**extra: Any) -> dict[str, Any]:
    return {"model": "neutralSora2Pro", "prompt": "a paper boat on a river", **extra}


@pytest.mark.parametrize("model", ["neutralSora2Plus", "neutralSora2Pro"])
@pytest.mark.parametrize("seconds", [4, 8, 12])
@pytest.mark.parametrize("name", ["duration", "seconds"])
def test_sora_durations(model: str, seconds: int, name: str) -> None:
    assert_clean(SORA, sora(model=model, **{name: seconds}))


@pytest.mark.parametrize("seconds", [0, 2, 5, 10, 16, -1])
@pytest.mark.parametrize("name", ["duration", "seconds"])
def test_sora_other_durations(seconds: int, name: str) -> None:
    assert_error(SORA, sora(**{name: seconds}), name, "4, 8 or 12")


@pytest.mark.parametrize(
    "extra",
    [
        {"size": "720x1280"},
        {"size": "1280x720"},
        {"aspect_ratio": "16:9"},
        {"aspect_ratio": "9:16"},
        {"input_reference": [IMG]},
        {"image_urls": [IMG]},
        {"size": "1280x720", "duration": 12, "input_reference": [IMG]},
    ],
)
def test_sora_valid_bodies(extra: dict[str, Any]) -> None:
    assert_clean(SORA, sora(**extra))


@pytest.mark.parametrize(
    ("extra", "field", "other"),
    [
        ({"size": "720x1280", "aspect_ratio": "9:16"}, "aspect_ratio", "size"),
        ({"size": "1280x720", "aspect_ratio": "16:9"}, "aspect_ratio", "size"),
        ({"duration": 8, "seconds": 8}, "seconds", "duration"),
        ({"input_reference": [IMG], "image_urls": [IMG]}, "image_urls", "input_reference"),
    ],
)
def test_sora_mutually_exclusive_pairs(extra: dict[str, Any], field: str, other: str) -> None:
    assert_error(SORA, sora(**extra), field, other, "exclusive")


@pytest.mark.parametrize("name", ["input_reference", "image_urls"])
def test_sora_at_most_one_reference(name: str) -> None:
    assert_error(SORA, sora(**{name: [IMG, IMG2]}), name, "at most 1")


@pytest.mark.parametrize(
    ("field", "value"), [("size", "1920x1080"), ("size", "16:9"), ("aspect_ratio", "1:1")]
)
def test_sora_size_and_aspect_values(field: str, value: str) -> None:
    assert_error(SORA, sora(**{field: value}), field, "one of")


def test_sora_unknown_model_and_required_fields() -> None:
    assert_error(SORA, sora(model="sora-2"), "model", "unknown", "neutralSora2Pro")
    assert_clean(SORA, sora(model="sora-3"), allow_unknown_models=True)
    assert_error(SORA, {"model": "neutralSora2Pro"}, "prompt", "required")
    assert_error(SORA, {"prompt": "x"}, "model", "required")


@pytest.mark.parametrize("name", ["duration", "seconds"])
@pytest.mark.parametrize("value", ["8", True, [8]])
def test_sora_duration_json_types(name: str, value: Any) -> None:
    assert errors_of(SORA, sora(**{name: value}))[0].field == name


@pytest.mark.parametrize("name", ["duration", "seconds"])
def test_sora_duration_float_is_not_an_integer(name: str) -> None:
    assert_error(SORA, sora(**{name: 8.0}), name)


@pytest.mark.parametrize("name", ["input_reference", "image_urls"])
def test_sora_references_do_not_take_asset_uris(name: str) -> None:
    assert_error(SORA, sora(**{name: [ASSET]}), f"{name}[0]", "http")


# --- seedance 1.5 -------------------------------------------------------------------------

SEEDANCE_MODELS = ("seedance_1_5_pro_480p", "seedance_1_5_pro_720p", "seedance_1_5_pro_1080p")


def text(value: str = "a lighthouse at dusk") -> dict[str, Any]:
    return {"type": "text", "text": value}


def image(role: str | None = None, url: str = IMG) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "image_url", "image_url": {"url": url}}
    if role is not None:
        item["role"] = role
    return item


def seedance(*content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "seedance_1_5_pro_720p", "content": list(content or [text()]), **extra}


@pytest.mark.parametrize("model", SEEDANCE_MODELS)
@pytest.mark.parametrize(
    ("scenario", "content"),
    [
        ("text-to-video", [text()]),
        ("first frame (role omitted)", [text(), image()]),
        ("first frame", [text(), image("first_frame")]),
        ("first and last frame", [text(), image("first_frame"), image("last_frame", IMG2)]),
        ("last before first", [image("last_frame"), text(), image("first_frame")]),
        ("one reference image", [text(), image("reference_image")]),
        ("four reference images", [text()] + [image("reference_image")] * 4),
    ],
)
def test_seedance_four_scenarios(model: str, scenario: str, content: list[Any]) -> None:
    assert scenario
    assert_clean(SEEDANCE, {"model": model, "content": content})


def test_seedance_role_null_means_first_frame() -> None:
    item = image()
    item["role"] = None
    assert_clean(SEEDANCE, seedance(text(), item))


@pytest.mark.parametrize(
    ("content", "field", "words"),
    [
        ([text(), image("last_frame")], "content[1].role", ("last_frame", "first_frame")),
        (
            [text(), image("first_frame"), image("first_frame")],
            "content[2].role",
            ("only one first_frame",),
        ),
        ([text(), image(), image("first_frame")], "content[2].role", ("only one first_frame",)),
        (
            [text(), image(), image("last_frame"), image("last_frame")],
            "content[3].role",
            ("only one last_frame",),
        ),
        (
            [text(), image("first_frame"), image("reference_image")],
            "content[2].role",
            ("reference_image", "exclusive"),
        ),
        (
            [text(), image("reference_image"), image("first_frame")],
            "content[1].role",
            ("reference_image", "exclusive"),
        ),
        (
            [text(), image(), image("last_frame"), image("reference_image")],
            "content[3].role",
            ("exclusive",),
        ),
        (
            [text()] + [image("reference_image")] * 5,
            "content[5].role",
            ("at most 4",),
        ),
        ([text(), image("middle_frame")], "content[1].role", ("first_frame", "reference_image")),
        ([text(), image("First_Frame")], "content[1].role", ("first_frame",)),
    ],
)
def test_seedance_roles_and_scenario_exclusivity(
    content: list[Any], field: str, words: tuple[str, ...]
) -> None:
    assert_error(SEEDANCE, seedance(*content), field, *words)


@pytest.mark.parametrize("role", [[], ["first_frame"], {}, {"a": 1}])
def test_seedance_role_of_the_wrong_json_type(role: Any) -> None:
    item = image()
    item["role"] = role
    assert_error(SEEDANCE, seedance(text(), item), "content[1].role", "first_frame")


@pytest.mark.parametrize(
    ("content", "field", "words"),
    [
        ([image()], "content", ("text",)),
        ([{"type": "text"}], "content[0].text", ("required",)),
        ([{"type": "text", "text": 5}], "content[0].text", ("string",)),
        ([text("   ")], "content[0].text", ("empty",)),
        ([text(), {"type": "image_url"}], "content[1].image_url.url", ("required",)),
        ([text(), {"type": "image_url", "image_url": {}}], "content[1].image_url.url", ("req",)),
        ([text(), image(url="ftp://example.com/a.png")], "content[1].image_url.url", ("http",)),
        ([text(), image(url="")], "content[1].image_url.url", ("http",)),
        ([text(), {"type": "audio_url"}], "content[1].type", ("text", "image_url")),
        ([{"text": "no type"}], "content[0].type", ("text", "image_url")),
        (["a string"], "content[0]", ("object",)),
    ],
)
def test_seedance_content_objects(content: list[Any], field: str, words: tuple[str, ...]) -> None:
    assert_error(SEEDANCE, seedance(*content), field, *words)


def test_seedance_content_required_and_a_list() -> None:
    assert_error(SEEDANCE, {"model": "seedance_1_5_pro_480p"}, "content", "required")
    assert_error(SEEDANCE, seedance(content="a fox"), "content", "list")
    assert_error(SEEDANCE, {"model": "seedance_1_5_pro_480p", "content": []}, "content", "text")


def test_seedance_image_url_must_be_an_object() -> None:
    body = seedance(text(), {"type": "image_url", "image_url": IMG})
    assert_error(SEEDANCE, body, "content[1].image_url", "object")


@pytest.mark.parametrize("count", [500, 1, 499])
def test_seedance_text_up_to_500_chinese_characters(count: int) -> None:
    assert_clean(SEEDANCE, seedance(text("山" * count)))


@pytest.mark.parametrize("count", [501, 800])
def test_seedance_text_over_500_chinese_characters(count: int) -> None:
    assert_error(SEEDANCE, seedance(text("山" * count)), "content[0].text", "500", "Chinese")


@pytest.mark.parametrize("count", [1000, 999])
def test_seedance_text_up_to_1000_words(count: int) -> None:
    assert_clean(SEEDANCE, seedance(text(" ".join(["fox"] * count))))


@pytest.mark.parametrize("count", [1001, 1500])
def test_seedance_text_over_1000_words(count: int) -> None:
    body = seedance(text(" ".join(["fox"] * count)))
    assert_error(SEEDANCE, body, "content[0].text", "1000", "words", str(count))


def test_seedance_text_limit_names_the_right_text_object() -> None:
    body = seedance(image(), text("fine"), text("山" * 501))
    assert_error(SEEDANCE, body, "content[2].text", "500")


@pytest.mark.parametrize("duration", [-1, 2, 4, 5, 12])
def test_seedance_durations(duration: int) -> None:
    assert_clean(SEEDANCE, seedance(duration=duration))


@pytest.mark.parametrize("duration", [-2, 0, 1, 13, 30])
def test_seedance_other_durations(duration: int) -> None:
    assert_error(SEEDANCE, seedance(duration=duration), "duration", "2 to 12", "-1")


@pytest.mark.parametrize("ratio", ["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive"])
def test_seedance_ratios(ratio: str) -> None:
    assert_clean(SEEDANCE, seedance(ratio=ratio, generate_audio=False))


@pytest.mark.parametrize("ratio", ["2:1", "9:21", "auto", ""])
def test_seedance_other_ratios(ratio: str) -> None:
    assert_error(SEEDANCE, seedance(ratio=ratio), "ratio", "adaptive")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("duration", "5", ("integer",)),
        ("duration", True, ("integer",)),
        ("duration", 5.0, ("integer",)),
        ("generate_audio", 1, ("true or false",)),
        ("generate_audio", "true", ("true or false",)),
        ("model", 720, ("string",)),
    ],
)
def test_seedance_json_types(field: str, value: Any, words: tuple[str, ...]) -> None:
    assert_error(SEEDANCE, seedance(**{field: value}), field, *words)


def test_seedance_unknown_model() -> None:
    body = seedance(model="seedance_1_5_pro_4k")
    assert_error(SEEDANCE, body, "model", "unknown", "seedance_1_5_pro_1080p")
    assert_clean(SEEDANCE, body, allow_unknown_models=True)


def test_seedance_image_url_does_not_take_asset_uris() -> None:
    assert_error(SEEDANCE, seedance(text(), image(url=ASSET)), "content[1].image_url.url", "http")
