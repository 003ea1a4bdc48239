"""Request models of the video families with every rule of the spec."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from mediagen_nb.catalog._families import REFERENCE_FIELDS
from mediagen_nb.catalog._families import family as family_by_id
from mediagen_nb.catalog._params import (
    SEEDANCE_AUTO_DURATION,
    SEEDANCE_DURATION,
    SEEDANCE_MAX_CJK_CHARS,
    SEEDANCE_MAX_REFERENCE_IMAGES,
    SEEDANCE_MAX_WORDS,
    SORA_MAX_REFS,
    STARVIDEOS_DURATION,
    STARVIDEOS_MAX_REFS,
    STARVIDEOS_MAX_REFS_WITH_VIDEO,
    STARVIDEOS_MAX_VIDEOS,
    SeedanceModel,
    SeedanceRatio,
    SoraAspect,
    SoraDuration,
    SoraModel,
    SoraSize,
    StarvideosModel,
    StarvideosRatio,
    options,
)
from mediagen_nb.types._problem import (
    Problem,
    RequestModel,
    RuleContext,
    check_model,
    check_prompt,
    check_reference,
    check_references,
)

_HAN = (
    "\u3400-\u4dbf"  # CJK Unified Ideographs Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0002a6df"  # Extension B
    "\U0002a700-\U0002ee5f"  # Extensions C, D, E, F and I
    "\U0002f800-\U0002fa1f"  # CJK Compatibility Ideographs Supplement
    "\U00030000-\U000323af"  # Extensions G and H
)
"""Every block of Chinese characters (Han ideographs) in Unicode 15.1."""
_CJK = re.compile(f"[{_HAN}]")
_WORD = re.compile(f"[^\\s{_HAN}]+")


def _given(value: Any) -> bool:
    """Set in the body: an empty list counts as absent."""
    return value is not None and value != []


def _exclusive(a: str, b: str, a_value: Any, b_value: Any) -> Iterator[Problem]:
    if _given(a_value) and _given(b_value):
        yield Problem(b, f"cannot be combined with {a}; they are mutually exclusive")


class SoraRequest(RequestModel):
    """``POST /v1/sora/videos``."""

    model: str
    prompt: str
    size: SoraSize | None = None
    aspect_ratio: SoraAspect | None = None
    duration: int | None = None
    seconds: int | None = None
    input_reference: list[str] | None = None
    image_urls: list[str] | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from check_model(self.model, options(SoraModel), "sora", ctx, family_id="sora")
        yield from check_prompt(self.prompt)
        yield from _exclusive("size", "aspect_ratio", self.size, self.aspect_ratio)
        yield from _exclusive("duration", "seconds", self.duration, self.seconds)
        allowed: tuple[int, ...] = options(SoraDuration)
        for name in ("duration", "seconds"):
            value = getattr(self, name)
            if value is not None and value not in allowed:
                yield Problem(name, "must be one of 4, 8 or 12 (seconds)")
        yield from _exclusive(
            "input_reference", "image_urls", self.input_reference, self.image_urls
        )
        for name in ("input_reference", "image_urls"):
            yield from check_references(
                getattr(self, name), name, max_items=SORA_MAX_REFS, allow_asset=False
            )
        yield from self.unknown_field_warnings("sora")


class TextContent(BaseModel):
    """Seedance text object."""

    model_config = ConfigDict(defer_build=True, strict=True, extra="allow")
    type: str
    text: str


class ImageUrl(BaseModel):
    """Seedance ``image_url`` object."""

    model_config = ConfigDict(defer_build=True, strict=True, extra="allow")
    url: str


def text_length_problems(text: str, field: str) -> Iterator[Problem]:
    """At most 500 Chinese characters or 1000 English words.

    Decisions (the spec does not define either count): a Chinese character is any Han
    ideograph of every Unicode block (basic, extensions A to I, both compatibility blocks;
    ``_HAN``), each counted once, whatever its plane; kana, hangul and CJK punctuation are
    not. A word is a run of anything else between white space. Both limits apply at once.
    """
    cjk = len(_CJK.findall(text))
    words = len(_WORD.findall(text))
    if cjk > SEEDANCE_MAX_CJK_CHARS:
        yield Problem(
            field, f"must be at most {SEEDANCE_MAX_CJK_CHARS} Chinese characters (got {cjk})"
        )
    if words > SEEDANCE_MAX_WORDS:
        yield Problem(field, f"must be at most {SEEDANCE_MAX_WORDS} English words (got {words})")


class SeedanceRequest(RequestModel):
    """``POST /v1/seedance/videos``: content objects, scenarios and their exclusivity."""

    model: str
    content: list[dict[str, Any]]
    ratio: SeedanceRatio | None = None
    duration: int | None = None
    generate_audio: bool | None = None

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from check_model(
            self.model, options(SeedanceModel), "seedance", ctx, family_id="seedance"
        )
        if self.duration is not None and self.duration != SEEDANCE_AUTO_DURATION:
            low, high = SEEDANCE_DURATION
            if not low <= self.duration <= high:
                yield Problem("duration", f"must be {low} to {high} seconds, or -1 for automatic")
        yield from self._content_rules()
        yield from self.unknown_field_warnings("seedance 1.5")

    def _content_rules(self) -> Iterator[Problem]:
        texts = 0
        roles: dict[str, list[int]] = {role: [] for role in SEEDANCE_ROLES}
        for index, item in enumerate(self.content):
            field = f"content[{index}]"
            kind = item.get("type")
            if kind == "text":
                texts += 1
                yield from _text_item(item, field)
            elif kind == "image_url":
                yield from _image_item(item, field, index, roles)
            else:
                yield Problem(f"{field}.type", "must be 'text' or 'image_url'")
        if texts == 0:
            yield Problem("content", "needs at least one text object")
        yield from _scenario_rules(roles)


SEEDANCE_ROLES = ("first_frame", "last_frame", "reference_image")
"""The roles of seedance image objects (``first_frame`` when omitted)."""


def _text_item(item: dict[str, Any], field: str) -> Iterator[Problem]:
    text = item.get("text")
    if not isinstance(text, str):
        yield Problem(f"{field}.text", "is required and must be a string")
        return
    yield from check_prompt(text, f"{field}.text")
    yield from text_length_problems(text, f"{field}.text")


def _image_item(
    item: dict[str, Any], field: str, index: int, roles: dict[str, list[int]]
) -> Iterator[Problem]:
    """An image object's URL and role; its index is added under its role."""
    image = item.get("image_url")
    if image is not None and not isinstance(image, dict):
        yield Problem(f"{field}.image_url", "must be an object with a 'url'")
    elif image is None or image.get("url") is None:
        yield Problem(f"{field}.image_url.url", "is required")
    else:
        yield from check_reference(image["url"], f"{field}.image_url.url", allow_asset=False)
    role = item.get("role")
    role = "first_frame" if role is None else role
    if not isinstance(role, str) or role not in roles:
        yield Problem(
            f"{field}.role", "must be one of 'first_frame', 'last_frame', 'reference_image'"
        )
    else:
        roles[role].append(index)


