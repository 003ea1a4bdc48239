"""The catalog's parameter vocabularies, form tables and asset libraries match the spec."""

from __future__ import annotations

import pytest

from mediagen_nb import catalog
from mediagen_nb.catalog import PARAMS, asset_uri, options, parse_asset_uri
from mediagen_nb.catalog import _assets as catalog_assets
from mediagen_nb.catalog import _params as params
from mediagen_nb.catalog._assets import ASSET_LIBRARIES

# --- parameter vocabularies -----------------------------------------------------------------


def test_banana_vocabulary() -> None:
    assert options(params.BananaModel) == (
        "nano-banana",
        "nano-banana-2",
        "nano-banana-pro",
        "nano-banana-2-stable",
        "nano-banana-pro-stable",
    )
    assert options(params.BananaResolution) == ("1k", "2k", "4k")
    assert options(params.BananaSize) == (
        "1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "21:9",
    )  # fmt: skip
    assert params.BANANA_HIRES_MODELS == ("nano-banana-pro", "nano-banana-pro-stable")
    assert params.BANANA_MAX_REFS == 6


def test_image2_vocabulary() -> None:
    assert options(params.Image2Model) == ("gpt-image-2", "gpt-image-2-r")
    assert options(params.Image2Quality) == ("low", "medium", "high")
    assert len(options(params.Image2Ratio)) == 13
    assert set(options(params.Image2Ratio)) == {
        "1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "2:1", "1:2",
        "21:9", "9:21",
    }  # fmt: skip
    assert params.IMAGE2_4K_RATIOS == ("16:9", "9:16", "2:1", "1:2", "21:9", "9:21")
    assert params.IMAGE2_MAX_REFS == {"gpt-image-2": 6, "gpt-image-2-r": 16}
    assert params.IMAGE2_HIRES_MODELS == ("gpt-image-2",)
    assert (
        params.IMAGE2_SIZE_MAX_EDGE,
        params.IMAGE2_SIZE_MULTIPLE,
        params.IMAGE2_SIZE_MAX_ASPECT,
    ) == (
        3840,
        16,
        3.0,
    )
    assert (params.IMAGE2_SIZE_MIN_PIXELS, params.IMAGE2_SIZE_MAX_PIXELS) == (655_360, 8_294_400)


def test_video_vocabularies() -> None:
    assert options(params.SoraSize) == ("720x1280", "1280x720")
    assert options(params.SoraAspect) == ("16:9", "9:16")
    assert options(params.SoraDuration) == (4, 8, 12)
    assert params.SORA_MAX_REFS == 1
    assert set(options(params.SeedanceRatio)) == {
        "16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive",
    }  # fmt: skip
    assert options(params.SeedanceRole) == ("first_frame", "last_frame", "reference_image")
    assert (params.SEEDANCE_DURATION, params.SEEDANCE_AUTO_DURATION) == ((2, 12), -1)
    assert params.SEEDANCE_MAX_REFERENCE_IMAGES == 4
    assert (params.SEEDANCE_MAX_CJK_CHARS, params.SEEDANCE_MAX_WORDS) == (500, 1000)
    assert options(params.StarvideosModel) == ("starvideos_o3",)
    assert options(params.StarvideosRatio) == ("9:16", "1:1", "16:9")
    assert params.STARVIDEOS_DURATION == (3, 15)
    assert (params.STARVIDEOS_MAX_REFS, params.STARVIDEOS_MAX_REFS_WITH_VIDEO) == (7, 4)
    assert params.STARVIDEOS_MAX_VIDEOS == 1
    assert params.SD2_MAX_AUDIO_SECONDS == 15.0


def test_seedance_scenarios() -> None:
    assert options(params.SeedanceScenario) == (
        "text",
        "first_frame",
        "first_last_frame",
        "reference_images",
    )
    slots = params.SEEDANCE_SCENARIO_SLOTS
    assert slots["text"] == ()
    assert slots["first_frame"] == ("first_frame",)
    assert slots["first_last_frame"] == ("first_frame", "last_frame")
    assert slots["reference_images"] == ("reference_image",) * 4


def test_starvideos_five_modes() -> None:
    modes = params.STARVIDEOS_MODE_FIELDS
    assert tuple(modes) == options(params.StarvideosMode)
    assert modes["text"] == ("duration", "ratio")
    assert set(modes["image_reference"]) == {"referenceImages", "duration", "ratio"}
    assert set(modes["first_last_frame"]) == {"first_image", "last_image", "duration", "ratio"}
    # with a reference video, duration and ratio come from the video
    assert modes["video_reference"] == ("referenceVideos",)
    assert set(modes["image_video"]) == {"referenceImages", "referenceVideos"}


