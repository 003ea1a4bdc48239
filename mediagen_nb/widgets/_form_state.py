"""The form's values, checked: problems in the user's words, offered options, carried work.

``check`` names each problem as the user sees the field, ``offered`` narrows each option list
to the options that yield no problem, ``carry`` moves the work to another family."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mediagen_nb.catalog import family
from mediagen_nb.catalog._carry import carry
from mediagen_nb.catalog._controls import Control, controls_for
from mediagen_nb.catalog._form_body import (
    EXTRA_KEY,
    defaults,
    from_body,
    lines,
    parse_extra,
    shown,
    to_body,
)
from mediagen_nb.types import validate_request
from mediagen_nb.types._problem import errors_only

__all__ = [
    "EXTRA_KEY",
    "FormProblem",
    "carry",
    "check",
    "defaults",
    "from_body",
    "hint",
    "label_of",
    "normalize",
    "offered",
    "shown",
    "to_body",
]

_INDEX = re.compile(r"^([A-Za-z_]+)\[(\d+)\](.*)$")
_EMPTY_RULES = ("must not be empty", "is required")


@dataclass(frozen=True)
class FormProblem:
    """A problem of the form, named in the user's words."""

    key: str
    """The control it belongs to (``model``, ``extra`` or a control key)."""
    message: str
    """Label and rule, e.g. "Prompt: must not be empty"."""
    error: bool = True
    empty: bool = False
    """True when the rule says the field is missing (the neutral hint's case)."""
    label: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "message": self.message, "error": self.error}


def _owner(family_id: str, field_path: str, item_keys: list[str]) -> tuple[str, str]:
    """(control key, rule prefix) of a problem's JSON path."""
    match = _INDEX.match(field_path)
    top = match.group(1) if match else field_path.split(".", maxsplit=1)[0]
    controls = controls_for(family_id)
    items = [c for c in controls if c.send == "item" and c.to == top]
    if items:
        index = int(match.group(2)) if match else len(item_keys)
        key = item_keys[index] if index < len(item_keys) else _array_owner(controls, items)
        refs = next((c for c in items if c.key == key and c.type == "refs"), None)
        return key, "" if refs is None else f"item {item_keys[:index].count(key) + 1} "
    for c in controls:
        if top in (c.key, *c.fields):
            prefix = f"item {int(match.group(2)) + 1} " if match and c.type == "refs" else ""
            return c.key, prefix
    if top == "model":
        return "model", ""
    return EXTRA_KEY, ""


def _array_owner(controls: tuple[Control, ...], items: list[Control]) -> str:
    """Who answers for a whole array: the selector that shows its items, else its first."""
    keys = {c.key for c in items}
    for c in controls:
        if c.send == "selector" and any(keys & set(shown) for shown in c.shows.values()):
            return c.key
    return items[0].key


def label_of(family_id: str, key: str) -> str:
    """The label the user sees for a control key."""
    if key == "model":
        return "Model"
    if key == EXTRA_KEY:
        return "More parameters"
    return next((c.label for c in controls_for(family_id) if c.key == key), key)


def check(family_id: str, values: dict[str, Any]) -> list[FormProblem]:
    """Every problem of the form's request, errors first, in the user's words."""
    out = _validator_problems(family_id, values)
    out += _unfilled(family_id, values, {p.key for p in out if p.error})
    out += _needed(family_id, values)
    seen: set[str] = set()
    unique: list[FormProblem] = []
    for problem in sorted(out, key=lambda item: not item.error):
        if problem.message not in seen:
            seen.add(problem.message)
            unique.append(problem)
    return unique


