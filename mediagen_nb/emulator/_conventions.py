"""Emulator conventions for failures it cannot really detect, so a class can show each one.

The spec lists conditions "reported as task failure" that need a real model or a real look at
the media; the emulator decides them from the request text instead. The table is on the
"Demo mode" page of the site (``docs/explore/demo-mode.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, Protocol
from urllib.parse import parse_qs, urlsplit

from mediagen_nb.catalog import Family
from mediagen_nb.catalog._params import SD2_MAX_AUDIO_SECONDS, STARVIDEOS_VIDEO_SECONDS

POLICY_TRIGGER: Final = "[policy]"
FAIL_TRIGGER: Final = "[fail]"
FACE_MARKERS: Final = ("face", "portrait")
DEFAULT_MEDIA_SECONDS: Final = 5.0
MAX_AUDIO_SECONDS: Final = SD2_MAX_AUDIO_SECONDS
"""sd2's limit on the total length of reference audio (spec: Limits)."""

POLICY_ERROR: Final = (
    "content policy violation: the request was blocked by the safety system "
    "(emulator trigger [policy])"
)
FAIL_ERROR: Final = "generation failed while processing (emulator trigger [fail])"
FACE_ERROR: Final = (
    "face or avatar reference images must be submitted via the asset library "
    "(use asset://{assetId})"
)
SORA_FACE_ERROR: Final = "real portrait photographs are not supported as reference images"

_TEXT_KEYS: Final = frozenset({"prompt", "text", "name", "model"})
_REF_PREFIXES: Final = ("http://", "https://", "asset://")
_NUMBER = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?", re.ASCII)


class _Medium(Protocol):
    url: str


class AssetLookup(Protocol):
    """What the conventions read of the asset store (``_assets.AssetStore`` is one).

    A protocol, so this module needs no store: the task store hands its asset store in.
    """

    def get(self, asset_id: str) -> _Medium | None:
        """The live asset with this id, or None."""
        ...

    def reference_problem(self, asset_id: str, now: float) -> str | None:
        """Why ``asset://{asset_id}`` may not be used now (None: usable)."""
        ...


@dataclass(frozen=True)
class Reference:
    """One reference input of a create body."""

    field: str
    """JSON path, e.g. ``referenceImages[0]`` or ``content[1].image_url.url``."""
    value: str

    @property
    def asset_id(self) -> str | None:
        """The id of an ``asset://`` reference, else None."""
        return self.value[len("asset://") :] if self.value.startswith("asset://") else None

    @property
    def is_audio(self) -> bool:
        """Whether the field carries audio (``referenceAudios`` and the like)."""
        return "audio" in self.field.lower()


@dataclass(frozen=True)
class Verdict:
    """What the conventions decide for an accepted create request."""

    immediate_error: str | None
    """Failure reported from the first poll on (None: none)."""
    late_error: str | None
    """Failure reported when processing ends (None: the task completes)."""
    asset_ids: tuple[str, ...]
    """Every asset the task references (deleting one fails the task while pending)."""
    video_seconds: float | None = None
    """Length of a starvideos reference video (None: no reference video)."""


def prompt_text(body: dict[str, Any]) -> str:
    """The prompt of a create body (seedance: its text content objects, joined)."""
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    parts = [
        item["text"]
        for item in body.get("content") or ()
        if isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("text"), str)
    ]
    return "\n".join(parts)


