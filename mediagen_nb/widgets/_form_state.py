"""The form's values, as the panel holds them: to a request body and back, and checked.

``values`` is a flat dict keyed by the controls of ``_form_spec`` plus ``family``, ``model``
and ``extra`` (a JSON object of more parameters, which override the fields). ``to_body``
builds the request; ``from_body`` fills values from a past request (History "open");
``check`` runs ``types.validate_request`` and names each problem the way the user sees the
field ("Reference images: item 2 must be an http(s) URL"); ``offered`` narrows each option
list to the options that yield no problem (2K/4K only on some models); ``carry`` moves the
prompt, ratio/orientation and references to another family where the target control means
the same. How a control maps to the body is the catalog's declaration (``Control.send``):
nothing here knows a family by its id.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mediagen_nb.catalog import VALUE, best_option, family
from mediagen_nb.types import errors_only, validate_request
from mediagen_nb.widgets._form_spec import Control, controls_for

EXTRA_KEY = "extra"
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


def defaults(family_id: str) -> dict[str, Any]:
    """Fresh values of a family's form."""
    fam = family(family_id)
    values: dict[str, Any] = {"family": fam.id, "model": fam.models[0] if fam.models else ""}
    for c in controls_for(fam.id):
        values[c.key] = [] if c.type == "refs" else c.default
    values[EXTRA_KEY] = ""
    return values


def shown(c: Control, values: dict[str, Any]) -> bool:
    """Whether a control is shown (and so sent) with these values."""
    if c.show_when is None:
        return True
    key, allowed = c.show_when
    return values.get(key) in allowed