def _scenario_rules(roles: dict[str, list[int]]) -> Iterator[Problem]:
    """The image scenarios are exclusive: one first frame, a last frame only after it, refs."""
    first, last, refs = roles["first_frame"], roles["last_frame"], roles["reference_image"]
    if len(first) > 1:
        yield Problem(f"content[{first[1]}].role", "only one first_frame image is allowed")
    if len(last) > 1:
        yield Problem(f"content[{last[1]}].role", "only one last_frame image is allowed")
    if last and not first:
        yield Problem(f"content[{last[0]}].role", "a last_frame image needs a first_frame image")
    if refs and (first or last):
        yield Problem(
            f"content[{refs[0]}].role",
            "reference_image cannot be mixed with first_frame/last_frame images "
            "(the scenarios are mutually exclusive)",
        )
    if len(refs) > SEEDANCE_MAX_REFERENCE_IMAGES:
        yield Problem(
            f"content[{refs[SEEDANCE_MAX_REFERENCE_IMAGES]}].role",
            f"at most {SEEDANCE_MAX_REFERENCE_IMAGES} reference_image images are allowed",
        )


class StarvideosRequest(RequestModel):
    """``POST /v1/starvideos/videos``: the five modes and their combinations.

    Decision: the 3 to 10 s length of a reference video is not checked here. Only the media
    tells it (a URL fragment such as ``#t=`` is never sent to a server), so it is a task
    failure naming ``referenceVideos`` (the emulator decides it from its URL conventions).
    """

    model: str
    prompt: str
    duration: int | None = None
    ratio: StarvideosRatio | None = None
    referenceImages: list[str] | None = None  # noqa: N815 - the service's field name
    first_image: str | None = None
    last_image: str | None = None
    referenceVideos: list[str] | None = None  # noqa: N815 - the service's field name

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        yield from check_model(
            self.model, options(StarvideosModel), "starvideos", ctx, family_id="starvideos"
        )
        yield from check_prompt(self.prompt)
        low, high = STARVIDEOS_DURATION
        if self.duration is not None and not low <= self.duration <= high:
            yield Problem("duration", f"must be {low} to {high} seconds")
        videos = self.referenceVideos
        max_refs = STARVIDEOS_MAX_REFS_WITH_VIDEO if videos else STARVIDEOS_MAX_REFS
        reason = "together with referenceVideos" if videos else ""
        yield from check_references(
            self.referenceImages, "referenceImages", max_items=max_refs, limit_reason=reason
        )
        yield from check_references(videos, "referenceVideos", max_items=STARVIDEOS_MAX_VIDEOS)
        if self.first_image is not None and self.last_image is None:
            yield Problem("last_image", "is required when first_image is set")
        if self.last_image is not None and self.first_image is None:
            yield Problem("first_image", "is required when last_image is set")
        for name in ("first_image", "last_image"):
            value = getattr(self, name)
            if value is not None:
                yield from check_reference(value, name)
                if _given(self.referenceImages) or _given(videos):
                    yield Problem(
                        name, "cannot be combined with referenceImages or referenceVideos"
                    )
        if videos:
            for name in ("duration", "ratio"):
                if getattr(self, name) is not None:
                    yield Problem(
                        name,
                        "is ignored when referenceVideos is used (taken from the video)",
                        "warning",
                    )
        yield from self.unknown_field_warnings("starvideos")


