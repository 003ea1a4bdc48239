"""A generation form described as data, derived from the catalog, for the panels' front end.

``family_spec(family)`` lists the family's controls in the user's words: each ``Control``
has a key (its entry in the panel's ``values``), a type the front end knows how to draw
(``text``, ``select``, ``segmented``, ``number``, ``checkbox``, ``ref``, ``refs``, ``size``,
``json``), a label, help, the API name(s) it sends (tooltip and copy-as-code), options with
readable labels and limits, all from the same catalog numbers the validator uses.

Exclusive API pairs become one control: Sora's ``size``/``aspect_ratio`` is "Orientation:
Portrait / Landscape" (sent as ``size``), ``duration``/``seconds`` is "Length" (sent as
``duration``), ``input_reference``/``image_urls`` is "Reference image" (``input_reference``).
Seedance's ``content`` is a prompt, a "Start from" choice and the image slots it allows;
StarVideos' mode picks which of its fields are shown. ``carry`` marks what a control means
across families (prompt, ratio, references...), so the user's work survives a switch.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import Any

from mediagen_nb.catalog import (
    ORIENTATIONS,
    REFERENCE_FIELDS,
    SEEDANCE_SCENARIO_LABELS,
    STARVIDEOS_MODE_LABELS,
    Family,
    Kind,
    Param,
    families,
    family,
    model_title,
    option_label,
    param_label,
    params_for,
)
from mediagen_nb.catalog._params import (
    SEEDANCE_DURATION,
    SEEDANCE_MAX_REFERENCE_IMAGES,
    STARVIDEOS_MODE_FIELDS,
)

ASSET_TYPE_FOR = {"referenceVideos": "Video", "referenceAudios": "Audio"}
"""Which kind of Active asset a reference field offers (Image for the rest)."""
RATIO_KEYS = ("ratio", "size")
"""API names that hold an aspect ratio in some family (banana's ``size`` is a ratio)."""
SEEDANCE_SLOTS: dict[str, tuple[str, ...]] = {
    "first_frame": ("first_frame", "first_last_frame"),
    "last_frame": ("first_last_frame",),
    "reference_images": ("reference_images",),
}
"""Seedance image slots and the scenarios that show them."""
MODE_REQUIRED: dict[str, tuple[str, ...]] = {
    "text": (),
    "image_reference": ("referenceImages",),
    "first_last_frame": ("first_image", "last_image"),
    "video_reference": ("referenceVideos",),
    "image_video": ("referenceImages", "referenceVideos"),
}
"""What each StarVideos mode needs besides model and prompt."""


@dataclass(frozen=True)
class Control:
    """One control of a form, as the front end draws it."""

    key: str
    type: str
    label: str
    api: str
    """The API field(s) it sends, for the tooltip ("size (or aspect_ratio)")."""
    help: str = ""
    options: tuple[dict[str, Any], ...] = ()
    """``{"value", "label"}`` entries; ``""`` is "not set" (the service's default)."""
    default: Any = ""
    minimum: int | None = None
    maximum: int | None = None
    max_items: int | None = None
    max_items_by_model: dict[str, int] = field(default_factory=dict, hash=False, compare=False)
    placeholder: str = ""
    required: bool = False
    carry: str = ""
    """What the value means across families ("prompt", "ratio", "refs"...); "" = nothing."""
    assets: str = ""
    """Active asset type a reference control offers ("" = plain URLs only)."""
    show_when: tuple[str, tuple[str, ...]] | None = None
    """``(key, values)``: shown only while ``values[key]`` is one of ``values``."""

    def to_json(self) -> dict[str, Any]:
        """The control as the front end receives it."""
        out = asdict(self)
        out["options"] = list(self.options)
        out["show_when"] = (
            None
            if self.show_when is None
            else {"key": self.show_when[0], "in": list(self.show_when[1])}
        )
        return out


def _options(param: Param) -> tuple[dict[str, Any], ...]:
    """The options; "not set" first. With a service default, "not set" is ``rare``: the
    front end shows it only while it is the value (a loaded request that did not send it)."""
    entries: list[dict[str, Any]] = [{"value": v, "label": option_label(v)} for v in param.options]
    if param.default is None:
        entries.insert(0, {"value": "", "label": "Model default"})
    else:
        entries.insert(0, {"value": "", "label": "Not sent", "rare": True})
    return tuple(entries)


def _limits_help(param: Param) -> str:
    if param.type == "int" and param.minimum is not None and param.maximum is not None:
        return f"{param.minimum} to {param.maximum}."
    return ""


def _control(fam: Family, param: Param, **extra: Any) -> Control:
    """The control of one plain parameter."""
    name = param.name
    base: dict[str, Any] = {
        "key": name,
        "label": param_label(name, fam.id),
        "api": name,
        "help": param.help,
        "required": param.required,
    }
    if name == "prompt":
        base |= {"type": "text", "carry": "prompt", "placeholder": "Describe what you want to see"}
    elif param.type == "enum":
        kind = "segmented" if len(param.options) <= 4 and fam.id != "seedance" else "select"
        base |= {"type": kind, "options": _options(param), "default": param.default or ""}
        if name in RATIO_KEYS and (fam.id != "image2" or name == "ratio"):
            base["carry"] = "ratio"
    elif param.type == "int":
        base |= {
            "type": "number",
            "minimum": param.minimum,
            "maximum": param.maximum,
            "default": "" if param.default is None else param.default,
            "carry": "length" if name == "duration" else "",
            "placeholder": _limits_help(param),
        }
    elif param.type == "bool":
        base |= {"type": "checkbox", "default": bool(param.default)}
    elif param.type in ("url", "url_list"):
        allowed = name in REFERENCE_FIELDS
        if not allowed and "asset://" in param.help:
            base["help"] = "Image URLs (http or https)."
        base |= {
            "type": "ref" if param.type == "url" else "refs",
            "max_items": param.max_items,
            "max_items_by_model": dict(param.max_items_by_model),
            "assets": ASSET_TYPE_FOR.get(name, "Image") if allowed else "",
            "placeholder": "https://… or asset://id" if allowed else "https://…",
            "carry": {
                "first_image": "first_frame",
                "last_image": "last_frame",
                "referenceVideos": "ref_videos",
                "referenceAudios": "ref_audios",
            }.get(name, "refs"),
        }
    else:  # "size" (image2's exact pixels) and free text
        base |= {"type": "size", "placeholder": "e.g. 1536x1024"}
    base |= extra
    return Control(**base)


def _sora(fam: Family, params: dict[str, Param]) -> list[Control]:
    return [
        _control(fam, params["prompt"]),
        Control(
            key="orientation",
            type="segmented",
            label="Orientation",
            api="size (or aspect_ratio)",
            help="Portrait is 720x1280, landscape 1280x720.",
            options=tuple({"value": k, "label": k.capitalize()} for k in ORIENTATIONS),
            default="portrait",
            carry="ratio",
        ),
        Control(
            key="length",
            type="segmented",
            label="Length",
            api="duration (or seconds)",
            help="Seconds of video.",
            options=(
                {"value": "", "label": "Default"},
                *({"value": v, "label": f"{v} s"} for v in params["duration"].options),
            ),
            carry="length",
        ),
        Control(
            key="reference",
            type="ref",
            label="Reference image",
            api="input_reference (or image_urls)",
            help="One image URL matching the orientation.",
            max_items=params["input_reference"].max_items,
            placeholder="https://…",
            carry="refs",
        ),
    ]


def _seedance(fam: Family, params: dict[str, Param]) -> list[Control]:
    low, high = SEEDANCE_DURATION
    return [
        Control(
            key="prompt",
            type="text",
            label="Prompt",
            api="content[0].text",
            help="At most 500 Chinese characters or 1000 words.",
            placeholder="Describe what you want to see",
            required=True,
            carry="prompt",
        ),
        Control(
            key="scenario",
            type="segmented",
            label="Start from",
            api="content (image roles)",
            options=tuple({"value": k, "label": v} for k, v in SEEDANCE_SCENARIO_LABELS.items()),
            default="text",
        ),
        Control(
            key="first_frame",
            type="ref",
            label="First frame",
            api="content[].image_url (role first_frame)",
            placeholder="https://…",
            carry="first_frame",
            show_when=("scenario", SEEDANCE_SLOTS["first_frame"]),
        ),
        Control(
            key="last_frame",
            type="ref",
            label="Last frame",
            api="content[].image_url (role last_frame)",
            placeholder="https://…",
            carry="last_frame",
            show_when=("scenario", SEEDANCE_SLOTS["last_frame"]),
        ),
        Control(
            key="reference_images",
            type="refs",
            label="Reference images",
            api="content[].image_url (role reference_image)",
            help=f"1 to {SEEDANCE_MAX_REFERENCE_IMAGES} images.",
            max_items=SEEDANCE_MAX_REFERENCE_IMAGES,
            placeholder="https://…",
            carry="refs",
            show_when=("scenario", SEEDANCE_SLOTS["reference_images"]),
        ),
        _control(fam, params["ratio"]),
        _control(
            fam,
            params["duration"],
            label="Length (seconds)",
            help=f"{low} to {high} seconds, or -1 to let the model choose.",
        ),
        _control(fam, params["generate_audio"]),
    ]


def _starvideos(fam: Family, params: dict[str, Param]) -> list[Control]:
    mode = Control(
        key="mode",
        type="select",
        label="Made from",
        api="(decides which fields are sent)",
        help="What the video is made from.",
        options=tuple({"value": k, "label": v} for k, v in STARVIDEOS_MODE_LABELS.items()),
        default="text",
    )
    controls = [_control(fam, params["prompt"]), mode]
    for name, param in params.items():
        if name == "prompt":
            continue
        modes = tuple(m for m, shown in STARVIDEOS_MODE_FIELDS.items() if name in shown)
        controls.append(_control(fam, param, show_when=("mode", modes)))
    return controls


@functools.cache
def controls_for(family_id: str) -> tuple[Control, ...]:
    """The controls of a family's form, in order (model and family pickers excluded)."""
    fam = family(family_id)
    params = {p.name: p for p in params_for(fam.id)}
    if fam.id == "sora":
        return tuple(_sora(fam, params))
    if fam.id == "seedance":
        return tuple(_seedance(fam, params))
    if fam.id == "starvideos":
        return tuple(_starvideos(fam, params))
    out = []
    for name, param in params.items():
        reference = param.type in ("url", "url_list")
        if not fam.documented and reference and name not in fam.reference_fields:
            continue
        out.append(_control(fam, param))
    return tuple(out)


def describe_family(fam: Family) -> str:
    """One line in plain words: what the family makes and its limits."""
    return fam.description


def family_spec(fam: Family) -> dict[str, Any]:
    """Everything the front end needs to draw a family's form."""
    return {
        "id": fam.id,
        "title": fam.title,
        "description": describe_family(fam),
        "documented": fam.documented,
        "models": [{"value": m, "label": model_title(m), "title": m} for m in fam.models],
        "free_model": not fam.models,
        "controls": [c.to_json() for c in controls_for(fam.id)],
    }


@functools.cache
def form_spec(kind: Kind) -> dict[str, Any]:
    """The whole form of a panel: its families, in the catalog's order."""
    return {"kind": kind, "families": [family_spec(f) for f in families(kind)]}
