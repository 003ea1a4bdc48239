"""The front door itself: paths, non-object bodies, strict JSON types, asset libraries, Problem."""

from __future__ import annotations

from typing import Any

import pytest

from mediagen_nb.catalog import FAMILIES, family_for_path
from mediagen_nb.types import Problem, RequestValidationError, validate_request
from mediagen_nb.types._problem import errors_only
from mediagen_nb.types._validate import ensure_valid
from tests._validation_helpers import assert_error

SEEDANCE2_UPLOAD = "/svcVideo2/asset/upload"
SD2_UPLOAD = "/asset/sd2Manxue/assetUpload"
SD2_STATUS = "/asset/sd2Manxue/assetStatus"
URL = "https://example.com/face.png"

VALID_BODIES: dict[str, dict[str, Any]] = {
    "/v1/chat/completions": {"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]},
    "/v1/messages": {
        "model": "claude-opus-4-6",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
    },
    "/v1/banana/images": {"model": "nano-banana", "prompt": "x"},
    "/v1/image2/images": {"model": "gpt-image-2", "prompt": "x"},
    "/v1/sora/videos": {"model": "neutralSora2Plus", "prompt": "x"},
    "/v1/seedance/videos": {
        "model": "seedance_1_5_pro_480p",
        "content": [{"type": "text", "text": "x"}],
    },
    "/v1/starvideos/videos": {"model": "starvideos_o3", "prompt": "x"},
    "/v1/veo/videos": {"model": "veo-3", "prompt": "x"},
    "/v1/svcvideo2/videos": {"model": "seedance-2-0", "prompt": "x"},
    "/v1/vidu/videos": {"model": "viduq3-turbo", "prompt": "x"},
    "/v1/grok/videos": {"model": "grok-video", "prompt": "x"},
    "/v1/videos/videos": {"model": "videos-1", "prompt": "x"},
    "/v1/sd2_manxue/videos": {"model": "sd2_manxue_fast_720p", "prompt": "x"},
    SEEDANCE2_UPLOAD: {"assetType": "Image", "url": URL},
    SD2_UPLOAD: {"imageUrls": [URL]},
    SD2_STATUS: {"assetIds": ["a1"]},
}


def test_every_create_path_has_a_valid_body_here() -> None:
    create_paths = {f.create_path for f in FAMILIES.values()}
    assert create_paths <= set(VALID_BODIES)


@pytest.mark.parametrize("path", sorted(VALID_BODIES))
def test_valid_body_passes_every_endpoint(path: str) -> None:
    fam = family_for_path(path)
    expected: list[tuple[str, str]] = []
    if fam is not None and not fam.documented and VALID_BODIES[path]["model"] not in fam.models:
        expected = [("model", "warning")]  # a name the spec does not list passes with a warning
    found = [(p.field, p.severity) for p in validate_request(path, VALID_BODIES[path])]
    assert found == expected
    assert [(p.field, p.severity) for p in ensure_valid(path, VALID_BODIES[path])] == expected


@pytest.mark.parametrize("path", sorted(VALID_BODIES))
@pytest.mark.parametrize("body", [None, [], ["model"], "a string", 5, 1.5, True, b"{}"])
def test_non_object_body(path: str, body: Any) -> None:
    problems = validate_request(path, body)
    assert problems == [Problem("(body)", "must be a JSON object")]
    assert str(problems[0]) == "(body): must be a JSON object"


@pytest.mark.parametrize("path", sorted(VALID_BODIES))
def test_empty_object_names_a_required_field(path: str) -> None:
    errors = errors_only(validate_request(path, {}))
    assert errors
    assert all(p.field and p.rule for p in errors)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/result/abc",
        "/v1/banana/image",
        "/v1/seedance2/videos",
        "/v1/svcVideo2/videos",  # the video path is lower case
        "/svcvideo2/asset/upload",  # the asset path is not
        "v1/banana/images",
        "",
        "/v2/chat/completions",
        "/v1/chat/completions/",
    ],
)
def test_unknown_path(path: str) -> None:
    problems = validate_request(path, {"model": "x", "prompt": "y"})
    assert len(problems) == 1
    assert problems[0].field == "path"
    assert problems[0].is_error
    assert "unknown endpoint" in problems[0].rule
    assert repr(path) in problems[0].rule