def _lines(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.splitlines()
    return [str(v).strip() for v in value or [] if str(v).strip()]


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return int(value) if float(value).is_integer() else value
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        return text  # the validator names the field and the rule


def parse_extra(values: dict[str, Any]) -> tuple[dict[str, Any], list[FormProblem]]:
    """The "more parameters" JSON object, or a problem saying why it is not one."""
    text = str(values.get(EXTRA_KEY) or "").strip()
    if not text:
        return {}, []
    label = "More parameters"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        msg = f"{label}: is not valid JSON ({exc.msg}, line {exc.lineno})"
        return {}, [FormProblem(EXTRA_KEY, msg, label=label)]
    if not isinstance(value, dict):
        msg = f'{label}: must be a JSON object, e.g. {{"key": "value"}}'
        return {}, [FormProblem(EXTRA_KEY, msg, label=label)]
    return value, []


def _sendable(c: Control, value: Any) -> Any:
    """The body value of a field control; None when it is not sent."""
    if c.type == "checkbox":
        return bool(value)
    if c.type == "refs" or c.as_list:
        return _lines(value) or None
    if c.type == "number":
        return _number(value) if str(value if value is not None else "").strip() else None
    if c.type == "text":
        return str(value or "")
    if isinstance(value, str):
        if not value.strip():
            return None
        if any(isinstance(o["value"], int) and not isinstance(o["value"], bool) for o in c.options):
            return _number(value)
        return value.strip() if c.type in ("ref", "size") else value
    return value


def _item_values(c: Control, value: Any) -> list[str]:
    """The values an item control adds to its array: one per line, or always one."""
    if c.type == "refs":
        return _lines(value)
    return [str(value or "").strip() if c.type != "text" else str(value or "")]


def _fill(template: Any, value: str) -> Any:
    """An item template with ``VALUE`` replaced by ``value``."""
    if template == VALUE:
        return value
    if isinstance(template, dict):
        return {k: _fill(v, value) for k, v in template.items()}
    return template


def _match(template: Any, item: Any, optional: tuple[str, ...] = ()) -> tuple[bool, Any]:
    """Whether ``item`` fits ``template`` (keys in ``optional`` may be missing), and its value."""
    if template == VALUE:
        return True, item
    if not isinstance(template, dict):
        return template == item, None
    if not isinstance(item, dict):
        return False, None
    found: Any = None
    for key, expected in template.items():
        if key not in item:
            if key in optional:
                continue
            return False, None
        ok, value = _match(expected, item[key])
        if not ok:
            return False, None
        found = value if value is not None else found
    return True, found


def to_body(family_id: str, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The request body, and the control key of each array item, in the body's order."""
    body: dict[str, Any] = {"model": str(values.get("model") or "").strip()}
    item_keys: list[str] = []
    for c in controls_for(family_id):
        if not shown(c, values) or c.send == "selector":
            continue
        value = values.get(c.key)
        if c.send == "item":
            for one in _item_values(c, value):
                body.setdefault(c.to, []).append(_fill(c.item, one))
                item_keys.append(c.key)
        elif c.send == "choice":
            row = c.table.get(value)
            if row is not None:
                body[c.to] = row[c.to]
        else:
            sent = _sendable(c, value)
            if sent is not None:
                body[c.to] = sent
    body.update(parse_extra(values)[0])
    return body, item_keys


def _read_items(c: Control, body: dict[str, Any], values: dict[str, Any], used: set[str]) -> bool:
    """Fill an item control from the body's array; True when it got a value."""
    items = body.get(c.to)
    if c.to in body:
        used.add(c.to)
    if not isinstance(items, list):
        return False
    siblings = [s for s in controls_for(str(values["family"])) if s.send == "item" and s.to == c.to]
    found = []
    for item in items:
        owner = next((s for s in siblings if _match(s.item, item, s.item_optional)[0]), None)
        if owner is not None and owner.key == c.key:
            found.append(str(_match(c.item, item, c.item_optional)[1] or ""))
    if not found:
        return False
    values[c.key] = found if c.type == "refs" else found[0]
    return True


def _read_choice(c: Control, body: dict[str, Any], values: dict[str, Any], used: set[str]) -> bool:
    """Fill a choice control from whichever of its fields the body holds."""
    got = False
    for name in c.fields:
        for option, row in c.table.items():
            if name in body and name in row and body[name] == row[name]:
                values[c.key] = option
                used.add(name)
                got = True
    return got


def _read_field(c: Control, body: dict[str, Any], values: dict[str, Any], used: set[str]) -> bool:
    """Fill a field control from its body field or an alternative name of it."""
    got = False
    for name in c.fields:
        if name not in body or (c.as_list and not body[name]):
            continue
        value = body[name]
        if c.type == "refs":
            value = _lines(value)
        elif c.as_list:
            refs = _lines(value)
            value = refs[0] if len(refs) == 1 else refs
        values[c.key] = value
        used.add(name)
        got = True
    return got


_READERS = {"item": _read_items, "choice": _read_choice, "field": _read_field}


def from_body(family_id: str, body: dict[str, Any], model: str | None = None) -> dict[str, Any]:
    """Values that describe a past request body (unknown keys go to "more parameters").

    An option the body does not send is "not set" (not the form's default), so the body
    comes back as it was; a selector takes the option that explains what the body fills.
    """
    values = defaults(family_id)
    controls = controls_for(family_id)
    for c in controls:
        if c.options and any(o["value"] == "" for o in c.options):
            values[c.key] = ""
    values["model"] = str(body.get("model", model or ""))
    used = {"model"}
    filled = set()
    for c in controls:
        reader = _READERS.get(c.send)
        if reader is not None and reader(c, body, values, used):
            filled.add(c.key)
    for selector in (c for c in controls if c.send == "selector"):
        values[selector.key] = best_option(selector, filled)  # type: ignore[arg-type]
    rest = {k: v for k, v in body.items() if k not in used}
    values[EXTRA_KEY] = json.dumps(rest, indent=1) if rest else ""
    return values


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
    fam = family(family_id)
    body, item_keys = to_body(family_id, values)
    extras, out = parse_extra(values)
    for p in validate_request(fam.create_path, body):
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
    out += _unfilled(family_id, values, {p.key for p in out if p.error})
    for c in controls_for(family_id):
        if c.send != "selector" or not shown(c, values):
            continue
        for key in c.needs.get(values.get(c.key) or c.default, ()):
            if not _lines(values.get(key)):
                label = label_of(family_id, key)
                out.append(FormProblem(key, f"{label}: is required", True, True, label))
    seen: set[str] = set()
    unique: list[FormProblem] = []
    for problem in sorted(out, key=lambda item: not item.error):
        if problem.message not in seen:
            seen.add(problem.message)
            unique.append(problem)
    return unique


def _unfilled(family_id: str, values: dict[str, Any], flagged: set[str]) -> list[FormProblem]:
    """Required controls left empty that the validator did not already flag (a body field
    the request model does not know, e.g. the prompt inside an array of a new family)."""
    out = []
    for c in controls_for(family_id):
        if (
            c.required
            and c.key not in flagged
            and shown(c, values)
            and not _lines(values.get(c.key))
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
        value = old.get(source.key)
        if c.carry == "ratio":
            value = _ratio_value(source, value, c)
            if value is None:
                continue
        elif c.carry in ("refs", "ref_videos", "ref_audios"):
            value = _lines(value)
            if c.type == "ref":
                value = value[0] if value else ""
        elif c.carry in ("first_frame", "last_frame") and c.type == "refs":
            value = _lines(value)
        elif c.carry == "length":
            allowed = [o["value"] for o in c.options]
            if c.options and value not in allowed:
                continue
        if value in ("", None, []) and c.carry != "prompt":
            continue
        values[c.key] = value
    return values


def _ratio_value(source: Control, value: Any, target: Control) -> Any:
    """A value in the target's terms, None if it has none: a choice stands for the entry of
    its table named after what it carries (orientation "landscape" <-> ratio "16:9")."""
    if source.table:
        value = source.table.get(value, {}).get(source.carry)
    if target.table:
        return next((k for k, v in target.table.items() if v.get(target.carry) == value), None)
    return value if any(o["value"] == value for o in target.options) else None
