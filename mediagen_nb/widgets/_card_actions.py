"""What a result card can become: Animate, Use as reference, Use as first/last frame, Continue
from last frame, Send to the asset library. Families come from the catalog's media slots (in a
class, only those with an allowed model), fit from the client's picture rules; no family is
named here. An action that fits none is disabled with the first reason ("needs a 720x1280
picture for portrait; this one is 1024x1024", "your class cannot make videos")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mediagen_nb.catalog import FAMILIES, params_for
from mediagen_nb.catalog._assets import ASSET_LIBRARIES
from mediagen_nb.catalog._slots import MediaSlot, SlotMedia, SlotRole, slots_for
from mediagen_nb.types._media_rules import picture_problems

ActionName = Literal["animate", "reference", "first_frame", "last_frame", "continue", "asset"]
LABELS: dict[str, str] = {
    "animate": "Animate",
    "reference": "Use as reference",
    "first_frame": "Use as first frame",
    "last_frame": "Use as last frame",
    "continue": "Continue from last frame",
    "asset": "Send to the asset library",
}
_PLAN: dict[str, dict[str, tuple[SlotRole, SlotMedia, bool]]] = {
    # card kind -> action -> (slot role, slot media, video families only)
    "image": {
        "animate": ("first_frame", "image", True),
        "reference": ("reference", "image", False),
        "first_frame": ("first_frame", "image", False),
        "last_frame": ("last_frame", "image", False),
    },
    "video": {
        "continue": ("first_frame", "image", True),
        "reference": ("reference", "video", False),
    },
}


@dataclass(frozen=True)
class Target:
    """One family (and slot) an action can put the result into."""

    slot: MediaSlot
    preset: dict[str, Any] = field(default_factory=dict)
    """Body values that make the picture fit (e.g. the orientation that matches it)."""
    reason: str = ""
    """Why the picture does not fit this family ("" when it does)."""

    @property
    def family(self) -> str:
        """The family id."""
        return self.slot.family

    def to_json(self) -> dict[str, Any]:
        """What a card's menu needs."""
        return {
            "family": self.family,
            "title": FAMILIES[self.family].title,
            "field": self.slot.label,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CardAction:
    """One action of a card, with the families it can go to."""

    name: str
    targets: tuple[Target, ...]
    reason: str = ""
    """Why the whole action is disabled ("" when some target fits)."""

    @property
    def label(self) -> str:
        """The button's words."""
        return LABELS[self.name]

    @property
    def enabled(self) -> bool:
        """True when some family takes the result as it is."""
        return not self.reason

    def usable(self) -> list[Target]:
        """The targets the result fits."""
        return [t for t in self.targets if not t.reason]

    def to_json(self) -> dict[str, Any]:
        """What the card's front end draws: label, enabled, reason, targets."""
        return {
            "action": self.name,
            "label": self.label,
            "enabled": self.enabled,
            "reason": self.reason,
            "targets": [t.to_json() for t in self.targets],
        }


def _defaults(family_id: str) -> dict[str, Any]:
    return {p.name: p.default for p in params_for(family_id) if p.default is not None}


def fit(slot: MediaSlot, size: tuple[int, int] | None) -> tuple[dict[str, Any], str]:
    """Body values that let a picture of ``size`` go into ``slot``, or the reason it cannot.

    The family's defaults are tried first, then each option of its choice parameters (the
    orientation, for one), so a landscape picture finds the landscape setting.
    """
    if size is None or slot.media != "image":
        return {}, ""
    base = _defaults(slot.family)
    presets: list[dict[str, Any]] = [{}]
    presets += [{p.name: o} for p in params_for(slot.family) if p.type == "enum" for o in p.options]
    first_reason = ""
    for preset in presets:
        body = {k: v for k, v in base.items() if k not in _exclusive(slot.family, preset)}
        problems = picture_problems(slot.family, slot.path, size, {**body, **preset})
        if not problems:
            return preset, ""
        first_reason = first_reason or problems[0].rule
    return {}, first_reason


def _exclusive(family_id: str, preset: dict[str, Any]) -> set[str]:
    """Defaults a preset replaces (a parameter exclusive with one it sets)."""
    return {
        p.exclusive_with for p in params_for(family_id) if p.name in preset and p.exclusive_with
    }


def card_actions(
    kind: str, size: tuple[int, int] | None, models: frozenset[str] | None = None
) -> list[CardAction]:
    """The actions of a finished image or video card whose picture (or frame) is ``size``.

    Args:
        kind: ``image`` or ``video`` (the card's).
        size: The picture's pixels (a video's frame size), None when unknown.
        models: The models a class allows (None: every model); a family with none of them
            is not offered.

    Returns:
        The card's actions in menu order, each with its targets and its reason if disabled.
    """
    actions: list[CardAction] = []
    for name, (role, media, video_only) in _PLAN.get(kind, {}).items():
        targets = []
        barred = False
        for slot in _documented_first(slots_for(role, media)):
            if video_only and FAMILIES[slot.family].kind != "video":
                continue
            if not class_allows(slot.family, models):
                barred = True
                continue
            preset, reason = fit(slot, size)
            targets.append(Target(slot, preset, reason))
        reason = "" if any(not t.reason for t in targets) else _why(name, targets, barred)
        actions.append(CardAction(name, tuple(targets), reason))
    if kind == "image":
        actions.append(_asset_action(models))
    return actions


def class_allows(family_id: str, models: frozenset[str] | None) -> bool:
    """Whether a class allowing ``models`` (None: every model) can use the family at all."""
    return models is None or any(m in models for m in FAMILIES[family_id].models)


_CLASS_CANNOT: dict[str, str] = {
    "animate": "your class cannot make videos",
    "continue": "your class cannot make videos",
    "reference": "your class has no model that takes a reference",
    "first_frame": "your class has no model that starts from a picture",
    "last_frame": "your class has no model that ends on a picture",
}


def _documented_first(slots: tuple[MediaSlot, ...]) -> list[MediaSlot]:
    """Families whose parameters the spec shows come first (catalog order otherwise): the
    default target should be one whose form needs no guessed model name."""
    return sorted(slots, key=lambda s: not FAMILIES[s.family].documented)


def _why(name: str, targets: list[Target], barred: bool = False) -> str:
    if not targets:
        if barred:  # families would take it, but the class allows none of them
            return _CLASS_CANNOT[name]
        return f"no family takes this for {LABELS[name].lower()}"
    return targets[0].reason


def _asset_action(models: frozenset[str] | None = None) -> CardAction:
    """Send to the asset library: for faces, which families with a library require."""
    targets = []
    barred = False
    for library in ASSET_LIBRARIES.values():
        slots = [s for s in slots_for("reference", "image") if s.family == library.family]
        if slots and not class_allows(library.family, models):
            barred = True
        elif slots:
            targets.append(Target(slots[0]))
    reason = "" if targets else "no family has an asset library"
    if barred and not targets:
        reason = "your class has no model that uses the asset library"
    return CardAction("asset", tuple(targets), reason)
