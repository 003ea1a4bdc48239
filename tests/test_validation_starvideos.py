"""Every starvideos rule and every rule of the six partly documented video families."""

from __future__ import annotations

from typing import Any

import pytest

from mediagen_nb.types import validate_request
from tests._validation_helpers import assert_clean, assert_error, assert_warning_only, errors_of

SORA = "/v1/sora/videos"
STAR = "/v1/starvideos/videos"
IMG = "https://example.com/ref.png"
IMG2 = "https://example.com/ref2.png"
VID = "https://example.com/clip.mp4"
ASSET = "asset://asset-1700000000-abc123"


# --- starvideos ---------------------------------------------------------------------------


def star(**extra: Any) -> dict[str, Any]:
    return {"model": "starvideos_o3", "prompt": "a comet over a desert", **extra}


@pytest.mark.parametrize(
    ("mode", "extra"),
    [
        ("text-to-video", {}),
        ("text-to-video with options", {"duration": 15, "ratio": "16:9"}),
        ("image reference 1", {"referenceImages": [IMG]}),
        ("image reference 7", {"referenceImages": [IMG] * 7, "duration": 3, "ratio": "1:1"}),
        ("first/last frame", {"first_image": IMG, "last_image": IMG2, "ratio": "9:16"}),
        ("first/last frame assets", {"first_image": ASSET, "last_image": ASSET}),
        ("video reference", {"referenceVideos": [VID]}),
        ("image + video 1", {"referenceImages": [IMG], "referenceVideos": [VID]}),
        ("image + video 4", {"referenceImages": [ASSET] * 4, "referenceVideos": [ASSET]}),
    ],
)
def test_starvideos_five_modes(mode: str, extra: dict[str, Any]) -> None:
    assert mode
    assert_clean(STAR, star(**extra))


@pytest.mark.parametrize("duration", [3, 9, 15])
def test_starvideos_durations(duration: int) -> None:
    assert_clean(STAR, star(duration=duration))


@pytest.mark.parametrize("duration", [2, 16, 0, -1])
def test_starvideos_other_durations(duration: int) -> None:
    assert_error(STAR, star(duration=duration), "duration", "3 to 15")


@pytest.mark.parametrize("ratio", ["4:3", "21:9", "adaptive"])
def test_starvideos_other_ratios(ratio: str) -> None:
    assert_error(STAR, star(ratio=ratio), "ratio", "one of")


def test_starvideos_seven_images_alone_four_with_a_video() -> None:
    assert_error(STAR, star(referenceImages=[IMG] * 8), "referenceImages", "at most 7")
    body = star(referenceImages=[IMG] * 5, referenceVideos=[VID])
    assert_error(STAR, body, "referenceImages", "at most 4", "referenceVideos")


def test_starvideos_at_most_one_video() -> None:
    assert_error(STAR, star(referenceVideos=[VID, VID]), "referenceVideos", "at most 1")


@pytest.mark.parametrize(
    ("extra", "field", "other"),
    [
        ({"first_image": IMG}, "last_image", "first_image"),
        ({"last_image": IMG}, "first_image", "last_image"),
    ],
)
def test_starvideos_first_and_last_come_together(
    extra: dict[str, Any], field: str, other: str
) -> None:
    assert_error(STAR, star(**extra), field, "required", other)


@pytest.mark.parametrize(
    "extra",
    [
        {"referenceImages": [IMG]},
        {"referenceVideos": [VID]},
        {"referenceImages": [IMG], "referenceVideos": [VID]},
    ],
)
@pytest.mark.parametrize("field", ["first_image", "last_image"])
def test_starvideos_frames_exclude_references(extra: dict[str, Any], field: str) -> None:
    body = star(first_image=IMG, last_image=IMG2, **extra)
    assert_error(STAR, body, field, "cannot be combined", "referenceImages")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (STAR, star(first_image=IMG, last_image=IMG2, referenceImages=[])),
        (STAR, star(first_image=IMG, last_image=IMG2, referenceVideos=[])),
        (
            SORA,
            {"model": "neutralSora2Pro", "prompt": "x", "input_reference": [], "image_urls": [IMG]},
        ),
    ],
)
def test_empty_reference_lists_count_as_absent(path: str, body: dict[str, Any]) -> None:
    assert_clean(path, body)


def test_starvideos_empty_video_list_is_not_a_video() -> None:
    assert_clean(STAR, star(referenceVideos=[], duration=5, referenceImages=[IMG] * 7))


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"duration": 5}, "duration"),
        ({"ratio": "1:1"}, "ratio"),
        ({"duration": 10, "referenceImages": [IMG]}, "duration"),
    ],
)
def test_starvideos_duration_and_ratio_ignored_with_a_video(
    extra: dict[str, Any], field: str
) -> None:
    assert_warning_only(STAR, star(referenceVideos=[VID], **extra), field, "ignored")


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("first_image", "not a url", "first_image"),
        ("referenceImages", ["ftp://x/y.png"], "referenceImages[0]"),
        ("referenceVideos", ["asset://"], "referenceVideos[0]"),
    ],
)
def test_starvideos_reference_values(field: str, value: Any, path: str) -> None:
    extra: dict[str, Any] = {field: value}
    if field == "first_image":
        extra["last_image"] = IMG2
    assert errors_of(STAR, star(**extra))[0].field == path


@pytest.mark.parametrize(
    ("field", "value"),
    [("duration", "5"), ("duration", True), ("duration", 5.5), ("referenceImages", IMG)],
)
def test_starvideos_json_types(field: str, value: Any) -> None:
    assert_error(STAR, star(**{field: value}), field)


