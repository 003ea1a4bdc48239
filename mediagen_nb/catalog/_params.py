"""Parameter vocabularies and per-family parameter tables, as the spec states them.

The ``Literal`` aliases are the single source for request models (mediagen_nb.types),
dropdown options (mediagen_nb.widgets) and the emulator. ``PARAMS`` describes each family's
parameters for forms: type, options, default, limits and a one-line help text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

# --- banana -------------------------------------------------------------------------------
BananaModel = Literal[
    "nano-banana",
    "nano-banana-2",
    "nano-banana-pro",
    "nano-banana-2-stable",
    "nano-banana-pro-stable",
]
BananaResolution = Literal["1k", "2k", "4k"]
BananaSize = Literal["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "21:9"]
BANANA_HIRES_MODELS: tuple[str, ...] = ("nano-banana-pro", "nano-banana-pro-stable")
"""Only these banana models accept ``2k`` and ``4k``."""
BANANA_MAX_REFS = 6

# --- image2 -------------------------------------------------------------------------------
Image2Model = Literal["gpt-image-2", "gpt-image-2-r"]
Image2Quality = Literal["low", "medium", "high"]
Image2Ratio = Literal[
    "1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "5:4", "4:5", "2:1", "1:2", "21:9", "9:21"
]
Image2Resolution = Literal["1k", "2k", "4k"]
IMAGE2_4K_RATIOS: tuple[str, ...] = ("16:9", "9:16", "2:1", "1:2", "21:9", "9:21")
IMAGE2_MAX_REFS: dict[str, int] = {"gpt-image-2": 6, "gpt-image-2-r": 16}
IMAGE2_HIRES_MODELS: tuple[str, ...] = ("gpt-image-2",)
IMAGE2_SIZE_MAX_EDGE = 3840
IMAGE2_SIZE_MULTIPLE = 16
IMAGE2_SIZE_MAX_ASPECT = 3.0
IMAGE2_SIZE_MIN_PIXELS = 655_360
IMAGE2_SIZE_MAX_PIXELS = 8_294_400
IMAGE2_R_MAX_PIXELS = 1536 * 1024
"""gpt-image-2-r renders at most 1K; the spec shows no pixel bound for ``size``, so we take
the largest 1K-class size of the gpt-image line, 1536x1024 (1,572,864 pixels)."""

# --- sora ---------------------------------------------------------------------------------
SoraModel = Literal["neutralSora2Plus", "neutralSora2Pro"]
SoraSize = Literal["720x1280", "1280x720"]
SoraAspect = Literal["16:9", "9:16"]
SoraDuration = Literal[4, 8, 12]
SORA_MAX_REFS = 1
SORA_REFERENCE_PIXELS: dict[str, tuple[int, int]] = {
    "1280x720": (1280, 720),
    "720x1280": (720, 1280),
}
"""The picture size sora's reference must have for each ``size`` (spec: it must match)."""
SORA_ASPECT_SIZE: dict[str, str] = {"16:9": "1280x720", "9:16": "720x1280"}
SORA_DEFAULT_SIZE = "720x1280"

# --- seedance 1.5 -------------------------------------------------------------------------
SeedanceModel = Literal["seedance_1_5_pro_480p", "seedance_1_5_pro_720p", "seedance_1_5_pro_1080p"]
SeedanceRatio = Literal["16:9", "4:3", "1:1", "3:4", "9:16", "21:9", "adaptive"]
SeedanceRole = Literal["first_frame", "last_frame", "reference_image"]
SeedanceScenario = Literal["text", "first_frame", "first_last_frame", "reference_images"]
SEEDANCE_DURATION = (2, 12)
SEEDANCE_AUTO_DURATION = -1
SEEDANCE_MAX_REFERENCE_IMAGES = 4
SEEDANCE_MAX_CJK_CHARS = 500
SEEDANCE_MAX_WORDS = 1000
SEEDANCE_IMAGE_FORMATS: tuple[str, ...] = (
    "jpeg",
    "jpg",
    "png",
    "webp",
    "bmp",
    "tiff",
    "tif",
    "gif",
    "heic",
    "heif",
)
SEEDANCE_IMAGE_SIDE = (300, 6000)
"""Pixels each side of a seedance 1.5 image must have, inclusive."""
SEEDANCE_IMAGE_RATIO = (0.4, 2.5)
"""Width / height a seedance 1.5 image must have, inclusive."""
SEEDANCE_SCENARIO_SLOTS: dict[str, tuple[str, ...]] = {
    "text": (),
    "first_frame": ("first_frame",),
    "first_last_frame": ("first_frame", "last_frame"),
    "reference_images": ("reference_image",) * SEEDANCE_MAX_REFERENCE_IMAGES,
}
"""Image slots each scenario allows (reference_images: 1 to 4)."""