class GenericVideoRequest(RequestModel):
    """A create request of a partly documented video family; unknown parameters pass through."""

    _warn_unknown_fields = False

    model: str
    prompt: str | None = None
    duration: int | None = None
    first_image: str | None = None
    last_image: str | None = None
    referenceImages: list[str] | None = None  # noqa: N815 - the service's field name
    referenceVideos: list[str] | None = None  # noqa: N815 - the service's field name
    referenceAudios: list[str] | None = None  # noqa: N815 - the service's field name

    def rules(self, ctx: RuleContext) -> Iterator[Problem]:
        if ctx.family_id is None:
            return  # constructed directly: the family (and so its rules) is unknown
        family = family_by_id(ctx.family_id)
        yield from check_model(
            self.model,
            family.models,
            family.title,
            ctx,
            family_id=family.id,
            partly_documented=not family.documented,
        )
        if self.prompt is not None:
            yield from check_prompt(self.prompt)
        if self.duration is not None:
            if family.duration_range is None:
                yield Problem(
                    "duration", f"{family.title} has a fixed duration; it is ignored", "warning"
                )
            else:
                low, high = family.duration_range
                if not low <= self.duration <= high:
                    yield Problem("duration", f"must be {low} to {high} seconds for {family.title}")
        for name in REFERENCE_FIELDS:
            value = getattr(self, name)
            if value is None:
                continue
            if name not in family.reference_fields:
                yield Problem(name, f"is not accepted by {family.title}")
            elif isinstance(value, list):
                yield from check_references(value, name)
            else:
                yield from check_reference(value, name)