def test_starvideos_model_must_be_o3() -> None:
    assert_error(STAR, star(model="starvideos_o2"), "model", "starvideos_o3")
    assert_error(STAR, {"model": "starvideos_o3"}, "prompt", "required")


# --- the six partly documented families -----------------------------------------------------

GENERIC: dict[str, tuple[str, tuple[int, int] | None, tuple[str, ...]]] = {
    "veo": ("/v1/veo/videos", None, ()),
    "seedance2": ("/v1/svcvideo2/videos", (4, 15), ()),
    "vidu": ("/v1/vidu/videos", (1, 16), ("viduq3-pro", "viduq3-turbo")),
    "grok": ("/v1/grok/videos", (6, 30), ()),
    "videos": ("/v1/videos/videos", (4, 15), ()),
    "sd2_manxue": (
        "/v1/sd2_manxue/videos",
        (4, 15),
        ("sd2_manxue_1080p", "sd2_manxue_4k", "sd2_manxue_fast_720p"),
    ),
}


def generic(family_id: str, **extra: Any) -> tuple[str, dict[str, Any]]:
    path, _durations, models = GENERIC[family_id]
    model = models[0] if models else f"{family_id}-model-x"
    return path, {"model": model, "prompt": "a city timelapse", **extra}


def assert_generic_clean(path: str, body: dict[str, Any]) -> None:
    """No error; the only warning is the one every name the spec does not list gets."""
    models = next(names for p, _d, names in GENERIC.values() if p == path)
    problems = validate_request(path, body)
    if body.get("model") in models:
        assert problems == []
    else:
        assert [(p.field, p.severity) for p in problems] == [("model", "warning")], problems
        assert "may refuse it" in problems[0].rule


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_minimal_body(family_id: str) -> None:
    assert_generic_clean(*generic(family_id))


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_duration_bounds(family_id: str) -> None:
    _path, durations, _models = GENERIC[family_id]
    if durations is None:
        path, body = generic(family_id, duration=8)
        assert_warning_only(path, body, "duration", "fixed")
        return
    low, high = durations
    for ok in (low, high):
        assert_generic_clean(*generic(family_id, duration=ok))
    for bad in (low - 1, high + 1):
        path, body = generic(family_id, duration=bad)
        assert_error(path, body, "duration", f"{low} to {high}")


@pytest.mark.parametrize(
    "model",
    ["viduq3-pro", "viduq3-turbo", "sd2_manxue_1080p", "sd2_manxue_4k", "sd2_manxue_fast_720p"],
)
def test_generic_known_models(model: str) -> None:
    family_id = "vidu" if model.startswith("vidu") else "sd2_manxue"
    assert_generic_clean(*generic(family_id, model=model))


@pytest.mark.parametrize(("family_id", "model"), [("vidu", "viduq2"), ("sd2_manxue", "sd2_8k")])
def test_generic_unknown_model_where_the_spec_lists_names(family_id: str, model: str) -> None:
    path, body = generic(family_id, model=model)
    (problem,) = validate_request(path, body)
    assert (problem.field, problem.severity) == ("model", "warning")
    assert GENERIC[family_id][2][0] in problem.rule
    assert_clean(path, body, allow_unknown_models=True)


@pytest.mark.parametrize("family_id", ["veo", "seedance2", "grok", "videos"])
def test_generic_any_model_where_the_spec_lists_none(family_id: str) -> None:
    assert_generic_clean(*generic(family_id, model="brand-new-model"))


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_model_required_and_non_empty(family_id: str) -> None:
    path, body = generic(family_id)
    del body["model"]
    assert_error(path, body, "model", "required")
    assert_error(path, {**body, "model": " "}, "model", "empty")


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_unknown_parameters_pass_through(family_id: str) -> None:
    extra = {"resolution": "4k", "seed": 42, "camera": {"pan": [1, 2]}, "aspect_ratio": "21:9"}
    assert_generic_clean(*generic(family_id, **extra))


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_reference_fields(family_id: str) -> None:
    path, body = generic(
        family_id,
        first_image=IMG,
        last_image=ASSET,
        referenceImages=[IMG, ASSET],
        referenceVideos=[VID],
        referenceAudios=["https://example.com/a.mp3", ASSET],
    )
    assert_generic_clean(path, body)


@pytest.mark.parametrize("family_id", sorted(GENERIC))
@pytest.mark.parametrize(
    ("field", "value", "path", "words"),
    [
        ("first_image", "ftp://x/y.png", "first_image", ("http",)),
        ("last_image", "asset://", "last_image", ("asset://",)),
        ("first_image", [IMG], "first_image", ("string",)),
        ("referenceImages", IMG, "referenceImages", ("list",)),
        ("referenceVideos", ["not a url"], "referenceVideos[0]", ("http",)),
        ("referenceAudios", [IMG, "asset://bad id"], "referenceAudios[1]", ("asset://",)),
        ("duration", "5", "duration", ("integer",)),
        ("duration", True, "duration", ("integer",)),
        ("prompt", 5, "prompt", ("string",)),
        ("prompt", "  ", "prompt", ("empty",)),
    ],
)
def test_generic_field_rules(
    family_id: str, field: str, value: Any, path: str, words: tuple[str, ...]
) -> None:
    endpoint, body = generic(family_id, **{field: value})
    assert_error(endpoint, body, path, *words)


@pytest.mark.parametrize("family_id", sorted(GENERIC))
def test_generic_prompt_is_optional(family_id: str) -> None:
    path, body = generic(family_id)
    del body["prompt"]
    assert_generic_clean(path, body)
