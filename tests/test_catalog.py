"""The catalog holds exactly what the spec says: text models, families, polling, ETAs, lifetimes."""

from __future__ import annotations

import pytest

from mediagen_nb.catalog import (
    FAMILIES,
    TEXT_MODELS,
    families,
    family,
    family_for_model,
    family_for_path,
    params_for,
    text_model,
)
from mediagen_nb.catalog import _params as catalog_params
from mediagen_nb.catalog import _text as catalog_text
from mediagen_nb.catalog._families import REFERENCE_FIELDS
from mediagen_nb.catalog._text import text_vendor_of

# --- text models --------------------------------------------------------------------------

GPT_BASES = ("gpt-5.4", "gpt-5.5")
CLAUDE_BASES = (
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
)
GEMINI_BASES = ("gemini-2.5-pro", "gemini-3-flash-preview", "gemini-3.1-pro-preview")
GEMINI_LITE = ("gemini-2.5-flash-lite", "gemini-3.1-flash-lite-preview")


def _expected_text_models() -> set[str]:
    names: set[str] = set()
    for base in GPT_BASES:
        names |= {base + s for s in ("", "-official", "-hc", "-fd", "-low")}
    for base in CLAUDE_BASES:
        names |= {base + s for s in ("", "-official", "-hc", "-fd")}
    for base in GEMINI_BASES:
        names |= {base + s for s in ("", "-official", "-low")}
    names |= set(GEMINI_LITE)
    return names


def test_text_model_table_is_exactly_the_spec_table() -> None:
    expected = _expected_text_models()
    assert len(expected) == 45
    assert set(TEXT_MODELS) == expected
    assert len(TEXT_MODELS) == 45


@pytest.mark.parametrize(
    "name",
    ["gpt-5.5-low", "gpt-5.4-fd", "claude-opus-4-7-hc", "gemini-3.1-pro-preview-low"],
)
def test_offered_variants_exist(name: str) -> None:
    assert text_model(name) is not None


@pytest.mark.parametrize(
    "name",
    [
        "claude-opus-4-7-low",
        "claude-haiku-4-5-low",
        "gemini-2.5-pro-hc",
        "gemini-2.5-pro-fd",
        "gemini-2.5-flash-lite-official",
        "gemini-2.5-flash-lite-low",
        "gemini-3.1-flash-lite-preview-official",
        "gpt-5.6",
        "gpt-5.4-pro",
        "",
    ],
)
def test_variants_the_table_does_not_offer_do_not_exist(name: str) -> None:
    assert text_model(name) is None
    assert name not in TEXT_MODELS


@pytest.mark.parametrize(
    ("name", "vendor", "base", "variant"),
    [
        ("gpt-5.5-low", "gpt", "gpt-5.5", "low"),
        ("gpt-5.4", "gpt", "gpt-5.4", "standard"),
        ("claude-sonnet-4-6-official", "claude", "claude-sonnet-4-6", "official"),
        ("claude-opus-4-5-hc", "claude", "claude-opus-4-5", "hc"),
        ("claude-haiku-4-5-fd", "claude", "claude-haiku-4-5", "fd"),
        ("gemini-3-flash-preview-low", "gemini", "gemini-3-flash-preview", "low"),
        ("gemini-2.5-flash-lite", "gemini", "gemini-2.5-flash-lite", "standard"),
    ],
)
def test_text_model_parts(name: str, vendor: str, base: str, variant: str) -> None:
    entry = text_model(name)
    assert entry is not None
    assert (entry.name, entry.vendor, entry.base, entry.variant) == (name, vendor, base, variant)


@pytest.mark.parametrize(
    ("variant", "meaning"),
    [
        ("standard", "standard"),
        ("official", "official version"),
        ("hc", "high-quality pool (premium account pool)"),
        ("fd", "proxy / mixed account pool"),
        ("low", "budget version"),
    ],
)
def test_suffix_meanings(variant: str, meaning: str) -> None:
    assert catalog_text.VARIANT_MEANING[variant] == meaning  # type: ignore[index]
    models = [m for m in TEXT_MODELS.values() if m.variant == variant]
    assert models
    assert all(m.variant_meaning == meaning for m in models)


