"""Rules on the reference pictures themselves, checked with their real pixel size.

A URL tells nothing of its picture, so ``validate_request`` cannot apply these; the client
can when given a result, a file or bytes. Sora: the chosen orientation's exact size; seedance
1.5: 300-6000 px a side, width/height 0.4-2.5. Other families state no picture rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mediagen_nb.catalog._params import (
    SEEDANCE_IMAGE_RATIO,
    SEEDANCE_IMAGE_SIDE,
    SORA_ASPECT_SIZE,
    SORA_DEFAULT_SIZE,
    SORA_REFERENCE_PIXELS,
)
from mediagen_nb.types._problem import Problem

_ORIENTATION = {"1280x720": "landscape", "720x1280": "portrait"}


def sora_reference_size(body: Mapping[str, Any]) -> tuple[int, int]:
    """The picture size sora's reference must have for this body's orientation."""
    size = body.get("size")
    if not isinstance(size, str) or size not in SORA_REFERENCE_PIXELS:
        aspect = body.get("aspect_ratio")
        size = SORA_ASPECT_SIZE.get(aspect, SORA_DEFAULT_SIZE) if isinstance(aspect, str) else None
    return SORA_REFERENCE_PIXELS[size or SORA_DEFAULT_SIZE]


def _sora(field: str, size: tuple[int, int], body: Mapping[str, Any]) -> list[Problem]:
    want = sora_reference_size(body)
    if size == want:
        return []
    shown = f"{want[0]}x{want[1]}"
    return [
        Problem(
            field,
            f"sora needs a {shown} picture for {_ORIENTATION[shown]}; "
            f"this one is {size[0]}x{size[1]}",
        )
    ]


def _seedance(field: str, size: tuple[int, int]) -> list[Problem]:
    width, height = size
    low, high = SEEDANCE_IMAGE_SIDE
    problems = []
    if not (low <= width <= high and low <= height <= high):
        problems.append(
            Problem(
                field, f"seedance needs {low} to {high} px a side; this one is {width}x{height}"
            )
        )
    ratio = width / height if height else 0.0
    least, most = SEEDANCE_IMAGE_RATIO
    if not least <= ratio <= most:
        problems.append(
            Problem(
                field,
                f"seedance needs a width/height ratio of {least} to {most}; "
                f"this one is {width}x{height} ({ratio:.2f})",
            )
        )
    return problems


def picture_problems(
    family_id: str, field: str, size: tuple[int, int], body: Mapping[str, Any]
) -> list[Problem]:
    """What is wrong with a picture of ``size`` pixels in ``field`` of a ``family_id`` body.

    Args:
        family_id: The family the request is for.
        field: The JSON path of the reference (``input_reference[0]``, ``content[1]...``).
        size: The picture's width and height in pixels.
        body: The request body (sora's orientation comes from its ``size``/``aspect_ratio``).

    Returns:
        The problems, naming ``field``; empty when the picture fits.
    """
    name = field.split("[", 1)[0].split(".", 1)[0]
    if family_id == "sora" and name in ("input_reference", "image_urls"):
        return _sora(field, size, body)
    if family_id == "seedance" and name == "content":
        return _seedance(field, size)
    return []
