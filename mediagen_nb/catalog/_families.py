"""Image and video families: create paths, models, polling, timing and lifetimes.

Where the spec says "not shown" (image ETAs, most video ETAs, several URL lifetimes, the
lowest poll interval) the value here is our decision; the site's Design page lists them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["image", "video"]

REFERENCE_FIELDS: tuple[str, ...] = (
    "first_image",
    "last_image",
    "referenceImages",
    "referenceVideos",
    "referenceAudios",
)
"""Parameters that accept ``asset://{assetId}`` (spec: Using assets in generation)."""

HOUR = 3600.0
DAY = 24 * HOUR


@dataclass(frozen=True)
class Family:
    """One image or video model family of the service.

    Attributes:
        id: The family's id (``banana``, ``sora``...).
        kind: ``image`` or ``video``.
        title: Its readable name.
        create_path: Its create endpoint.
        models: The model names the spec lists (none for some partly documented families).
        documented: The spec shows its full parameter table.
        max_resolution: The largest output, in words.
        duration_range: Seconds (inclusive) for videos; None for images or a fixed length.
        poll_interval: Recommended seconds between result polls (low, high).
        eta_s: Estimated generation time in seconds (low, high), for a default request.
        url_lifetime_s: How long a result URL stays valid; None when the spec does not say.
        record_retention_s: How long the task record is kept; None when not shown.
        create_object: The expected ``object`` of the create answer.
        result_object: The expected ``object`` of the result answer, None when not shown.
        description: One line about what it makes.
        reference_fields: The fields that accept ``asset://`` references.
        asset_library: The asset library its references use, if any.
        model_eta_s: Per-model ETAs where the models differ.
        model_poll_interval: Per-model poll intervals where the models differ.
        statuses: The statuses its tasks go through.
        eta_per_8s: ``eta_s`` is for an 8 s video and scales with the duration.
    """

    id: str
    kind: Kind
    title: str
    create_path: str
    models: tuple[str, ...]
    documented: bool
    """True when the spec shows the family's full parameter table."""
    max_resolution: str
    duration_range: tuple[int, int] | None
    """Seconds (inclusive) for videos; None for images or a fixed duration."""
    poll_interval: tuple[float, float]
    """Recommended seconds between result polls (low, high)."""
    eta_s: tuple[float, float]
    """Estimated generation time in seconds (low, high), for a default request."""
    url_lifetime_s: float | None
    """How long a result URL stays valid, None when the spec does not say."""
    record_retention_s: float | None
    """How long the service keeps the task record, None when not shown."""
    create_object: str | None
    """Expected ``object`` of the create response (clients must not depend on it)."""
    result_object: str | None
    """Expected ``object`` of the result response, None when not shown."""
    description: str
    reference_fields: tuple[str, ...] = ()
    asset_library: str | None = None
    model_eta_s: dict[str, tuple[float, float]] = field(default_factory=dict)
    model_poll_interval: dict[str, tuple[float, float]] = field(default_factory=dict)
    statuses: tuple[str, ...] = ("queued", "processing", "completed", "failed")
    eta_per_8s: bool = False
    """True when ``eta_s`` is for an 8 s video and scales with the requested duration."""

    def min_poll_interval(self, model: str | None = None) -> float:
        """Shortest polite interval between result polls for ``model``, in seconds."""
        low, _high = self.model_poll_interval.get(model or "", self.poll_interval)
        return low

    def eta(self, model: str | None = None, duration: float | None = None) -> tuple[float, float]:
        """Estimated generation time (low, high) in seconds."""
        low, high = self.model_eta_s.get(model or "", self.eta_s)
        if self.eta_per_8s and duration:
            return (low * duration / 8.0, high * duration / 8.0)
        return (low, high)


_IMAGE_POLL = (2.0, 5.0)
_VIDEO_POLL = (30.0, 60.0)
_VIDEO_ETA = (120.0, 300.0)

