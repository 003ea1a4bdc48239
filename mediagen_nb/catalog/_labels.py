"""Human words for the catalog: model titles, parameter labels and option labels.

Forms show these; the API names stay in tooltips and in copy-as-code. A model without a
title here is shown by its API name; a parameter without a label by a readable form of its
name (``referenceImages`` -> "Reference images").
"""

from __future__ import annotations

import re

MODEL_TITLES: dict[str, str] = {
    "nano-banana": "Nano Banana",
    "nano-banana-2": "Nano Banana 2",
    "nano-banana-pro": "Nano Banana Pro",
    "nano-banana-2-stable": "Nano Banana 2 (stable)",
    "nano-banana-pro-stable": "Nano Banana Pro (stable)",
    "gpt-image-2": "GPT Image 2",
    "gpt-image-2-r": "GPT Image 2 R (1K, more references)",
    "neutralSora2Plus": "Sora 2 Plus",
    "neutralSora2Pro": "Sora 2 Pro",
    "seedance_1_5_pro_480p": "Seedance 1.5 Pro, 480p",
    "seedance_1_5_pro_720p": "Seedance 1.5 Pro, 720p",
    "seedance_1_5_pro_1080p": "Seedance 1.5 Pro, 1080p",
    "viduq3-pro": "Vidu Q3 Pro",
    "viduq3-turbo": "Vidu Q3 Turbo",
    "starvideos_o3": "StarVideos O3",
    "sd2_manxue_1080p": "SD2 Manxue, 1080p",
    "sd2_manxue_4k": "SD2 Manxue, 4K",
    "sd2_manxue_fast_720p": "SD2 Manxue Fast, 720p",
}
"""Readable, distinct titles of the known model names."""

PARAM_LABELS: dict[str, str] = {
    "prompt": "Prompt",
    "resolution": "Resolution",
    "ratio": "Aspect ratio",
    "quality": "Quality",
    "image_urls": "Reference images",
    "referenceImages": "Reference images",
    "referenceVideos": "Reference video",
    "referenceAudios": "Reference audio",
    "first_image": "First frame",
    "last_image": "Last frame",
    "duration": "Length (seconds)",
    "generate_audio": "Sound",
    "content": "Prompt and images",
}
"""Labels of API parameters shared by several families."""

FAMILY_PARAM_LABELS: dict[tuple[str, str], str] = {
    ("banana", "size"): "Aspect ratio",
    ("image2", "size"): "Exact size (px)",
}
"""Labels that depend on the family (``size`` means a ratio on banana, pixels on image2)."""

OPTION_LABELS: dict[str, str] = {
    "1k": "1K",
    "2k": "2K",
    "4k": "4K",
    "low": "Low",
    "medium": "Medium",
    "high": "High",
    "adaptive": "Adaptive (follows the image)",
}
"""Readable labels of enum values (values not listed are shown as they are)."""

ORIENTATIONS: dict[str, dict[str, str]] = {
    "portrait": {"size": "720x1280", "aspect_ratio": "9:16", "ratio": "9:16"},
    "landscape": {"size": "1280x720", "aspect_ratio": "16:9", "ratio": "16:9"},
}
"""Sora's orientation in the user's terms, and the API value of each exclusive field."""

SEEDANCE_SCENARIO_LABELS: dict[str, str] = {
    "text": "Text only",
    "first_frame": "First frame",
    "first_last_frame": "First + last frame",
    "reference_images": "Reference images",
}
STARVIDEOS_MODE_LABELS: dict[str, str] = {
    "text": "Text only",
    "image_reference": "Reference images (1-7)",
    "first_last_frame": "First and last frame",
    "video_reference": "Reference video",
    "image_video": "Images (1-4) + a video",
}


def model_title(model: str) -> str:
    """The readable title of a model name (the name itself when unknown).

    Args:
        model: A model name.

    Returns:
        Its title.
    """
    return MODEL_TITLES.get(model, model)


def param_label(name: str, family_id: str | None = None) -> str:
    """The readable label of an API parameter name.

    Args:
        name: The parameter's API name (``referenceImages``...).
        family_id: The family, where it names the parameter its own way.

    Returns:
        The label a form shows.
    """
    if family_id is not None and (family_id, name) in FAMILY_PARAM_LABELS:
        return FAMILY_PARAM_LABELS[(family_id, name)]
    if name in PARAM_LABELS:
        return PARAM_LABELS[name]
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").strip()
    return words[:1].upper() + words[1:].lower()


def option_label(value: object) -> str:
    """The readable label of an enum value.

    Args:
        value: The value as the API spells it.

    Returns:
        The label a dropdown shows.
    """
    return OPTION_LABELS.get(str(value), str(value))