@pytest.mark.parametrize("name", sorted(_expected_text_models()))
def test_capabilities_table(name: str) -> None:
    entry = text_model(name)
    assert entry is not None
    vendor = name.split("-", maxsplit=1)[0]
    assert entry.vendor == vendor
    # image analysis on chat-completions: all models
    assert entry.image_input_chat is True
    # video analysis on chat-completions: Gemini only
    assert entry.video_input_chat is (vendor == "gemini")
    # messages endpoint: Claude and GPT models
    assert ("messages" in entry.endpoints) is (vendor in ("claude", "gpt"))
    assert "chat_completions" in entry.endpoints
    # image analysis on messages: not for GPT models
    assert entry.image_input_messages is (vendor == "claude")
    assert entry.describe().startswith(name + ": ")


@pytest.mark.parametrize(
    ("name", "vendor"),
    [("gpt-6", "gpt"), ("claude-opus-5", "claude"), ("gemini-4-pro", "gemini"), ("llama-3", None)],
)
def test_vendor_by_prefix_for_newer_names(name: str, vendor: str | None) -> None:
    assert text_vendor_of(name) == vendor


# --- families -----------------------------------------------------------------------------

CREATE_PATHS = {
    "banana": "/v1/banana/images",
    "image2": "/v1/image2/images",
    "sora": "/v1/sora/videos",
    "veo": "/v1/veo/videos",
    "seedance": "/v1/seedance/videos",
    "seedance2": "/v1/svcvideo2/videos",
    "vidu": "/v1/vidu/videos",
    "grok": "/v1/grok/videos",
    "starvideos": "/v1/starvideos/videos",
    "videos": "/v1/videos/videos",
    "sd2_manxue": "/v1/sd2_manxue/videos",
}

MODELS = {
    "banana": (
        "nano-banana",
        "nano-banana-2",
        "nano-banana-pro",
        "nano-banana-2-stable",
        "nano-banana-pro-stable",
    ),
    "image2": ("gpt-image-2", "gpt-image-2-r"),
    "sora": ("neutralSora2Plus", "neutralSora2Pro"),
    "veo": (),
    "seedance": ("seedance_1_5_pro_480p", "seedance_1_5_pro_720p", "seedance_1_5_pro_1080p"),
    "seedance2": (),
    "vidu": ("viduq3-pro", "viduq3-turbo"),
    "grok": (),
    "starvideos": ("starvideos_o3",),
    "videos": (),
    "sd2_manxue": ("sd2_manxue_1080p", "sd2_manxue_4k", "sd2_manxue_fast_720p"),
}

DURATIONS: dict[str, tuple[int, int] | None] = {
    "banana": None,
    "image2": None,
    "sora": (4, 12),
    "veo": None,  # fixed
    "seedance": (2, 12),
    "seedance2": (4, 15),
    "vidu": (1, 16),
    "grok": (6, 30),
    "starvideos": (3, 15),
    "videos": (4, 15),
    "sd2_manxue": (4, 15),
}

MAX_RESOLUTION_MENTIONS = {
    "sora": "1280x720",
    "veo": "4K",
    "seedance": "1080p",
    "seedance2": "varies",
    "vidu": "1080p",
    "grok": "720p",
    "starvideos": "varies",
    "videos": "720p",
    "sd2_manxue": "4K",
    "image2": "4K",
    "banana": "4K",
}


def test_family_ids_and_order() -> None:
    assert list(FAMILIES) == list(CREATE_PATHS)
    assert [f.id for f in families("image")] == ["banana", "image2"]
    assert [f.id for f in families("video")] == list(CREATE_PATHS)[2:]
    assert families() == tuple(FAMILIES.values())


