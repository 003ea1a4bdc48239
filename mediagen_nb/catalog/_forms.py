"""How each family's form maps to and from its request body, declared as data.

A family without an entry in ``FORMS`` gets one control per parameter of its table, each
written to and read from the body field of the same name; an entry lists ``FormControl``s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mediagen_nb.catalog._labels import (
    ORIENTATIONS,
    SEEDANCE_SCENARIO_LABELS,
    STARVIDEOS_MODE_LABELS,
)
from mediagen_nb.catalog._params import (
    PARAMS,
    SEEDANCE_AUTO_DURATION,
    SEEDANCE_DURATION,
    SEEDANCE_MAX_REFERENCE_IMAGES,
    SORA_MAX_REFS,
    STARVIDEOS_MODE_FIELDS,
    Param,
    SeedanceScenario,
    SoraDuration,
    StarvideosMode,
    options,
)

Send = Literal["field", "choice", "item", "selector"]
VALUE = "{value}"
"""Where a control's value goes in an ``item`` template."""


@dataclass(frozen=True)
class FormControl:
    """One control of a family's form and how its value maps to and from the request body.

    The panels turn these into the form they draw and into bodies, with no family ids in
    their code: adding a family with the same shapes is a change in the catalog only.

    Attributes:
        param: What the control holds (type, options, default, limits, help; its name is the
            control's key); a name means that parameter of the family's table.
        send: Where the value goes. ``"field"``: the body field ``to``, read back from
            ``to`` or ``reads``. ``"choice"``: an option in the user's words standing for
            API values; the body gets ``table[option][to]``, and any field of ``to`` and
            ``reads`` holding a value of the table loads back as that option. ``"item"``:
            one item of the array ``to`` per value, built from the ``item`` template.
            ``"selector"``: not sent; its option decides which controls show and which
            must be filled.
        to: The body field (or array, for items) it writes; "" means the parameter's name.
        reads: More body fields read back into this control: exclusive alternatives that
            mean the same (``seconds`` for ``duration``).
        as_list: Send a single value as a one-item list.
        table: For a choice, each option's API values; ``table[option]["carry"]`` is what
            the option means to other families (an orientation carries as an aspect ratio).
        item: For items, the template of one array item (``VALUE`` marks where the value
            goes); read back from the body's items that match it.
        item_optional: Keys of ``item`` a body's item may lack and still match.
        shows: For a selector, the controls each option shows.
        needs: For a selector, the controls each option requires; a loaded body selects
            the option that best explains the controls it fills (``best_option``).
        label: The label, when the parameter's own label does not fit.
        help: The help, when the parameter's own help does not fit.
        api: The API field(s) the tooltip names, when not just ``to``.
        option_labels: Labels of option values in this form ("" is "not set").
    """

    param: Param | str
    send: Send = "field"
    to: str = ""
    reads: tuple[str, ...] = ()
    as_list: bool = False
    table: Mapping[Any, Mapping[str, Any]] = field(default_factory=dict, compare=False)
    item: Mapping[str, Any] = field(default_factory=dict, compare=False)
    item_optional: tuple[str, ...] = ()
    shows: Mapping[Any, tuple[str, ...]] = field(default_factory=dict, compare=False)
    needs: Mapping[Any, tuple[str, ...]] = field(default_factory=dict, compare=False)
    label: str = ""
    help: str = ""
    api: str = ""
    option_labels: Mapping[Any, str] = field(default_factory=dict, compare=False)

    @property
    def name(self) -> str:
        """The control's key in the form's values."""
        return self.param if isinstance(self.param, str) else self.param.name


def best_option(selector: FormControl, filled: Iterable[str]) -> Any:
    """The selector option that best explains which controls a body fills.

    Ranked by how many of the option's ``needs`` are filled, then by how few are missing;
    among equals the later (more specific) option wins. An option with needs is a candidate
    only when one of them is filled, so an empty body selects the first option.

    Args:
        selector: A selector control (with ``shows`` and ``needs``).
        filled: The names of the controls a body fills.

    Returns:
        The option to select.
    """
    present = set(filled)
    ranked: list[tuple[int, int, int, Any]] = []
    for index, option in enumerate(selector.shows):
        needs = set(selector.needs.get(option, ()))
        hits = len(needs & present)
        if needs and not hits:
            continue
        ranked.append((hits, -len(needs - present), index if hits else -index, option))
    return max(ranked)[3] if ranked else next(iter(selector.shows), "")