_FAMILIES: tuple[Family, ...] = (
    Family(
        id="banana",
        kind="image",
        title="Gemini image (Nano Banana)",
        create_path="/v1/banana/images",
        models=(
            "nano-banana",
            "nano-banana-2",
            "nano-banana-pro",
            "nano-banana-2-stable",
            "nano-banana-pro-stable",
        ),
        documented=True,
        max_resolution="4K (pro models; others 1K)",
        duration_range=None,
        poll_interval=_IMAGE_POLL,
        eta_s=(10.0, 40.0),
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="nanobanana",
        result_object=None,
        description="Text-to-image, up to 6 reference images; 2k/4k only on the pro models.",
    ),
    Family(
        id="image2",
        kind="image",
        title="OpenAI image (GPT Image 2)",
        create_path="/v1/image2/images",
        models=("gpt-image-2", "gpt-image-2-r"),
        documented=True,
        max_resolution="4K (gpt-image-2), 1K (gpt-image-2-r)",
        duration_range=None,
        poll_interval=_IMAGE_POLL,
        eta_s=(15.0, 60.0),
        url_lifetime_s=DAY,
        record_retention_s=None,
        create_object="image",
        result_object="image.generation",
        description=(
            "Text-to-image with quality tiers or exact pixel size; up to 6 references "
            "(16 on gpt-image-2-r); image URL valid 24 h."
        ),
    ),
    Family(
        id="sora",
        kind="video",
        title="Sora 2",
        create_path="/v1/sora/videos",
        models=("neutralSora2Plus", "neutralSora2Pro"),
        documented=True,
        max_resolution="1280x720",
        duration_range=(4, 12),
        poll_interval=_VIDEO_POLL,
        eta_s=(120.0, 300.0),
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video.generation",
        result_object=None,
        description="Text-to-video 4, 8 or 12 s, portrait or landscape; 1 reference image.",
        eta_per_8s=True,
    ),
    Family(
        id="veo",
        kind="video",
        title="Veo",
        create_path="/v1/veo/videos",
        models=(),
        documented=False,
        max_resolution="4K",
        duration_range=None,
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object=None,
        description="Up to 4K, fixed duration. Parameters partly documented.",
        reference_fields=REFERENCE_FIELDS,
    ),
    Family(
        id="seedance",
        kind="video",
        title="Seedance 1.5",
        create_path="/v1/seedance/videos",
        models=("seedance_1_5_pro_480p", "seedance_1_5_pro_720p", "seedance_1_5_pro_1080p"),
        documented=True,
        max_resolution="1080p",
        duration_range=(2, 12),
        poll_interval=(30.0, 60.0),
        eta_s=(120.0, 300.0),
        url_lifetime_s=DAY,
        record_retention_s=DAY,
        create_object="video",
        result_object="video",
        description=(
            "Text or image-guided video 2-12 s (or auto), with audio; first frame, "
            "first+last frame or 1-4 reference images."
        ),
        model_eta_s={
            "seedance_1_5_pro_480p": (30.0, 120.0),
            "seedance_1_5_pro_720p": (120.0, 300.0),
            "seedance_1_5_pro_1080p": (180.0, 480.0),
        },
        model_poll_interval={"seedance_1_5_pro_480p": (10.0, 20.0)},
        statuses=("queued", "processing", "completed", "failed", "cancelled"),
    ),
    Family(
        id="seedance2",
        kind="video",
        title="Seedance 2.0",
        create_path="/v1/svcvideo2/videos",
        models=(),
        documented=False,
        max_resolution="varies",
        duration_range=(4, 15),
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object="video",
        description="4-15 s; faces and avatars via its asset library. Partly documented.",
        reference_fields=REFERENCE_FIELDS,
        asset_library="seedance2",
    ),
    Family(
        id="vidu",
        kind="video",
        title="Vidu Q3",
        create_path="/v1/vidu/videos",
        models=("viduq3-pro", "viduq3-turbo"),
        documented=False,
        max_resolution="1080p",
        duration_range=(1, 16),
        poll_interval=_VIDEO_POLL,
        eta_s=(180.0, 360.0),
        url_lifetime_s=DAY,
        record_retention_s=None,
        create_object="video",
        result_object="Video",
        description="1-16 s up to 1080p; reports tokens used. Partly documented.",
        reference_fields=REFERENCE_FIELDS,
        model_eta_s={"viduq3-turbo": (120.0, 240.0), "viduq3-pro": (180.0, 360.0)},
    ),
    Family(
        id="grok",
        kind="video",
        title="Grok Video",
        create_path="/v1/grok/videos",
        models=(),
        documented=False,
        max_resolution="720p",
        duration_range=(6, 30),
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object=None,
        description="6-30 s at 720p. Partly documented.",
        reference_fields=REFERENCE_FIELDS,
    ),
    Family(
        id="starvideos",
        kind="video",
        title="StarVideos",
        create_path="/v1/starvideos/videos",
        models=("starvideos_o3",),
        documented=True,
        max_resolution="varies",
        duration_range=(3, 15),
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object=None,
        description=(
            "3-15 s; text, up to 7 reference images, first/last frame, or a reference video."
        ),
        reference_fields=("first_image", "last_image", "referenceImages", "referenceVideos"),
    ),
    Family(
        id="videos",
        kind="video",
        title="Videos",
        create_path="/v1/videos/videos",
        models=(),
        documented=False,
        max_resolution="720p",
        duration_range=(4, 15),
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=None,
        record_retention_s=None,
        create_object="video",
        result_object=None,
        description="4-15 s at 720p. Partly documented.",
        reference_fields=REFERENCE_FIELDS,
    ),
    Family(
        id="sd2_manxue",
        kind="video",
        title="SD2 Manxue",
        create_path="/v1/sd2_manxue/videos",
        models=("sd2_manxue_1080p", "sd2_manxue_4k", "sd2_manxue_fast_720p"),
        documented=False,
        max_resolution="4K",
        duration_range=(4, 15),
        poll_interval=_VIDEO_POLL,
        eta_s=_VIDEO_ETA,
        url_lifetime_s=HOUR,
        record_retention_s=None,
        create_object="video",
        result_object="video",
        description=(
            "4-15 s up to 4K; reference audio up to 15 s in total; faces via its asset "
            "library. Partly documented."
        ),
        reference_fields=REFERENCE_FIELDS,
        asset_library="sd2",
    ),
)