@pytest.mark.parametrize(("family_id", "path"), sorted(CREATE_PATHS.items()))
def test_create_path_and_lookup(family_id: str, path: str) -> None:
    fam = family(family_id)
    assert fam.id == family_id
    assert fam.create_path == path
    assert family_for_path(path) is fam
    assert fam.kind == ("image" if path.endswith("/images") else "video")


@pytest.mark.parametrize(("family_id", "models"), sorted(MODELS.items()))
def test_models_and_model_lookup(family_id: str, models: tuple[str, ...]) -> None:
    fam = family(family_id)
    assert fam.models == models
    for model in models:
        assert family_for_model(model) is fam


@pytest.mark.parametrize(("family_id", "expected"), sorted(DURATIONS.items()))
def test_duration_ranges(family_id: str, expected: tuple[int, int] | None) -> None:
    assert family(family_id).duration_range == expected


@pytest.mark.parametrize(("family_id", "text"), sorted(MAX_RESOLUTION_MENTIONS.items()))
def test_max_resolution(family_id: str, text: str) -> None:
    assert text in family(family_id).max_resolution


@pytest.mark.parametrize(
    ("family_id", "documented"),
    [(f, f in ("banana", "image2", "sora", "seedance", "starvideos")) for f in CREATE_PATHS],
)
def test_documented_flag(family_id: str, documented: bool) -> None:
    assert family(family_id).documented is documented


def test_unknown_lookups() -> None:
    assert family_for_path("/v1/seedance2/videos") is None  # the real path is svcvideo2
    assert family_for_path("/v1/result/abc") is None
    assert family_for_model("gpt-5.4") is None
    assert family_for_model("") is None
    with pytest.raises(KeyError, match="known families: banana"):
        family("midjourney")


@pytest.mark.parametrize("family_id", ["banana", "image2"])
def test_image_poll_interval_two_to_five_seconds(family_id: str) -> None:
    fam = family(family_id)
    assert fam.poll_interval == (2.0, 5.0)
    for model in fam.models:
        assert fam.min_poll_interval(model) == 2.0
    assert fam.min_poll_interval() == 2.0


@pytest.mark.parametrize(
    "family_id", ["sora", "veo", "seedance2", "vidu", "grok", "starvideos", "videos", "sd2_manxue"]
)
def test_video_poll_interval_thirty_to_sixty_seconds(family_id: str) -> None:
    fam = family(family_id)
    assert fam.poll_interval == (30.0, 60.0)
    assert fam.min_poll_interval() == 30.0
    for model in (*fam.models, "some-new-model"):
        assert fam.min_poll_interval(model) == 30.0


def test_seedance_480p_polls_ten_to_twenty_seconds() -> None:
    fam = family("seedance")
    assert fam.model_poll_interval["seedance_1_5_pro_480p"] == (10.0, 20.0)
    assert fam.min_poll_interval("seedance_1_5_pro_480p") == 10.0


@pytest.mark.parametrize(
    "model", [*MODELS["seedance"], None, "seedance_2_0_pro_1080p", "seedance_1_5_pro_480p"]
)
def test_seedance_never_polls_more_often_than_every_ten_seconds(model: str | None) -> None:
    fam = family("seedance")
    assert fam.min_poll_interval(model) >= 10.0
    low, high = fam.model_poll_interval.get(model or "", fam.poll_interval)
    assert 10.0 <= low <= high


@pytest.mark.parametrize(
    ("family_id", "model", "eta"),
    [
        ("seedance", "seedance_1_5_pro_480p", (30.0, 120.0)),
        ("seedance", "seedance_1_5_pro_720p", (120.0, 300.0)),
        ("seedance", "seedance_1_5_pro_1080p", (180.0, 480.0)),
        ("vidu", "viduq3-turbo", (120.0, 240.0)),
        ("vidu", "viduq3-pro", (180.0, 360.0)),
    ],
)
def test_eta_from_the_limits_table(family_id: str, model: str, eta: tuple[float, float]) -> None:
    assert family(family_id).eta(model) == eta


