"""A generation form as data, derived from the catalog: each family's ``Control``s (key, type
the front end draws, label, help, API name, options, limits) and how each maps to and from
the body (the catalog's declaration, ``form_for``). ``carry`` marks what a control means
across families (prompt, ratio, references...), so work survives a switch of family.
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from mediagen_nb.catalog._families import REFERENCE_FIELDS, Family, Kind, families, family
from mediagen_nb.catalog._forms import FormControl
from mediagen_nb.catalog._labels import model_title, option_label, param_label
from mediagen_nb.catalog._params import Param
from mediagen_nb.catalog._registry import form_for, params_for, revision

ASSET_TYPE_FOR = {"referenceVideos": "Video", "referenceAudios": "Audio"}
"""Which kind of Active asset a reference field offers (Image for the rest)."""
REFERENCE_CARRY = {
    "first_image": "first_frame",
    "last_image": "last_frame",
    "referenceVideos": "ref_videos",
    "referenceAudios": "ref_audios",
}
"""What a reference field means across families ("refs" for the rest)."""
SEGMENTED_MAX = 4
"""A choice of at most this many options is a segmented control; more make a select."""
_BINDING = ("send", "to", "reads", "as_list", "table", "item", "item_optional", "shows", "needs")


@dataclass(frozen=True)
class Control:
    """One control of a form, as the front end draws it, and how it maps to the body."""

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
    show_when: tuple[str, tuple[Any, ...]] | None = None
    """``(key, values)``: shown only while ``values[key]`` is one of ``values``."""
    send: str = "field"
    """How the value reaches the body (``catalog.FormControl.send``); the rest of the
    binding (``to`` ... ``needs``) is the catalog's, and is not sent to the front end."""
    to: str = ""
    reads: tuple[str, ...] = ()
    as_list: bool = False
    table: dict[Any, Any] = field(default_factory=dict, hash=False, compare=False)
    item: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    item_optional: tuple[str, ...] = ()
    shows: dict[Any, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)
    needs: dict[Any, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)

    @property
    def fields(self) -> tuple[str, ...]:
        """Body fields this control writes or reads back."""
        return (self.to, *self.reads) if self.to else ()

    def to_json(self) -> dict[str, Any]:
        """The control as the front end receives it."""
        out = asdict(self)
        for name in _BINDING:
            out.pop(name)
        out["options"] = list(self.options)
        out["show_when"] = (
            None
            if self.show_when is None
            else {"key": self.show_when[0], "in": list(self.show_when[1])}
        )
        return out


def _options(param: Param, decl: FormControl) -> tuple[dict[str, Any], ...]:
    """The options; "not set" first. With a service default, "not set" is ``rare``: the
    front end shows it only while it is the value (a loaded request that did not send it).
    A choice or selector always has one of its options: no "not set"."""
    labels = decl.option_labels

    def entry(value: Any, label: str) -> dict[str, Any]:
        return {"value": value, "label": labels.get(value, label)}

    entries = [entry(v, option_label(v)) for v in param.options]
    if decl.send in ("choice", "selector"):
        return tuple(entries)
    if param.default is None:
        entries.insert(0, entry("", "Model default"))
    else:
        entries.insert(0, {**entry("", "Not sent"), "rare": True})
    return tuple(entries)


def _limits_help(param: Param) -> str:
    """The rule's range in words: ``4 to 15.``, ``2 to 12, or -1.``"""
    if param.type != "int" or param.minimum is None or param.maximum is None:
        return ""
    also = "".join(f", or {value}" for value in param.also)
    return f"{param.minimum} to {param.maximum}{also}."


GENERIC_EXTRA = {"resolution": "1080p"}
"""More parameters of a partly documented family: one the service may know, the form not."""


def extra_example(family_id: str) -> str:
    """The "More parameters" placeholder: a JSON object the family's validator accepts.

    A documented family's first parameter with a service default, set to that default (an
    override that changes nothing: no error on any model); else ``GENERIC_EXTRA``.
    """
    fam = family(family_id)
    if fam.documented:
        for param in params_for(fam.id):
            if param.default is not None and param.type in ("enum", "int"):
                return json.dumps({param.name: param.default})
    return json.dumps(GENERIC_EXTRA)


