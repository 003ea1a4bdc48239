"""Every banana and image2 rule of the spec, both ways: valid passes, the minimal break fails.

A failing case must name the broken field as a JSON path and say the rule in plain words.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests._validation_helpers import assert_clean, assert_error, assert_warning_only, errors_of

BANANA = "/v1/banana/images"
IMAGE2 = "/v1/image2/images"
URL = "https://example.com/ref.png"

BANANA_MODELS = (
    "nano-banana",
    "nano-banana-2",
    "nano-banana-pro",
    "nano-banana-2-stable",
    "nano-banana-pro-stable",
)
BANANA_HIRES = ("nano-banana-pro", "nano-banana-pro-stable")
BANANA_RATIOS = ("1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "21:9")
IMAGE2_RATIOS = (
    "1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "2:1", "1:2", "21:9", "9:21",
)  # fmt: skip
IMAGE2_4K_RATIOS = ("16:9", "9:16", "2:1", "1:2", "21:9", "9:21")


def banana(**extra: Any) -> dict[str, Any]:
    return {"model": "nano-banana", "prompt": "a red fox in snow", **extra}


def image2(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-image-2", "prompt": "a red fox in snow", **extra}


# --- banana -------------------------------------------------------------------------------


@pytest.mark.parametrize("model", BANANA_MODELS)
@pytest.mark.parametrize("resolution", [None, "1k", "2k", "4k"])
def test_banana_model_resolution_matrix(model: str, resolution: str | None) -> None:
    body = banana(model=model)
    if resolution is not None:
        body["resolution"] = resolution
    if resolution in ("2k", "4k") and model not in BANANA_HIRES:
        problem = assert_error(BANANA, body, "resolution", resolution, "nano-banana-pro", "1k")
        assert model in problem.rule
    else:
        assert_clean(BANANA, body)


@pytest.mark.parametrize("ratio", BANANA_RATIOS)
def test_banana_every_ratio_is_accepted(ratio: str) -> None:
    assert_clean(BANANA, banana(size=ratio))


@pytest.mark.parametrize("ratio", ["2:1", "1:2", "9:21", "1024x1024", "", "16:10"])
def test_banana_other_ratios_are_rejected(ratio: str) -> None:
    problem = assert_error(BANANA, banana(size=ratio), "size", "one of")
    assert "21:9" in problem.rule  # the allowed values are listed


@pytest.mark.parametrize("resolution", ["8k", "1K", "1080p", ""])
def test_banana_unknown_resolution(resolution: str) -> None:
    assert_error(BANANA, banana(resolution=resolution), "resolution", "one of", "1k")


@pytest.mark.parametrize("count", [0, 1, 6])
def test_banana_up_to_six_references(count: int) -> None:
    assert_clean(BANANA, banana(image_urls=[URL] * count))


@pytest.mark.parametrize("count", [7, 12])
def test_banana_more_than_six_references(count: int) -> None:
    assert_error(BANANA, banana(image_urls=[URL] * count), "image_urls", "6", str(count))


@pytest.mark.parametrize(
    "bad", ["ftp://example.com/a.png", "example.com/a.png", "", "javascript:x"]
)
def test_banana_reference_must_be_a_url(bad: str) -> None:
    assert_error(BANANA, banana(image_urls=[URL, bad]), "image_urls[1]", "http")


def test_banana_model_and_prompt_required() -> None:
    assert_error(BANANA, {"prompt": "x"}, "model", "required")
    assert_error(BANANA, {"model": "nano-banana"}, "prompt", "required")
    assert_error(BANANA, banana(prompt="   "), "prompt", "empty")
    assert_error(BANANA, banana(model=""), "model", "empty")


def test_banana_unknown_model_and_opt_out() -> None:
    problem = assert_error(BANANA, banana(model="nano-banana-3"), "model", "unknown", "nano-banana")
    assert "allow_unknown_models" in problem.rule
    assert_clean(BANANA, banana(model="nano-banana-3"), allow_unknown_models=True)
    # a newer model's resolution limits are not guessed
    assert_clean(BANANA, banana(model="nano-banana-3", resolution="4k"), allow_unknown_models=True)


def test_banana_undocumented_field_is_a_warning() -> None:
    assert_warning_only(BANANA, banana(seed=7), "seed", "not a documented parameter")


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("prompt", 5, ("string",)),
        ("model", None, ("string",)),
        ("image_urls", URL, ("list",)),
        ("image_urls", [5], ("string",)),
        ("resolution", 1, ("one of",)),
        ("size", ["1:1"], ("one of",)),
    ],
)
def test_banana_types(field: str, value: Any, words: tuple[str, ...]) -> None:
    path = "image_urls[0]" if isinstance(value, list) and value == [5] else field
    assert_error(BANANA, banana(**{field: value}), path, *words)


# --- image2: models, quality, ratio, resolution ------------------------------------------


@pytest.mark.parametrize("model", ["gpt-image-2", "gpt-image-2-r"])
def test_image2_minimal_body(model: str) -> None:
    assert_clean(IMAGE2, image2(model=model))


@pytest.mark.parametrize("quality", ["low", "medium", "high"])
def test_image2_quality_on_gpt_image_2(quality: str) -> None:
    assert_clean(IMAGE2, image2(quality=quality))


@pytest.mark.parametrize("quality", ["low", "medium", "high"])
def test_image2_quality_on_r_model_is_a_warning(quality: str) -> None:
    body = image2(model="gpt-image-2-r", quality=quality)
    assert_warning_only(IMAGE2, body, "quality", "gpt-image-2", "ignore")


@pytest.mark.parametrize("quality", ["ultra", "hd", "", "LOW"])
def test_image2_unknown_quality(quality: str) -> None:
    assert_error(IMAGE2, image2(quality=quality), "quality", "one of", "medium")


@pytest.mark.parametrize("ratio", IMAGE2_RATIOS)
def test_image2_every_ratio_alone_and_with_1k(ratio: str) -> None:
    assert_clean(IMAGE2, image2(ratio=ratio))
    assert_clean(IMAGE2, image2(ratio=ratio, resolution="1k"))
    assert_clean(IMAGE2, image2(model="gpt-image-2-r", ratio=ratio, resolution="1k"))


@pytest.mark.parametrize("ratio", ["3:1", "1:3", "16:10", "adaptive", ""])
def test_image2_other_ratios_rejected(ratio: str) -> None:
    problem = assert_error(IMAGE2, image2(ratio=ratio), "ratio", "one of")
    assert "9:21" in problem.rule


@pytest.mark.parametrize("resolution", ["1k", "2k", "4k"])
def test_image2_ratio_required_with_resolution(resolution: str) -> None:
    assert_error(IMAGE2, image2(resolution=resolution), "ratio", "required", "resolution")


@pytest.mark.parametrize("ratio", IMAGE2_RATIOS)
def test_image2_2k_on_gpt_image_2_any_ratio(ratio: str) -> None:
    assert_clean(IMAGE2, image2(resolution="2k", ratio=ratio))


@pytest.mark.parametrize("resolution", ["2k", "4k"])
def test_image2_r_model_renders_at_most_1k(resolution: str) -> None:
    body = image2(model="gpt-image-2-r", resolution=resolution, ratio="16:9")
    assert_error(IMAGE2, body, "resolution", resolution, "gpt-image-2", "1k")


@pytest.mark.parametrize("ratio", IMAGE2_RATIOS)
def test_image2_4k_only_with_wide_or_tall_ratios(ratio: str) -> None:
    body = image2(resolution="4k", ratio=ratio)
    if ratio in IMAGE2_4K_RATIOS:
        assert_clean(IMAGE2, body)
    else:
        problem = assert_error(IMAGE2, body, "resolution", "4k", "ratio")
        for allowed in IMAGE2_4K_RATIOS:
            assert allowed in problem.rule


# --- image2: size -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "size",
    [
        "1024x1024",
        "1024x640",  # exactly 655,360 pixels (lower bound, inclusive)
        "640x1024",
        "3840x2160",  # exactly 8,294,400 pixels and a 3840 edge (upper bounds, inclusive)
        "2160x3840",
        "2400x800",  # exactly 3:1
        "800x2400",
        "1536x1024",
        "2048x2048",
    ],
)
def test_image2_valid_sizes(size: str) -> None:
    assert_clean(IMAGE2, image2(size=size))


@pytest.mark.parametrize(
    "size", ["1024x1024", "1024x640", "640x1024", "1536x1024", "1024x1536", "1248x1248"]
)
def test_image2_r_model_takes_sizes_around_1k(size: str) -> None:
    assert_clean(IMAGE2, image2(model="gpt-image-2-r", size=size))


@pytest.mark.parametrize("size", ["3840x2160", "2560x1440", "2048x2048", "1552x1024", "1264x1264"])
def test_image2_r_model_rejects_sizes_beyond_1k(size: str) -> None:
    assert_error(IMAGE2, image2(model="gpt-image-2-r", size=size), "size", "gpt-image-2-r")


@pytest.mark.parametrize(
    ("size", "words"),
    [
        ("3856x2160", ("3840",)),  # edge over 3840 (pixels also over)
        ("3856x1024", ("3840",)),  # edge over 3840, pixels within range
        ("1024x3856", ("3840",)),
        ("1000x1008", ("multiples of 16",)),
        ("1008x1000", ("multiples of 16",)),
        ("1032x1024", ("multiples of 16",)),
        ("2416x800", ("3 times",)),  # just over 3:1
        ("800x2416", ("3 times",)),
        ("1024x624", ("655,360",)),  # just under the minimum pixels
        ("3840x2176", ("8,294,400",)),  # just over the maximum pixels
        ("2176x3840", ("8,294,400",)),
        ("512x512", ("655,360",)),
    ],
)
def test_image2_size_rules(size: str, words: tuple[str, ...]) -> None:
    assert_error(IMAGE2, image2(size=size), "size", *words)


@pytest.mark.parametrize(
    "size", ["1024", "1024X1024", "1024*1024", " 1024x1024", "1024x1024 ", "-16x1024", "axb", ""]
)
def test_image2_size_format(size: str) -> None:
    assert_error(IMAGE2, image2(size=size), "size", "WIDTHxHEIGHT")


@pytest.mark.parametrize("size", ["0x1024", "1024x0"])
def test_image2_size_edges_positive(size: str) -> None:
    assert_error(IMAGE2, image2(size=size), "size", "positive")


def test_image2_size_must_be_a_string() -> None:
    assert_error(IMAGE2, image2(size=1024), "size", "string")


@pytest.mark.parametrize(
    "extra",
    [
        {"resolution": "1k"},
        {"ratio": "16:9"},
        {"resolution": "4k", "ratio": "1:1"},  # overridden: the 4k ratio rule does not apply
        {"resolution": "2k"},  # no ratio needed when size overrides
    ],
)
def test_image2_size_overrides_resolution_and_ratio_with_a_warning(extra: dict[str, str]) -> None:
    body = image2(size="1024x1024", **extra)
    assert_warning_only(IMAGE2, body, "size", "overrides")


# --- image2: references -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "limit"),
    [("gpt-image-2", 6), ("gpt-image-2-r", 16)],
)
def test_image2_reference_limits(model: str, limit: int) -> None:
    assert_clean(IMAGE2, image2(model=model, image_urls=[URL] * limit))
    problem = assert_error(
        IMAGE2, image2(model=model, image_urls=[URL] * (limit + 1)), "image_urls", str(limit)
    )
    assert model in problem.rule


def test_image2_reference_must_be_a_url() -> None:
    assert_error(IMAGE2, image2(image_urls=["not a url"]), "image_urls[0]", "http")


def test_image2_unknown_model_and_opt_out() -> None:
    assert_error(IMAGE2, image2(model="gpt-image-3"), "model", "unknown", "gpt-image-2")
    assert_clean(IMAGE2, image2(model="gpt-image-3"), allow_unknown_models=True)


def test_image2_reports_type_and_rule_problems_together() -> None:
    # a broken optional field does not hide the cross-field rules of the others
    body = image2(quality="best", resolution="4k", ratio="1:1")
    fields = {p.field for p in errors_of(IMAGE2, body)}
    assert fields == {"quality", "resolution"}


# --- asset references on image families ----------------------------------------------------


@pytest.mark.parametrize("path", [BANANA, IMAGE2])
def test_image_references_do_not_take_asset_uris(path: str) -> None:
    body = banana() if path == BANANA else image2()
    body["image_urls"] = ["asset://asset-1700000000-abc"]
    assert_error(path, body, "image_urls[0]", "http")