def test_unknown_path_lists_every_endpoint_with_a_body() -> None:
    rule = validate_request("/v1/nope", {})[0].rule
    for path in VALID_BODIES:
        assert path in rule


@pytest.mark.parametrize("path", sorted(VALID_BODIES))
def test_validate_request_never_raises_on_junk_values(path: str) -> None:
    body = dict(VALID_BODIES[path])
    junks: list[Any] = [None, [], {}, 0, -1, 1e308, "", "\x00\u202e", [None], {"a": [{}]}]
    for key in list(body):
        for junk in junks:
            problems = validate_request(path, {**body, key: junk})
            assert all(isinstance(p, Problem) for p in problems)


# --- strict JSON types ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "field", "value", "words"),
    [
        ("/v1/seedance/videos", "duration", "5", ("integer",)),
        ("/v1/seedance/videos", "duration", True, ("integer",)),
        ("/v1/starvideos/videos", "duration", "5", ("integer",)),
        ("/v1/starvideos/videos", "duration", False, ("integer",)),
        ("/v1/vidu/videos", "duration", "5", ("integer",)),
        ("/v1/messages", "max_tokens", "10", ("integer",)),
        ("/v1/messages", "max_tokens", True, ("integer",)),
        ("/v1/messages", "max_tokens", 10.0, ("integer",)),
        ("/v1/chat/completions", "max_completion_tokens", "10", ("integer",)),
        ("/v1/chat/completions", "temperature", "0.5", ("number",)),
        ("/v1/chat/completions", "temperature", False, ("number",)),
        ("/v1/chat/completions", "stream", "false", ("true or false",)),
        ("/v1/chat/completions", "stream", 0, ("true or false",)),
        ("/v1/seedance/videos", "generate_audio", "false", ("true or false",)),
        ("/v1/banana/images", "prompt", 42, ("string",)),
        ("/v1/banana/images", "prompt", ["x"], ("string",)),
        ("/v1/image2/images", "image_urls", "https://x.y/z.png", ("list",)),
        ("/v1/sora/videos", "input_reference", "https://x.y/z.png", ("list",)),
        ("/v1/seedance/videos", "content", {"type": "text", "text": "x"}, ("list",)),
        (SEEDANCE2_UPLOAD, "url", ["https://x.y/z.png"], ("string",)),
        (SD2_UPLOAD, "imageUrls", "https://x.y/z.png", ("list",)),
        (SD2_STATUS, "assetIds", "a1", ("list",)),
    ],
)
def test_strict_json_types(path: str, field: str, value: Any, words: tuple[str, ...]) -> None:
    assert_error(path, {**VALID_BODIES[path], field: value}, field, *words)


# --- asset libraries ------------------------------------------------------------------------


@pytest.mark.parametrize("asset_type", ["Image", "Video", "Audio", "Document"])
def test_seedance2_upload_types(asset_type: str) -> None:
    body = {"assetType": asset_type, "url": URL, "name": "my face"}
    assert validate_request(SEEDANCE2_UPLOAD, body) == []


@pytest.mark.parametrize("asset_type", ["image", "IMAGE", "Photo", "", 1])
def test_seedance2_upload_other_types(asset_type: Any) -> None:
    body = {"assetType": asset_type, "url": URL}
    problem = assert_error(SEEDANCE2_UPLOAD, body, "assetType", "one of")
    assert "Document" in problem.rule


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"url": URL}, "assetType", ("required",)),
        ({"assetType": "Image"}, "url", ("required",)),
        ({"assetType": "Image", "url": "asset://abc"}, "url", ("http",)),
        ({"assetType": "Image", "url": "file:///etc/passwd"}, "url", ("http",)),
        ({"assetType": "Image", "url": ""}, "url", ("http",)),
        ({"assetType": "Image", "url": URL, "name": 5}, "name", ("string",)),
    ],
)
def test_seedance2_upload_rules(body: dict[str, Any], field: str, words: tuple[str, ...]) -> None:
    assert_error(SEEDANCE2_UPLOAD, body, field, *words)