def _by_type(param: Param, decl: FormControl) -> dict[str, Any]:
    """The type-specific part of a control."""
    name = param.name
    if param.type == "text":  # free text in a box; the prompt is what carries across families
        if name != "prompt":
            return {"type": "text"}
        return {"type": "text", "carry": "prompt", "placeholder": "Describe what you want to see"}
    if param.type == "enum":
        kind = "segmented" if len(param.options) <= SEGMENTED_MAX else "select"
        default = param.default if param.default is not None else ""
        if decl.send in ("choice", "selector") and default == "" and param.options:
            default = param.options[0]  # always one of its options
        return {
            "type": kind,
            "options": _options(param, decl),
            "default": default,
            "carry": "ratio" if name == "ratio" else "",
        }
    if param.type == "int":
        return {
            "type": "number",
            "minimum": param.minimum,
            "maximum": param.maximum,
            "default": "" if param.default is None else param.default,
            "carry": "length" if name == "duration" else "",
            "placeholder": _limits_help(param),
        }
    if param.type == "bool":
        return {"type": "checkbox", "default": bool(param.default)}
    if param.type in ("url", "url_list"):
        allowed = name in REFERENCE_FIELDS
        return {
            "type": "ref" if param.type == "url" else "refs",
            "max_items": param.max_items,
            "max_items_by_model": dict(param.max_items_by_model),
            "assets": ASSET_TYPE_FOR.get(name, "Image") if allowed else "",
            "placeholder": "https://… or asset://id" if allowed else "https://…",
            "carry": REFERENCE_CARRY.get(name, "refs"),
            **(
                {}
                if allowed or "asset://" not in param.help
                else {"help": "Image URLs (http or https)."}
            ),
        }
    return {"type": "size", "placeholder": "e.g. 1536x1024"}  # exact pixels, free text


def _control(fam: Family, decl: FormControl) -> Control:
    """The control of one declared form entry."""
    param = decl.param
    if not isinstance(param, Param):  # form_for resolves names; a raw declaration does not
        raise TypeError(f"{fam.id}: form control {param!r} is not resolved (use form_for)")
    to = decl.to or param.name
    base: dict[str, Any] = {
        "key": param.name,
        "label": decl.label or param_label(param.name, fam.id),
        "api": decl.api or to,
        "help": param.help,
        "required": param.required,
        **_by_type(param, decl),
        "send": decl.send,
        "to": "" if decl.send == "selector" else to,
        "reads": decl.reads,
        "as_list": decl.as_list,
        "table": dict(decl.table),
        "item": dict(decl.item),
        "item_optional": decl.item_optional,
        "shows": dict(decl.shows),
        "needs": dict(decl.needs),
    }
    if decl.help:
        base["help"] = decl.help
    if param.carry:
        base["carry"] = param.carry
    return Control(**base)


def _with_show_when(controls: list[Control]) -> list[Control]:
    """Each control a selector shows gets ``show_when``: the selector's options showing it."""
    selectors = [s for s in controls if s.send == "selector"]
    out = []
    for c in controls:
        for selector in selectors:
            shown_in = tuple(o for o, keys in selector.shows.items() if c.key in keys)
            if shown_in:
                out.append(replace(c, show_when=(selector.key, shown_in)))
                break
        else:
            out.append(c)
    return out


@functools.cache
def _controls(family_id: str, _revision: int) -> tuple[Control, ...]:
    fam = family(family_id)
    return tuple(_with_show_when([_control(fam, decl) for decl in form_for(fam.id)]))


def controls_for(family_id: str) -> tuple[Control, ...]:
    """The controls of a family's form, in order (model and family pickers excluded)."""
    return _controls(family_id, revision())


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
        "extra_example": extra_example(fam.id),
    }


def form_spec(kind: Kind) -> dict[str, Any]:
    """The whole form of a panel: its families, in the catalog's order."""
    return _form_spec(kind, revision())


@functools.cache
def _form_spec(kind: Kind, _revision: int) -> dict[str, Any]:
    return {"kind": kind, "families": [family_spec(f) for f in families(kind)]}