def test_chat_vocabulary() -> None:
    assert options(params.ChatRole) == ("system", "developer", "user", "assistant", "tool")
    assert options(params.MessagesRole) == ("user", "assistant")
    assert params.CHAT_MAX_STOP == 4
    assert params.CHAT_TEMPERATURE == (0.0, 2.0)


@pytest.mark.parametrize(
    ("family_id", "name", "attr", "value"),
    [
        ("banana", "image_urls", "max_items", 6),
        ("banana", "resolution", "default", "1k"),
        ("image2", "quality", "default", "low"),
        ("image2", "ratio", "default", "1:1"),
        ("image2", "image_urls", "max_items", 16),
        ("sora", "size", "default", "720x1280"),
        ("sora", "size", "exclusive_with", "aspect_ratio"),
        ("sora", "duration", "exclusive_with", "seconds"),
        ("sora", "input_reference", "exclusive_with", "image_urls"),
        ("sora", "image_urls", "max_items", 1),
        ("seedance", "duration", "default", 5),
        ("seedance", "generate_audio", "default", True),
        ("seedance", "content", "required", True),
        ("starvideos", "duration", "default", 3),
        ("starvideos", "ratio", "default", "9:16"),
        ("starvideos", "referenceImages", "max_items", 7),
        ("starvideos", "referenceVideos", "max_items", 1),
    ],
)
def test_form_parameter_tables(family_id: str, name: str, attr: str, value: object) -> None:
    by_name = {p.name: p for p in PARAMS[family_id]}
    assert getattr(by_name[name], attr) == value


# --- asset libraries ----------------------------------------------------------------------


def test_seedance2_asset_library() -> None:
    lib = ASSET_LIBRARIES["seedance2"]
    assert lib.family == "seedance2"
    assert lib.upload_path == "/svcVideo2/asset/upload"
    assert lib.item_path == "/svcVideo2/asset/{assetId}"
    assert lib.status_path is None
    assert lib.asset_types == ("Image", "Video", "Audio", "Document")
    assert set(lib.review_states) == {"Processing", "Active", "Failed"}
    assert lib.id_format == "asset-{timestamp}-{random}"


def test_sd2_asset_library() -> None:
    lib = ASSET_LIBRARIES["sd2"]
    assert lib.family == "sd2_manxue"
    assert lib.upload_path == "/asset/sd2Manxue/assetUpload"
    assert lib.status_path == "/asset/sd2Manxue/assetStatus"
    assert lib.item_path is None
    assert lib.asset_types == ("Image", "Video", "Audio")
    assert set(lib.review_states) == {"submitted", "Processing", "Active", "Failed"}


def test_asset_paths_carry_no_version_segment() -> None:
    for lib in ASSET_LIBRARIES.values():
        for path in (lib.upload_path, lib.status_path, lib.item_path):
            assert path is None or not path.startswith("/v1")


def test_asset_states_and_types() -> None:
    assert catalog_assets.ASSET_PENDING_STATES == ("submitted", "Processing")
    assert (catalog_assets.ASSET_ACTIVE, catalog_assets.ASSET_FAILED) == ("Active", "Failed")
    assert options(catalog.AssetType) == ("Image", "Video", "Audio", "Document")
    assert set(options(catalog.AssetStatus)) == {"submitted", "Processing", "Active", "Failed"}


@pytest.mark.parametrize(
    ("value", "asset_id"),
    [
        ("asset://asset-1700000000-ab12", "asset-1700000000-ab12"),
        ("asset://x", "x"),
        ("asset://", None),
        ("https://example.com/a.png", None),
        ("ASSET://x", None),
    ],
)
def test_asset_uri_round_trip(value: str, asset_id: str | None) -> None:
    assert parse_asset_uri(value) == asset_id
    if asset_id is not None:
        assert asset_uri(asset_id) == value


def _isort_key(name: str) -> tuple[int, str]:
    """RUF022's order: SCREAMING_CASE, then CamelCase, then the rest."""
    if name.isupper():
        return (0, name)
    return (1 if name[:1].isupper() else 2, name)


def test_exported_names_are_sorted_and_present() -> None:
    assert catalog.__all__ == sorted(catalog.__all__, key=_isort_key)
    for name in catalog.__all__:
        assert hasattr(catalog, name), name