def test_sora_eta_is_two_to_five_minutes_for_eight_seconds() -> None:
    sora = family("sora")
    assert sora.eta("neutralSora2Pro", 8) == (120.0, 300.0)
    assert sora.eta("neutralSora2Plus", 4) == (60.0, 150.0)
    assert sora.eta("neutralSora2Plus", 12) == (180.0, 450.0)
    assert sora.eta() == (120.0, 300.0)


@pytest.mark.parametrize("family_id", list(CREATE_PATHS))
def test_every_eta_is_an_ordered_positive_range(family_id: str) -> None:
    fam = family(family_id)
    for model in (*fam.models, None):
        low, high = fam.eta(model)
        assert 0 < low <= high
    low, high = fam.poll_interval
    assert 0 < low <= high


@pytest.mark.parametrize(
    ("family_id", "lifetime"),
    [("image2", 86400.0), ("vidu", 86400.0), ("seedance", 86400.0)],
)
def test_url_lifetimes_from_the_spec(family_id: str, lifetime: float) -> None:
    assert family(family_id).url_lifetime_s == lifetime


def test_sd2_url_is_temporary_and_seedance_record_retained_one_day() -> None:
    sd2 = family("sd2_manxue").url_lifetime_s
    assert sd2 is not None
    assert 0 < sd2 < 86400.0  # "temporary, expires after a short period"
    assert family("seedance").record_retention_s == 86400.0


@pytest.mark.parametrize("family_id", ["banana", "sora", "veo", "grok", "starvideos", "videos"])
def test_url_lifetimes_not_shown_are_unknown(family_id: str) -> None:
    assert family(family_id).url_lifetime_s is None


@pytest.mark.parametrize(
    ("family_id", "create_object", "result_object"),
    [
        ("banana", "nanobanana", None),
        ("image2", "image", "image.generation"),
        ("sora", "video.generation", None),
        ("seedance", "video", "video"),
        ("starvideos", "video", None),
        ("sd2_manxue", "video", "video"),
        ("vidu", "video", "Video"),
    ],
)
def test_object_values(family_id: str, create_object: str, result_object: str | None) -> None:
    fam = family(family_id)
    assert fam.create_object == create_object
    assert fam.result_object == result_object


def test_statuses_cancelled_only_for_seedance() -> None:
    for fam in FAMILIES.values():
        assert fam.statuses[:4] == ("queued", "processing", "completed", "failed")
        assert ("cancelled" in fam.statuses) is (fam.id == "seedance")
    assert catalog_params.TERMINAL_STATUSES == ("completed", "failed", "cancelled")


@pytest.mark.parametrize("family_id", ["veo", "seedance2", "vidu", "grok", "videos", "sd2_manxue"])
def test_partly_documented_families_take_all_five_reference_inputs(family_id: str) -> None:
    fam = family(family_id)
    assert fam.reference_fields == REFERENCE_FIELDS
    assert REFERENCE_FIELDS == (
        "first_image",
        "last_image",
        "referenceImages",
        "referenceVideos",
        "referenceAudios",
    )
    names = [p.name for p in params_for(family_id)]
    assert set(REFERENCE_FIELDS) <= set(names)
    duration = [p for p in params_for(family_id) if p.name == "duration"]
    if fam.duration_range is None:
        assert duration == []
    else:
        assert (duration[0].minimum, duration[0].maximum) == fam.duration_range


def test_asset_library_links() -> None:
    assert family("seedance2").asset_library == "seedance2"
    assert family("sd2_manxue").asset_library == "sd2"
    others = [f.id for f in FAMILIES.values() if f.asset_library is not None]
    assert sorted(others) == ["sd2_manxue", "seedance2"]