def test_seedance2_upload_extra_field_is_a_warning() -> None:
    problems = validate_request(SEEDANCE2_UPLOAD, {"assetType": "Image", "url": URL, "tag": 1})
    assert [(p.field, p.severity) for p in problems] == [("tag", "warning")]


@pytest.mark.parametrize(
    "body",
    [
        {"imageUrls": [URL]},
        {"videoUrls": ["https://example.com/v.mp4"]},
        {"audioUrls": ["https://example.com/a.mp3"]},
        {"imageUrls": [], "audioUrls": ["https://example.com/a.mp3"]},
        {"imageUrls": [URL, URL], "videoUrls": ["https://e.com/v.mp4"], "audioUrls": []},
    ],
)
def test_sd2_upload_valid(body: dict[str, Any]) -> None:
    assert validate_request(SD2_UPLOAD, body) == []


@pytest.mark.parametrize(
    "body",
    [{}, {"imageUrls": []}, {"imageUrls": [], "videoUrls": [], "audioUrls": []}],
)
def test_sd2_upload_needs_one_non_empty_list(body: dict[str, Any]) -> None:
    problem = assert_error(SD2_UPLOAD, body, "imageUrls", "at least one")
    assert "videoUrls" in problem.rule
    assert "audioUrls" in problem.rule


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"imageUrls": ["not a url"]}, "imageUrls[0]"),
        ({"videoUrls": [URL, "asset://x"]}, "videoUrls[1]"),
        ({"audioUrls": [5]}, "audioUrls[0]"),
    ],
)
def test_sd2_upload_items_are_urls(body: dict[str, Any], field: str) -> None:
    assert_error(SD2_UPLOAD, body, field)


@pytest.mark.parametrize("ids", [["a"], ["asset-1-x", "opaque/id"]])
def test_sd2_status_valid(ids: list[str]) -> None:
    assert validate_request(SD2_STATUS, {"assetIds": ids}) == []


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({}, "assetIds", ("required",)),
        ({"assetIds": []}, "assetIds", ("at least one",)),
        ({"assetIds": ["a", " "]}, "assetIds[1]", ("empty",)),
        ({"assetIds": [1]}, "assetIds[0]", ("string",)),
    ],
)
def test_sd2_status_rules(body: dict[str, Any], field: str, words: tuple[str, ...]) -> None:
    assert_error(SD2_STATUS, body, field, *words)


# --- Problem and the exception ----------------------------------------------------------------


def test_problem_text_and_severity() -> None:
    problem = Problem("content[1].role", "a last_frame image needs a first_frame image")
    assert str(problem) == "content[1].role: a last_frame image needs a first_frame image"
    assert problem.is_error
    warning = Problem("top_p", "adjust temperature or top_p, not both", "warning")
    assert not warning.is_error
    assert errors_only([problem, warning]) == [problem]


def test_request_validation_error_lists_errors_only() -> None:
    body = {"model": "gpt-image-2-r", "prompt": "x", "quality": "high", "resolution": "2k"}
    with pytest.raises(RequestValidationError) as info:
        ensure_valid("/v1/image2/images", body)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.path == "/v1/image2/images"
    assert {p.field for p in error.problems} == {"ratio", "resolution"}
    assert all(p.is_error for p in error.problems)
    assert "ratio: is required when resolution is set" in str(error)
    assert "quality" not in str(error)  # a warning does not stop the request


def test_ensure_valid_returns_warnings() -> None:
    body = {"model": "gpt-image-2-r", "prompt": "x", "quality": "high"}
    warnings = ensure_valid("/v1/image2/images", body)
    assert [(p.field, p.severity) for p in warnings] == [("quality", "warning")]