FAMILIES: dict[str, Family] = {f.id: f for f in _FAMILIES}
"""Every image and video family by id, in the spec's order."""

_BY_MODEL: dict[str, Family] = {m: f for f in _FAMILIES for m in f.models}
_BY_PATH: dict[str, Family] = {f.create_path: f for f in _FAMILIES}


def family(family_id: str) -> Family:
    """The family with this id; KeyError naming the known ids otherwise.

    Args:
        family_id: The family's id (``banana``, ``sora``...).

    Returns:
        The family.

    Raises:
        KeyError: No such family; the message lists the known ids.
    """
    try:
        return FAMILIES[family_id]
    except KeyError:
        known = ", ".join(FAMILIES)
        raise KeyError(f"unknown family {family_id!r}; known families: {known}") from None


def family_for_model(model: str) -> Family | None:
    """The family a known model name belongs to, or None.

    Args:
        model: A model name.

    Returns:
        Its family, or None for a name the catalog does not list.
    """
    return _BY_MODEL.get(model)


def family_for_path(path: str) -> Family | None:
    """The family whose create endpoint is ``path`` (e.g. ``/v1/sora/videos``), or None.

    Args:
        path: A create endpoint's path.

    Returns:
        Its family, or None.
    """
    return _BY_PATH.get(path)


def families(kind: Kind | None = None) -> tuple[Family, ...]:
    """All families, or those of one kind, in the spec's order.

    Args:
        kind: ``image`` or ``video``; None: both.

    Returns:
        The families, in the spec's order.
    """
    return tuple(f for f in FAMILIES.values() if kind is None or f.kind == kind)


def add_family(fam: Family) -> None:
    """Add a family to the lookups (``register_family`` is the public door)."""
    taken = [m for m in fam.models if m in _BY_MODEL]
    if fam.id in FAMILIES or fam.create_path in _BY_PATH or taken:
        clash = fam.id if fam.id in FAMILIES else (taken or [fam.create_path])[0]
        raise ValueError(f"family {fam.id!r}: {clash!r} is already in the catalog")
    FAMILIES[fam.id] = fam
    _BY_PATH[fam.create_path] = fam
    _BY_MODEL.update(dict.fromkeys(fam.models, fam))


def remove_family(family_id: str) -> None:
    """Take a family added by ``add_family`` out of the lookups again."""
    fam = FAMILIES.pop(family_id)
    _BY_PATH.pop(fam.create_path, None)
    for model in fam.models:
        _BY_MODEL.pop(model, None)
