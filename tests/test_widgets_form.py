"""The form as data, derived from the catalog: controls and labels per family, option lists
narrowed by the validator, limits from the validator's numbers, messages in the user's words,
quiet until touched, work carried across families, load/body round trips, Active assets and
"copy as code". Driven headlessly through ``ImagePanel`` / ``VideoPanel`` traits."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest

import mediagen_nb
from mediagen_nb.catalog import Family, Kind, families
from mediagen_nb.catalog._controls import controls_for, form_spec
from mediagen_nb.catalog._params import IMAGE2_MAX_REFS, STARVIDEOS_MODE_FIELDS
from mediagen_nb.emulator import start_emulator
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._form_state import shown
from mediagen_nb.widgets._generate_panel import ImagePanel, VideoPanel
from mediagen_nb.widgets._session import ActiveAsset, Session
from tests._snippets import run_snippet, unfinished

REFS = ["first_image", "last_image", "referenceImages", "referenceVideos", "referenceAudios"]


@pytest.fixture
def session() -> Session:
    return Session(mode_text="test")


def visible(panel: ImagePanel | VideoPanel) -> list[str]:
    """Control keys the front end draws now (shown, and with an option left if a choice)."""
    values = panel.values
    return [
        c.key
        for c in controls_for(panel.family.id)
        if shown(c, values) and panel.offered.get(c.key, [None]) != []
    ]


def errors_of(panel: ImagePanel | VideoPanel, key: str) -> list[str]:
    return [p["message"] for p in panel.problems if p["key"] == key and p["error"]]


def control(family_id: str, key: str) -> dict[str, Any]:
    spec = next(
        f
        for f in form_spec("image")["families"] + form_spec("video")["families"]
        if f["id"] == family_id
    )
    return next(c for c in spec["controls"] if c["key"] == key)


# --- the spec ---------------------------------------------------------------------------------


def test_spec_lists_every_family_with_readable_distinct_model_titles() -> None:
    for kind in ("image", "video"):
        spec = form_spec(kind)
        assert [f["id"] for f in spec["families"]] == [f.id for f in families(kind)]
        for fam in spec["families"]:
            titles = [m["label"] for m in fam["models"]]
            assert len(set(titles)) == len(titles)
            assert fam["free_model"] == (not fam["models"])
    banana = form_spec("image")["families"][0]
    assert [m["label"] for m in banana["models"]] == [
        "Nano Banana",
        "Nano Banana 2",
        "Nano Banana Pro",
        "Nano Banana 2 (stable)",
        "Nano Banana Pro (stable)",
    ]
    sora = next(f for f in form_spec("video")["families"] if f["id"] == "sora")
    assert [m["label"] for m in sora["models"]] == ["Sora 2 Plus", "Sora 2 Pro"]
    assert [m["title"] for m in sora["models"]] == ["neutralSora2Plus", "neutralSora2Pro"]


def test_labels_are_plain_words_with_the_api_name_kept_for_the_tooltip() -> None:
    assert [(c.label, c.api) for c in controls_for("banana")] == [
        ("Prompt", "prompt"),
        ("Resolution", "resolution"),
        ("Aspect ratio", "size"),
        ("Reference images", "image_urls"),
    ]
    assert [(c.label, c.type) for c in controls_for("sora")] == [
        ("Prompt", "text"),
        ("Orientation", "segmented"),
        ("Length", "segmented"),
        ("Reference image", "ref"),
    ]
    assert control("banana", "resolution")["options"] == [
        {"value": "", "label": "Not sent", "rare": True},  # shown only for a loaded request
        {"value": "1k", "label": "1K"},
        {"value": "2k", "label": "2K"},
        {"value": "4k", "label": "4K"},
    ]
    assert control("banana", "size")["options"][0] == {"value": "", "label": "Model default"}
    assert [o["label"] for o in control("sora", "orientation")["options"]] == [
        "Portrait",
        "Landscape",
    ]
    assert [o["label"] for o in control("sora", "length")["options"]] == [
        "Default",
        "4 s",
        "8 s",
        "12 s",
    ]
    assert control("sora", "orientation")["api"] == "size (or aspect_ratio)"


def test_reference_limits_are_the_validators_numbers(session: Session) -> None:
    refs = control("image2", "image_urls")
    assert refs["max_items_by_model"] == IMAGE2_MAX_REFS
    assert refs["max_items_by_model"]["gpt-image-2"] == 6  # not "up to 16"
    panel = ImagePanel(session=session, model="gpt-image-2")
    panel.set(prompt="p", image_urls=[f"https://e.org/{i}.png" for i in range(7)])
    assert errors_of(panel, "image_urls") == [
        "Reference images: takes at most 6 item(s) for gpt-image-2, got 7"
    ]
    panel.select("gpt-image-2-r")
    assert errors_of(panel, "image_urls") == []
    assert panel.valid


# --- option lists -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "resolutions"),
    [("nano-banana", ["", "1k"]), ("nano-banana-pro", ["", "1k", "2k", "4k"])],
)
def test_banana_fields_and_resolutions(
    session: Session, model: str, resolutions: list[str]
) -> None:
    panel = ImagePanel(session=session, model=model)
    assert visible(panel) == ["prompt", "resolution", "size", "image_urls"]
    assert panel.offered["resolution"] == resolutions
    assert len(panel.offered["size"]) == 11  # model default + the ten ratios
    assert panel.body() == {"model": model, "prompt": "", "resolution": "1k"}


def test_image2_options_follow_the_rules(session: Session) -> None:
    panel = ImagePanel(session=session, model="gpt-image-2")
    assert visible(panel) == ["prompt", "quality", "ratio", "resolution", "size", "image_urls"]
    assert panel.offered["quality"] == ["", "low", "medium", "high"]
    assert panel.offered["resolution"] == ["", "1k", "2k"]  # 4k needs a wide or tall ratio
    panel.set(ratio="16:9")
    assert panel.offered["resolution"] == ["", "1k", "2k", "4k"]
    panel.set(resolution="4k")
    assert panel.offered["ratio"] == ["16:9", "9:16", "2:1", "1:2", "21:9", "9:21"]


def test_image2_r_hides_quality_and_high_resolutions(session: Session) -> None:
    panel = ImagePanel(session=session, model="gpt-image-2")
    panel.set(ratio="16:9", resolution="4k")
    panel.select("gpt-image-2-r")
    assert "quality" not in visible(panel)
    assert "quality" not in panel.body()
    assert panel.offered["resolution"] == ["", "1k"]
    assert panel.values["resolution"] == "1k"  # a value no longer offered falls back
    panel.select("gpt-image-2")
    assert panel.body()["quality"] == "low"  # the spec's default comes back


# --- messages ---------------------------------------------------------------------------------


def test_quiet_until_touched_then_named_in_the_users_words(session: Session) -> None:
    panel = ImagePanel(session=session, model="nano-banana")
    assert panel.problems == [
        {"key": "prompt", "message": "Prompt: must not be empty", "error": True}
    ]
    assert panel.visible_errors == []
    assert panel.hint == "Add a prompt to generate"
    assert not panel.can_generate
    panel.set(prompt="x")
    panel.set(prompt="")
    assert panel.visible_errors == ["Prompt: must not be empty"]
    panel.set(image_urls=["ftp://a", "https://e.org/b.png"])
    assert "Reference images: item 1 must be an http(s) URL" in panel.visible_errors
    assert panel.hint == "Add a prompt to generate"


def test_image2_bad_size_is_named_and_generate_disabled(session: Session) -> None:
    panel = ImagePanel(session=session, model="gpt-image-2")
    panel.set(prompt="p", size="10x10")
    assert not panel.can_generate
    assert errors_of(panel, "size") == [
        "Exact size (px): both edges must be multiples of 16",
        "Exact size (px): total pixels must be between 655,360 and 8,294,400 (got 100)",
    ]
    assert panel.hint == "Check exact size (px) to generate"
    panel.set(size="1536x1024")
    assert panel.can_generate
    warnings = [p["message"] for p in panel.problems if not p["error"]]
    assert any("overrides resolution and ratio" in w for w in warnings)


def test_seedance_messages_go_to_the_slot_and_prompt(session: Session) -> None:
    panel = VideoPanel(session=session, model="seedance_1_5_pro_720p")
    assert visible(panel) == ["prompt", "scenario", "ratio", "duration", "generate_audio"]
    assert errors_of(panel, "prompt") == ["Prompt: must not be empty"]
    panel.set(prompt="waves", scenario="first_last_frame")
    assert visible(panel)[:4] == ["prompt", "scenario", "first_frame", "last_frame"]
    assert errors_of(panel, "first_frame") == ["First frame: is required"]
    assert panel.hint == "Add a first frame to generate"
    panel.set(first_frame="nope", last_frame="https://e.org/b.png")
    assert errors_of(panel, "first_frame") == ["First frame: must be an http(s) URL"]
    panel.set(first_frame="https://e.org/a.png")
    assert panel.valid
    content = panel.body()["content"]
    assert [item.get("role") for item in content] == [None, "first_frame", "last_frame"]
    panel.set(duration="20")
    assert errors_of(panel, "duration") == [
        "Length (seconds): must be 2 to 12 seconds, or -1 for automatic"
    ]
    panel.set(scenario="reference_images", duration="-1")
    assert errors_of(panel, "reference_images") == ["Reference images: is required"]
    panel.set(reference_images=["https://e.org/1.png", "https://e.org/2.png"])
    assert panel.valid
    assert [i.get("role") for i in panel.body()["content"]][1:] == ["reference_image"] * 2


@pytest.mark.parametrize("mode", list(STARVIDEOS_MODE_FIELDS))
def test_starvideos_modes_show_their_fields(session: Session, mode: str) -> None:
    panel = VideoPanel(session=session, model="starvideos_o3")
    panel.set(mode=mode)
    assert set(visible(panel)) == {"mode", "prompt", *STARVIDEOS_MODE_FIELDS[mode]}
    assert set(panel.body()) <= {"model", "prompt", *STARVIDEOS_MODE_FIELDS[mode]}


@pytest.mark.parametrize(
    ("mode", "needed"),
    [
        ("image_reference", ["referenceImages"]),
        ("first_last_frame", ["first_image", "last_image"]),
        ("video_reference", ["referenceVideos"]),
        ("image_video", ["referenceImages", "referenceVideos"]),
    ],
)
def test_starvideos_mode_requires_its_inputs(
    session: Session, mode: str, needed: list[str]
) -> None:
    panel = VideoPanel(session=session, model="starvideos_o3")
    panel.set(prompt="a fox", mode=mode)
    assert not panel.valid
    for name in needed:
        assert errors_of(panel, name)[0].endswith(": is required")
        value = "https://e.org/v.mp4" if name == "referenceVideos" else "https://e.org/a.png"
        panel.set(**{name: value if name in ("first_image", "last_image") else [value]})
    assert panel.valid, panel.problems


@pytest.mark.parametrize("fam", [f for f in families("video") if not f.documented])
def test_partly_documented_families(session: Session, fam: Family) -> None:
    panel = VideoPanel(session=session)
    model = fam.models[0] if fam.models else "some-model"
    panel.select(model, fam.id)
    expected = ["prompt"] + (["duration"] if fam.duration_range else [])
    expected += [r for r in REFS if r in fam.reference_fields]
    assert visible(panel) == expected
    panel.set(prompt="p", extra='{"resolution": "1080p"}')
    assert panel.body()["resolution"] == "1080p"
    assert panel.body()["model"] == model
    assert panel.valid, panel.problems
    panel.set(extra="{nope")
    assert errors_of(panel, "extra")[0].startswith("More parameters: is not valid JSON")
    assert not panel.valid


def test_unnamed_family_needs_a_model_name(session: Session) -> None:
    panel = VideoPanel(session=session)
    panel.select_family("veo")
    panel.set(prompt="p")
    assert errors_of(panel, "model") == ["Model: must not be empty"]
    assert panel.hint == "Add a model name to generate"
    panel.set(model="veo-3")
    assert panel.valid
    assert panel.body()["model"] == "veo-3"


# --- carrying the user's work -----------------------------------------------------------------


def test_prompt_ratio_and_references_survive_family_switches(session: Session) -> None:
    panel = VideoPanel(session=session, model="neutralSora2Plus")
    panel.set(prompt="a lighthouse", orientation="landscape", reference="https://e.org/a.png")
    panel.select_family("starvideos")
    assert panel.values["prompt"] == "a lighthouse"
    assert panel.values["ratio"] == "16:9"
    assert panel.values["referenceImages"] == ["https://e.org/a.png"]
    panel.select_family("seedance")
    assert panel.values["prompt"] == "a lighthouse"
    assert panel.values["ratio"] == "16:9"
    panel.set(prompt="a harbour")
    panel.select_family("sora")  # its own form comes back, with the newer prompt
    assert panel.values["orientation"] == "landscape"
    assert panel.values["prompt"] == "a harbour"


def test_family_switch_from_the_front_end_carries_too(session: Session) -> None:
    panel = ImagePanel(session=session, model="nano-banana")
    panel.set(prompt="a fox", size="9:16")
    panel.values = {**panel.values, "family": "image2"}  # as the front end would send it
    assert panel.family.id == "image2"
    assert panel.values["model"] == "gpt-image-2"
    assert panel.values["prompt"] == "a fox"
    assert panel.values["ratio"] == "9:16"
    panel.handle_action({"action": "family", "family": "banana"})
    assert panel.values["size"] == "9:16"
    assert panel.values["model"] == "nano-banana"  # remembered for the session
    panel.set(model="nano-banana-pro", resolution="4k")
    panel.select_family("image2")
    again = ImagePanel(session=session)  # a new panel of the same session (a new Studio)
    again.select_family("image2")
    again.select_family("banana")
    assert (again.values["model"], again.values["resolution"]) == ("nano-banana-pro", "4k")


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
    session: Session, kind: str, body: dict[str, Any], family: str | None
) -> None:
    panel = (ImagePanel if kind == "image" else VideoPanel)(session=session)
    panel.load(body, family)
    assert panel.body() == body
    assert panel.valid, panel.problems
    assert panel.touched == []  # a loaded request shows no error until touched


def test_sora_alternative_names_load_into_the_same_controls(session: Session) -> None:
    panel = VideoPanel(session=session)
    panel.load({"model": "neutralSora2Pro", "prompt": "p", "aspect_ratio": "16:9", "seconds": 12})
    assert panel.values["orientation"] == "landscape"
    assert panel.values["length"] == 12
    assert panel.body() == {
        "model": "neutralSora2Pro",
        "prompt": "p",
        "size": "1280x720",
        "duration": 12,
    }


def test_load_puts_unknown_keys_in_the_json_box(session: Session) -> None:
    panel = VideoPanel(session=session)
    panel.load({"model": "viduq3-pro", "prompt": "p", "movement": "slow"})
    assert json.loads(panel.values["extra"]) == {"movement": "slow"}
    assert panel.body()["movement"] == "slow"


# --- assets -----------------------------------------------------------------------------------


def test_active_assets_reach_the_front_end_for_reference_controls(session: Session) -> None:
    panel = VideoPanel(session=session, model="starvideos_o3")
    assert panel.assets == []
    assert control("starvideos", "referenceImages")["assets"] == "Image"
    assert control("starvideos", "referenceVideos")["assets"] == "Video"
    assert control("banana", "image_urls")["assets"] == ""  # plain URLs only
    session.add_active_asset(ActiveAsset("asset-1-a", name="face", asset_type="Image"))
    session.add_active_asset(ActiveAsset("asset-2-b", asset_type="Video"))
    assert [(a["uri"], a["type"]) for a in panel.assets] == [
        ("asset://asset-1-a", "Image"),
        ("asset://asset-2-b", "Video"),
    ]
    panel.set(mode="image_reference", referenceImages=["asset://asset-1-a"], prompt="p")
    assert panel.body()["referenceImages"] == ["asset://asset-1-a"]
    session.remove_active_asset("asset-1-a")
    assert [a["uri"] for a in panel.assets] == ["asset://asset-2-b"]


# --- copy as code -----------------------------------------------------------------------------


def test_copy_as_code_is_valid_python_with_the_body(session: Session) -> None:
    panel = VideoPanel(session=session, model="seedance_1_5_pro_720p")
    panel.set(prompt='say "hi"')
    code = panel.code
    tree = ast.parse("async def cell():\n" + "\n".join("    " + line for line in code.splitlines()))
    call = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "create"
    )
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert kwargs == panel.body()
    assert "client.videos.create(" in code
    assert "family=" not in code


def test_copy_as_code_names_the_family_for_unnamed_models() -> None:
    code = code_for("video", {"model": "veo-3", "prompt": "x", "generate_audio": True}, "veo")
    assert 'family="veo"' in code
    assert "generate_audio=True" in code


@pytest.mark.parametrize(
    ("kind", "model", "prompt"),
    [("image", "nano-banana-pro", "a red fox"), ("video", "neutralSora2Plus", "a harbour")],
)
async def test_copy_as_code_runs_against_the_emulator_with_whole_sentences(
    kind: str, model: str, prompt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = (ImagePanel if kind == "image" else VideoPanel)(
        session=Session(mode_text="test"), model=model
    )
    panel.set(prompt=prompt)
    assert unfinished(panel.code) == []
    assert "demo mode" in panel.code  # says what happens without a key
    with start_emulator(speed=5000.0, api_key="code-key") as handle:
        monkeypatch.setenv("MEDIAGEN_API_KEY", "code-key")
        monkeypatch.setenv("MEDIAGEN_BASE_URL", handle.base_url)
        monkeypatch.setenv("MEDIAGEN_TEXT_BASE_URL", handle.text_base_url)
        data, task, client = await run_snippet(panel.code, "data, task, client")
        await client.aclose()
    assert task.status == "completed"
    assert len(data) > 0
    assert mediagen_nb.history().iloc[-1]["request"] == panel.body()


def test_unfinished_comments_are_found() -> None:
    code = "client = AsyncClient()  # MEDIAGEN_API_KEY etc. from the environment; demo mode without"
    assert unfinished(code) == ["MEDIAGEN_API_KEY etc. from the environment; demo mode without"]
    assert unfinished("# Reads the key.\n# It is never printed.\nx = 1  # One.") == []


# --- images: words and one-value choices --------------------------------------------------------


def test_family_titles_differ_from_their_models_titles() -> None:
    kinds: list[Kind] = ["image", "video"]
    for kind in kinds:
        for fam in form_spec(kind)["families"]:
            assert fam["title"] not in [m["label"] for m in fam["models"]], fam["title"]
    titles = [f["title"] for f in form_spec("image")["families"]]
    assert titles == ["Gemini image (Nano Banana)", "OpenAI image (GPT Image 2)"]


def test_prompt_help_speaks_of_pictures_for_images_and_motion_for_videos() -> None:
    for fam in form_spec("image")["families"]:
        assert "motion" not in control(fam["id"], "prompt")["help"]
    assert "camera" in control("sora", "prompt")["help"]


def test_a_model_with_one_resolution_offers_no_choice_but_sends_it(session: Session) -> None:
    """The front end draws a choice with one offered option as plain text (no toggle)."""
    for model in ("nano-banana", "gpt-image-2-r"):
        panel = ImagePanel(session=session, model=model)
        options = [
            o["value"]
            for o in control(panel.family.id, "resolution")["options"]
            if o["value"] in panel.offered["resolution"] and not o.get("rare")
        ]
        assert options == ["1k"]
        assert panel.body()["resolution"] == "1k"