def references(body: Any, path: str = "", depth: int = 0) -> Iterator[Reference]:
    """Every URL or ``asset://`` string in the body, outside free-text fields."""
    if depth > 8:
        return
    if isinstance(body, dict):
        for key, value in body.items():
            if key in _TEXT_KEYS:
                continue
            yield from references(value, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(body, list):
        for index, value in enumerate(body):
            yield from references(value, f"{path}[{index}]", depth + 1)
    elif isinstance(body, str) and body.startswith(_REF_PREFIXES):
        yield Reference(path, body)


def media_seconds(url: str) -> float:
    """A medium's length from its URL (``#t=N``, ``#t=A,B``, ``?duration=N``; else 5 s)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return DEFAULT_MEDIA_SECONDS
    fragment = parse_qs(parts.fragment).get("t", [])
    if fragment:
        bounds = fragment[0].removeprefix("npt:").split(",")
        if len(bounds) == 1 and _NUMBER.fullmatch(bounds[0]):
            return float(bounds[0])
        if len(bounds) == 2 and all(_NUMBER.fullmatch(b) for b in bounds):
            return max(0.0, float(bounds[1]) - float(bounds[0]))
    query = parse_qs(parts.query).get("duration", [])
    if query and _NUMBER.fullmatch(query[0]):
        return float(query[0])
    return DEFAULT_MEDIA_SECONDS


def _looks_like_face(url: str) -> bool:
    try:
        path = urlsplit(url).path.lower()
    except ValueError:
        return False
    return any(marker in path for marker in FACE_MARKERS)


def _reference_video_seconds(
    family: Family, refs: list[Reference], assets: AssetLookup
) -> float | None:
    """A starvideos reference video's length (of its asset's URL for ``asset://``)."""
    if family.id != "starvideos":
        return None
    for ref in refs:
        if ref.field.startswith("referenceVideos["):
            asset = assets.get(ref.asset_id) if ref.asset_id else None
            return media_seconds(asset.url if asset else ref.value)
    return None


def judge(family: Family, body: dict[str, Any], assets: AssetLookup, now: float) -> Verdict:
    """Apply the conventions (the "Demo mode" page) to a body that passed validation."""
    prompt = prompt_text(body).lower()
    refs = list(references(body))
    asset_ids = tuple(dict.fromkeys(r.asset_id for r in refs if r.asset_id))
    late = FAIL_ERROR if FAIL_TRIGGER in prompt else None

    video_seconds = _reference_video_seconds(family, refs, assets)

    def verdict(error: str | None) -> Verdict:
        return Verdict(error, late, asset_ids, video_seconds)

    if POLICY_TRIGGER in prompt:
        return verdict(POLICY_ERROR)
    error = (
        _reference_problem(family, refs, assets, now)
        or _video_length_problem(video_seconds)
        or (_audio_problem(refs, assets) if family.id == "sd2_manxue" else None)
    )
    return verdict(error)


def _reference_problem(
    family: Family, refs: list[Reference], assets: AssetLookup, now: float
) -> str | None:
    """The first reference that cannot be used: an unusable asset, or a face sent by URL."""
    for ref in refs:
        if ref.asset_id is not None:
            problem = assets.reference_problem(ref.asset_id, now)
            if problem is not None:
                return f"{ref.field}: {problem}"
        elif family.kind == "video" and not ref.is_audio and _looks_like_face(ref.value):
            message = SORA_FACE_ERROR if family.id == "sora" else FACE_ERROR
            return f"{ref.field}: {message}"
    return None


def _video_length_problem(video_seconds: float | None) -> str | None:
    low, high = STARVIDEOS_VIDEO_SECONDS
    if video_seconds is None or low <= video_seconds <= high:
        return None
    return (
        f"referenceVideos[0]: the reference video is {video_seconds:g} s long; "
        f"starvideos takes a reference video of {low:g} to {high:g} s"
    )


def _audio_problem(refs: list[Reference], assets: AssetLookup) -> str | None:
    """sd2: the reference audio's total length over the limit."""
    total = 0.0
    for ref in refs:
        if ref.is_audio:
            asset = assets.get(ref.asset_id) if ref.asset_id else None
            total += media_seconds(asset.url if asset else ref.value)
    if total <= MAX_AUDIO_SECONDS:
        return None
    return (
        f"referenceAudios: reference audio totals {total:g} s, more than the "
        f"{MAX_AUDIO_SECONDS:g} s allowed"
    )
