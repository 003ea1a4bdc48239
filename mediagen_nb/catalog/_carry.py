"""What a form's work means across families, and how it lands in another family's controls.

``carry`` moves a form's values to another family (the panels' family switch); ``meaning``
and ``carried_into`` are its two halves, which a sweep uses to fill each family's control.
"""

from __future__ import annotations

from typing import Any

from mediagen_nb.catalog._controls import Control, controls_for
from mediagen_nb.catalog._form_body import defaults, lines


def carry(
    old: dict[str, Any], new_family: str, remembered: dict[str, Any] | None
) -> dict[str, Any]:
    """Values for ``new_family``: its remembered ones (or defaults) plus what carries over."""
    values = dict(remembered) if remembered else defaults(new_family)
    old_controls = {c.carry: c for c in controls_for(str(old.get("family"))) if c.carry}
    for c in controls_for(new_family):
        source = old_controls.get(c.carry) if c.carry else None
        if source is None:
            continue
        value = carried_into(c, meaning(source, old.get(source.key)))
        if value not in ("", None, []) or c.carry == "prompt":
            values[c.key] = value
    return values


def meaning(source: Control, value: Any) -> Any:
    """``value`` of ``source`` in common terms: a choice stands for the entry of its table
    named after what it carries (orientation "landscape" -> ratio "16:9")."""
    if source.table:
        return source.table.get(value, {}).get(source.carry)
    return value


def carried_into(target: Control, value: Any) -> Any:
    """A common-terms ``value`` in the target's terms; None when the target has no such value.

    A choice takes the option whose table entry means ``value`` (ratio "16:9" -> orientation
    "landscape"); references become one or several lines (a single-reference control keeps
    the first); an option must be one of the target's options.
    """
    if target.table:
        return next((k for k, v in target.table.items() if v.get(target.carry) == value), None)
    if target.type in ("ref", "refs"):
        found = lines(value)
        return found if target.type == "refs" else (found[0] if found else None)
    if target.options and not any(o["value"] == value for o in target.options):
        return None
    return value


def carrier(family_id: str, what: str) -> Control | None:
    """The control of a family that holds what ``what`` means ("ratio", "length"...), or None."""
    return next((c for c in controls_for(family_id) if c.carry == what), None)