# --- starvideos ---------------------------------------------------------------------------
StarvideosModel = Literal["starvideos_o3"]
StarvideosRatio = Literal["9:16", "1:1", "16:9"]
StarvideosMode = Literal[
    "text", "image_reference", "first_last_frame", "video_reference", "image_video"
]
STARVIDEOS_DURATION = (3, 15)
STARVIDEOS_MAX_REFS = 7
STARVIDEOS_MAX_REFS_WITH_VIDEO = 4
STARVIDEOS_MAX_VIDEOS = 1
STARVIDEOS_VIDEO_SECONDS = (3.0, 10.0)
"""Length a starvideos reference video must have, inclusive (spec: 3 to 10 s)."""
STARVIDEOS_MODE_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("duration", "ratio"),
    "image_reference": ("referenceImages", "duration", "ratio"),
    "first_last_frame": ("first_image", "last_image", "duration", "ratio"),
    "video_reference": ("referenceVideos",),
    "image_video": ("referenceImages", "referenceVideos"),
}
"""Fields each of the five modes shows besides model and prompt."""

# --- sd2 ----------------------------------------------------------------------------------
SD2_MAX_AUDIO_SECONDS = 15.0

# --- assets -------------------------------------------------------------------------------
AssetType = Literal["Image", "Video", "Audio", "Document"]
AssetStatus = Literal["submitted", "Processing", "Active", "Failed"]
ASSET_URI_PREFIX = "asset://"

# --- tasks --------------------------------------------------------------------------------
TaskStatus = Literal["queued", "processing", "completed", "failed", "cancelled"]
TERMINAL_STATUSES: tuple[str, ...] = ("completed", "failed", "cancelled")

# --- chat ---------------------------------------------------------------------------------
ChatRole = Literal["system", "developer", "user", "assistant", "tool"]
"""Roles of chat-completions turns (``developer``: the system role of newer OpenAI models;
``tool``: a tool result in a tool loop)."""
MessagesRole = Literal["user", "assistant"]
CHAT_MAX_STOP = 4
CHAT_TEMPERATURE = (0.0, 2.0)


def options(alias: Any) -> tuple[Any, ...]:
    """The values of a ``Literal`` alias, for dropdowns.

    Args:
        alias: A ``Literal[...]`` alias.

    Returns:
        Its values, in order.
    """
    return tuple(get_args(alias))


ParamType = Literal["enum", "int", "bool", "text", "str", "url", "url_list", "size", "content"]


@dataclass(frozen=True)
class Param:
    """One request parameter of a family, as a form shows it (and the docs list it).

    Attributes:
        name: The field's name in the request body.
        type: ``enum``, ``int``, ``bool``, ``text``, ``str``, ``url``, ``url_list``, ``size``
            or ``content``.
        help: One line saying what it does.
        required: The request needs it.
        options: The allowed values of an ``enum``.
        default: The service's default (None: omitted from the body unless set).
        minimum: The smallest number allowed.
        maximum: The largest number allowed.
        max_items: The most items of a list.
        exclusive_with: A parameter that must not be sent together with this one.
        max_items_by_model: Per-model ``max_items`` where the models of a family differ.
        carry: What the value means across families, so a form keeps it on a switch.
    """

    name: str
    type: ParamType
    help: str
    required: bool = False
    options: tuple[Any, ...] = ()
    default: Any = None
    """The service's default (None: omitted from the body unless set)."""
    minimum: int | None = None
    maximum: int | None = None
    also: tuple[int, ...] = ()
    """Values outside ``minimum``..``maximum`` the rule also takes (seedance's -1: automatic)."""
    max_items: int | None = None
    exclusive_with: str | None = None
    """Name of a parameter that must not be sent together with this one."""
    max_items_by_model: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    """Per-model ``max_items`` where models of a family differ (the validator's numbers)."""
    carry: str = ""
    """What the value means across families ("ratio", "length", "first_frame"...), so a
    form keeps it when the user switches family; "" derives it from the name and type."""
    picture_option: str | None = None
    """The option that takes its value from a reference picture (seedance's ``adaptive``
    ratio): a form given a picture by a card action switches to it."""

    def max_items_for(self, model: str | None) -> int | None:
        """The item limit for ``model``: its own when listed, else ``max_items``."""
        return self.max_items_by_model.get(model or "", self.max_items)


_IMAGE_PROMPT = Param(
    "prompt", "text", "What to picture: subject, style, composition, lighting.", True
)
_VIDEO_PROMPT = Param(
    "prompt", "text", "What to film: subject, action, camera movement, lighting.", True
)
_REF_IMAGE_HELP = "Image URLs or asset://id of Active assets."