def _image_item(role: str) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": VALUE}, "role": role}


_SORA = (
    FormControl("prompt"),
    FormControl(
        Param(
            "orientation",
            "enum",
            "Portrait is 720x1280, landscape 1280x720.",
            options=tuple(ORIENTATIONS),
            default="portrait",
            carry="ratio",
        ),
        send="choice",
        to="size",
        reads=("aspect_ratio",),
        table=ORIENTATIONS,
        api="size (or aspect_ratio)",
        option_labels={k: k.capitalize() for k in ORIENTATIONS},
    ),
    FormControl(
        Param("length", "enum", "Seconds of video.", options=options(SoraDuration), carry="length"),
        to="duration",
        reads=("seconds",),
        api="duration (or seconds)",
        option_labels={"": "Default", **{v: f"{v} s" for v in options(SoraDuration)}},
    ),
    FormControl(
        Param(
            "reference", "url", "One image URL matching the orientation.", max_items=SORA_MAX_REFS
        ),
        to="input_reference",
        reads=("image_urls",),
        as_list=True,
        label="Reference image",
        api="input_reference (or image_urls)",
    ),
)

_SEEDANCE_SHOWS: dict[str, tuple[str, ...]] = {
    "text": (),
    "first_frame": ("first_frame",),
    "first_last_frame": ("first_frame", "last_frame"),
    "reference_images": ("reference_images",),
}
_SEEDANCE = (
    FormControl(
        Param("prompt", "text", "At most 500 Chinese characters or 1000 words.", required=True),
        send="item",
        to="content",
        item={"type": "text", "text": VALUE},
        api="content[0].text",
    ),
    FormControl(
        Param("scenario", "enum", "", options=options(SeedanceScenario), default="text"),
        send="selector",
        shows=_SEEDANCE_SHOWS,
        needs=_SEEDANCE_SHOWS,
        label="Start from",
        api="content (image roles)",
        option_labels=SEEDANCE_SCENARIO_LABELS,
    ),
    FormControl(
        Param("first_frame", "url", "", carry="first_frame"),
        send="item",
        to="content",
        item=_image_item("first_frame"),
        item_optional=("role",),
        api="content[].image_url (role first_frame)",
    ),
    FormControl(
        Param("last_frame", "url", "", carry="last_frame"),
        send="item",
        to="content",
        item=_image_item("last_frame"),
        api="content[].image_url (role last_frame)",
    ),
    FormControl(
        Param(
            "reference_images",
            "url_list",
            f"1 to {SEEDANCE_MAX_REFERENCE_IMAGES} images.",
            max_items=SEEDANCE_MAX_REFERENCE_IMAGES,
        ),
        send="item",
        to="content",
        item=_image_item("reference_image"),
        api="content[].image_url (role reference_image)",
    ),
    FormControl("ratio"),
    FormControl(
        "duration",
        label="Length (seconds)",
        help=f"{SEEDANCE_DURATION[0]} to {SEEDANCE_DURATION[1]} seconds, or "
        f"{SEEDANCE_AUTO_DURATION} to let the model choose.",
    ),
    FormControl("generate_audio"),
)

_STARVIDEOS = (
    FormControl("prompt"),
    FormControl(
        Param(
            "mode",
            "enum",
            "What the video is made from.",
            options=options(StarvideosMode),
            default="text",
        ),
        send="selector",
        shows=STARVIDEOS_MODE_FIELDS,
        needs={
            "text": (),
            "image_reference": ("referenceImages",),
            "first_last_frame": ("first_image", "last_image"),
            "video_reference": ("referenceVideos",),
            "image_video": ("referenceImages", "referenceVideos"),
        },
        label="Made from",
        api="(decides which fields are sent)",
        option_labels=STARVIDEOS_MODE_LABELS,
    ),
    *(FormControl(p.name) for p in PARAMS["starvideos"] if p.name != "prompt"),
)

FORMS: dict[str, tuple[FormControl, ...]] = {
    "sora": _SORA,
    "seedance": _SEEDANCE,
    "starvideos": _STARVIDEOS,
}
"""Form declarations of the families whose controls are not one per parameter."""
