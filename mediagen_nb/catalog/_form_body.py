"""The form's values to a request body and back, by the catalog's declaration of each control.

``values``: the controls' keys plus ``family``, ``model`` and ``extra`` (a JSON object of more
parameters). ``to_body`` builds the request; ``from_body`` fills values from a past request.
No family ids here: how a control reaches the body is its ``send``.
"""

from __future__ import annotations

import json
from typing import Any

from mediagen_nb.catalog._controls import Control, controls_for
from mediagen_nb.catalog._families import family
from mediagen_nb.catalog._forms import VALUE, best_option

EXTRA_KEY = "extra"


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


def lines(value: Any) -> list[str]:
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


def parse_extra(values: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The "more parameters" JSON object, or "" and the rule it breaks."""
    text = str(values.get(EXTRA_KEY) or "").strip()
    if not text:
        return {}, ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, f"is not valid JSON ({exc.msg}, line {exc.lineno})"
    if not isinstance(value, dict):
        return {}, 'must be a JSON object, e.g. {"key": "value"}'
    return value, ""


def _sendable(c: Control, value: Any) -> Any:
    """The body value of a field control; None when it is not sent."""
    if c.type == "checkbox":
        return bool(value)
    if c.type == "refs" or c.as_list:
        return lines(value) or None
    if c.type == "number":
        return _number(value) if str(value if value is not None else "").strip() else None
    if c.type == "text":  # the prompt is always sent, so an empty one is named by the rules
        text = str(value or "")
        return text if text or c.required or c.carry == "prompt" else None
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
        return lines(value)
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
            value = lines(value)
        elif c.as_list:
            refs = lines(value)
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