PARAMS: dict[str, tuple[Param, ...]] = {
    "banana": (
        _IMAGE_PROMPT,
        Param(
            "resolution",
            "enum",
            "Output resolution; 2k/4k only on the pro models.",
            options=options(BananaResolution),
            default="1k",
        ),
        Param(
            "size",
            "enum",
            "Aspect ratio; omitted: the model's default ratio.",
            options=options(BananaSize),
            carry="ratio",
        ),
        Param("image_urls", "url_list", _REF_IMAGE_HELP, max_items=BANANA_MAX_REFS),
    ),
    "image2": (
        _IMAGE_PROMPT,
        Param(
            "quality",
            "enum",
            "Billing tier; gpt-image-2 only.",
            options=options(Image2Quality),
            default="low",
        ),
        Param(
            "ratio",
            "enum",
            "Aspect ratio; required when resolution is set.",
            options=options(Image2Ratio),
            default="1:1",
        ),
        Param(
            "resolution",
            "enum",
            "1k both models; 2k/4k gpt-image-2; 4k only wide/tall ratios.",
            options=options(Image2Resolution),
            default="1k",
        ),
        Param(
            "size",
            "size",
            f"Width x height; edges multiples of {IMAGE2_SIZE_MULTIPLE} up to "
            f"{IMAGE2_SIZE_MAX_EDGE}, {IMAGE2_SIZE_MIN_PIXELS:,} to {IMAGE2_SIZE_MAX_PIXELS:,} "
            "pixels in all.",
        ),
        Param(
            "image_urls",
            "url_list",
            _REF_IMAGE_HELP,
            max_items=max(IMAGE2_MAX_REFS.values()),
            max_items_by_model=IMAGE2_MAX_REFS,
        ),
    ),
    "sora": (
        _VIDEO_PROMPT,
        Param(
            "size",
            "enum",
            "Portrait (default) or landscape.",
            options=options(SoraSize),
            default="720x1280",
            exclusive_with="aspect_ratio",
        ),
        Param(
            "aspect_ratio",
            "enum",
            "Alternative to size.",
            options=options(SoraAspect),
            exclusive_with="size",
        ),
        Param(
            "duration", "enum", "Seconds.", options=options(SoraDuration), exclusive_with="seconds"
        ),
        Param(
            "seconds",
            "enum",
            "Alternative to duration.",
            options=options(SoraDuration),
            exclusive_with="duration",
        ),
        Param(
            "input_reference",
            "url_list",
            "One reference image matching the orientation.",
            max_items=SORA_MAX_REFS,
            exclusive_with="image_urls",
        ),
        Param(
            "image_urls",
            "url_list",
            "Alternative to input_reference.",
            max_items=SORA_MAX_REFS,
            exclusive_with="input_reference",
        ),
    ),
    "seedance": (
        Param("content", "content", "One text object plus the scenario's images.", True),
        Param(
            "ratio",
            "enum",
            "Aspect ratio; adaptive follows the image.",
            options=options(SeedanceRatio),
            picture_option="adaptive",
        ),
        Param(
            "duration",
            "int",
            f"Seconds {SEEDANCE_DURATION[0]}-{SEEDANCE_DURATION[1]}, or "
            f"{SEEDANCE_AUTO_DURATION} to let the model choose.",
            default=5,
            minimum=SEEDANCE_DURATION[0],
            maximum=SEEDANCE_DURATION[1],
            also=(SEEDANCE_AUTO_DURATION,),
        ),
        Param("generate_audio", "bool", "Generate a sound track.", default=True),
    ),
    "starvideos": (
        _VIDEO_PROMPT,
        Param(
            "duration",
            "int",
            "Seconds; ignored with a reference video.",
            default=STARVIDEOS_DURATION[0],
            minimum=STARVIDEOS_DURATION[0],
            maximum=STARVIDEOS_DURATION[1],
        ),
        Param(
            "ratio",
            "enum",
            "Ignored with a reference video.",
            options=options(StarvideosRatio),
            default="9:16",
        ),
        Param("referenceImages", "url_list", _REF_IMAGE_HELP, max_items=STARVIDEOS_MAX_REFS),
        Param("first_image", "url", "First frame; needs last_image."),
        Param("last_image", "url", "Last frame; needs first_image."),
        Param(
            "referenceVideos",
            "url_list",
            "One video of 3-10 s; output follows it.",
            max_items=STARVIDEOS_MAX_VIDEOS,
        ),
    ),
}


def generic_params(duration_range: tuple[int, int] | None) -> tuple[Param, ...]:
    """Parameters shown for a partly documented family: prompt, duration, references.

    Args:
        duration_range: The family's seconds (low, high), or None for no duration.

    Returns:
        The parameters, in form order.
    """
    params: list[Param] = [Param("prompt", "text", "What to generate.")]
    if duration_range is not None:
        low, high = duration_range
        params.append(
            Param("duration", "int", f"Seconds, {low} to {high}.", minimum=low, maximum=high)
        )
    params += [
        Param("first_image", "url", "First frame (URL or asset://id)."),
        Param("last_image", "url", "Last frame (URL or asset://id)."),
        Param("referenceImages", "url_list", _REF_IMAGE_HELP),
        Param("referenceVideos", "url_list", "Video URLs or asset://id."),
        Param("referenceAudios", "url_list", "Audio URLs or asset://id."),
    ]
    return tuple(params)