def _validator_problems(family_id: str, values: dict[str, Any]) -> list[FormProblem]:
    """The validator's problems of the body, each given to the control the user sees."""
    body, item_keys = to_body(family_id, values)
    extras, broken = parse_extra(values)
    label = label_of(family_id, EXTRA_KEY)
    out = [FormProblem(EXTRA_KEY, f"{label}: {broken}", label=label)] if broken else []
    for p in validate_request(family(family_id).create_path, body):
        key, prefix = _owner(family_id, p.field, item_keys)
        if p.field.split("[")[0].split(".")[0] in extras:
            key = EXTRA_KEY
        label = label_of(family_id, key)
        empty = p.rule in _EMPTY_RULES
        if key == EXTRA_KEY:
            rule = f"{p.field}: {p.rule}"
        elif p.is_error and values.get(key) in ("", None, []) and key not in ("prompt", "model"):
            rule, empty = "is required", True  # an empty slot, not a malformed URL
        else:
            rule = prefix + p.rule
        out.append(FormProblem(key, f"{label}: {rule}", p.is_error, empty, label))
    return out


def _needed(family_id: str, values: dict[str, Any]) -> list[FormProblem]:
    """What the chosen option of each shown selector needs and is still empty."""
    out = []
    for c in controls_for(family_id):
        if c.send != "selector" or not shown(c, values):
            continue
        for key in c.needs.get(values.get(c.key) or c.default, ()):
            if not lines(values.get(key)):
                label = label_of(family_id, key)
                out.append(FormProblem(key, f"{label}: is required", True, True, label))
    return out


def _unfilled(family_id: str, values: dict[str, Any], flagged: set[str]) -> list[FormProblem]:
    """Required controls left empty that the validator did not already flag (a body field
    the request model does not know, e.g. the prompt inside an array of a new family)."""
    out = []
    for c in controls_for(family_id):
        if (
            c.required
            and c.key not in flagged
            and shown(c, values)
            and not lines(values.get(c.key))
        ):
            out.append(FormProblem(c.key, f"{c.label}: must not be empty", True, True, c.label))
    return out


def hint(problems: list[FormProblem]) -> str:
    """The neutral line next to a disabled Generate: what is missing, or what to fix."""
    errors = [p for p in problems if p.error]
    if not errors:
        return ""
    first = errors[0]
    if first.empty:
        article = "a " if first.label in ("Prompt", "Model", "First frame", "Last frame") else ""
        name = "model name" if first.key == "model" else first.label.lower()
        return f"Add {article}{name} to generate"
    others = len({p.key for p in errors} - {first.key})
    more = f" (and {others} more field{'s' if others > 1 else ''})" if others else ""
    return f"Check {first.label.lower()} to generate{more}"


def offered(family_id: str, values: dict[str, Any]) -> dict[str, list[Any]]:
    """For each option control, the option values that yield no problem with the rest."""
    path = family(family_id).create_path
    out: dict[str, list[Any]] = {}
    for c in controls_for(family_id):
        if not c.options or c.send != "field" or not shown(c, values):
            continue
        base_values = {**values, c.key: ""}
        base_body = to_body(family_id, base_values)[0]
        known = {(p.field, p.rule) for p in errors_only(validate_request(path, base_body))}
        keep = []
        for option in c.options:
            trial = to_body(family_id, {**values, c.key: option["value"]})[0]
            bad = [
                p
                for p in validate_request(path, trial)
                if _owner(family_id, p.field, [])[0] == c.key
                or (p.is_error and (p.field, p.rule) not in known)
            ]
            if not bad:
                keep.append(option["value"])
        out[c.key] = [] if keep == [""] else keep  # only "not set" left: nothing to choose
    return out


def normalize(family_id: str, values: dict[str, Any]) -> dict[str, Any]:
    """Values whose option choices are all offered (falling back to the default/first)."""
    result = dict(values)
    for _ in range(3):
        changed = False
        for key, allowed in offered(family_id, result).items():
            current = result.get(key)
            if (current in allowed and current is not None) or (not allowed and current is None):
                continue
            control = next(c for c in controls_for(family_id) if c.key == key)
            if not allowed:  # no option is valid (quality on gpt-image-2-r): hidden, not sent
                result[key] = None  # and back to the default once offered again
            else:
                result[key] = control.default if control.default in allowed else allowed[0]
            changed = True
        if not changed:
            break
    return result
