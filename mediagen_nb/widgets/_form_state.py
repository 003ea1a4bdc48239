"""The form's values, as the panel holds them: to a request body and back, and checked.

``values`` is a flat dict keyed by the controls of ``_form_spec`` plus ``family``, ``model``
and ``extra`` (a JSON object of more parameters, which override the fields). ``to_body``
builds the request; ``from_body`` fills values from a past request (History "open");
``check`` runs ``types.validate_request`` and names each problem the way the user sees the
field ("Reference images: item 2 must be an http(s) URL"); ``offered`` narrows each option
list to the options that yield no problem (2K/4K only on the pro banana models);
``carry`` moves the prompt, ratio/orientation and references to another family where the
target control means the same.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mediagen_nb.catalog import ORIENTATIONS, family
from mediagen_nb.types import errors_only, validate_request
from mediagen_nb.widgets._form_spec import MODE_REQUIRED, Control, controls_for

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


def to_body(family_id: str, values: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The request body, and for Seedance the control key of each ``content`` item."""
    body: dict[str, Any] = {"model": str(values.get("model") or "").strip()}
    content_keys: list[str] = []
    controls = [c for c in controls_for(family_id) if shown(c, values)]
    if family_id == "seedance":
        content: list[dict[str, Any]] = [{"type": "text", "text": values.get("prompt") or ""}]
        content_keys.append("prompt")
        for c in controls:
            if c.key == "reference_images":
                urls, role = _lines(values.get(c.key)), "reference_image"
            elif c.key in ("first_frame", "last_frame"):
                urls, role = [str(values.get(c.key) or "").strip()], c.key
            else:
                continue
            for url in urls:
                content.append({"type": "image_url", "image_url": {"url": url}, "role": role})
                content_keys.append(c.key)
        body["content"] = content
    for c in controls:
        value = values.get(c.key)
        if family_id == "seedance" and c.key in ("prompt", *content_keys):
            continue
        if c.key == "orientation":
            if value in ORIENTATIONS:
                body["size"] = ORIENTATIONS[value]["size"]
        elif c.key == "length":
            if value not in ("", None):
                body["duration"] = _number(value)
        elif c.key == "reference":
            if _lines(value):
                body["input_reference"] = _lines(value)
        elif c.key in ("mode", "scenario"):
            continue
        elif c.type == "checkbox":
            body[c.api] = bool(value)
        elif c.type == "refs":
            if _lines(value):
                body[c.api] = _lines(value)
        elif c.type == "number":
            if str(value if value is not None else "").strip():
                body[c.api] = _number(value)
        elif c.type == "text":
            body[c.api] = str(value or "")
        elif isinstance(value, str):
            if value.strip():
                body[c.api] = value.strip() if c.type in ("ref", "size") else value
        elif value is not None:
            body[c.api] = value
    body.update(parse_extra(values)[0])
    return body, content_keys


def from_body(family_id: str, body: dict[str, Any], model: str | None = None) -> dict[str, Any]:
    """Values that describe a past request body (unknown keys go to "more parameters").

    An option the body does not send is "not set" (not the form's default), so the body
    comes back as it was.
    """
    values = defaults(family_id)
    for c in controls_for(family_id):
        if c.options and any(o["value"] == "" for o in c.options):
            values[c.key] = ""
    values["model"] = str(body.get("model", model or ""))
    used = {"model"}
    controls = controls_for(family_id)
    if family_id == "seedance":
        items = [i for i in body.get("content") or [] if isinstance(i, dict)]
        texts = [str(i.get("text", "")) for i in items if i.get("type") == "text"]
        values["prompt"] = texts[0] if texts else ""
        by_role: dict[str, list[str]] = {}
        for item in items:
            if item.get("type") == "image_url":
                image = item.get("image_url")
                url = str(image.get("url", "")) if isinstance(image, dict) else ""
                by_role.setdefault(str(item.get("role") or "first_frame"), []).append(url)
        if "reference_image" in by_role:
            values["scenario"] = "reference_images"
            values["reference_images"] = by_role["reference_image"]
        elif "last_frame" in by_role:
            values["scenario"] = "first_last_frame"
        elif "first_frame" in by_role:
            values["scenario"] = "first_frame"
        values["first_frame"] = (by_role.get("first_frame") or [""])[0]
        values["last_frame"] = (by_role.get("last_frame") or [""])[0]
        used.add("content")
    for c in controls:
        if family_id == "seedance" and c.key in SEEDANCE_CONTENT_KEYS:
            continue
        if c.key == "orientation":
            for name in ("size", "aspect_ratio"):
                for orientation, api in ORIENTATIONS.items():
                    if body.get(name) == api[name]:
                        values["orientation"] = orientation
                        used.add(name)
        elif c.key == "length":
            for name in ("duration", "seconds"):
                if name in body:
                    values["length"] = body[name]
                    used.add(name)
        elif c.key == "reference":
            for name in ("input_reference", "image_urls"):
                if body.get(name):
                    refs = _lines(body[name])
                    values["reference"] = refs[0] if len(refs) == 1 else refs
                    used.add(name)
        elif c.key in ("mode", "scenario"):
            continue
        elif c.api in body:
            value = body[c.api]
            values[c.key] = _lines(value) if c.type == "refs" else value
            used.add(c.api)
    if family_id == "starvideos":
        values["mode"] = _starvideos_mode(body)
    rest = {k: v for k, v in body.items() if k not in used}
    values[EXTRA_KEY] = json.dumps(rest, indent=1) if rest else ""
    return values


SEEDANCE_CONTENT_KEYS = ("prompt", "scenario", "first_frame", "last_frame", "reference_images")


def _starvideos_mode(body: dict[str, Any]) -> str:
    has = {k for k, v in body.items() if v not in (None, [], "")}
    if "referenceVideos" in has:
        return "image_video" if "referenceImages" in has else "video_reference"
    if "first_image" in has or "last_image" in has:
        return "first_last_frame"
    return "image_reference" if "referenceImages" in has else "text"


def _owner(family_id: str, field_path: str, content_keys: list[str]) -> tuple[str, str]:
    """(control key, rule prefix) of a problem's JSON path."""
    match = _INDEX.match(field_path)
    top = match.group(1) if match else field_path.split(".", maxsplit=1)[0]
    if family_id == "seedance" and top == "content":
        if match is None:
            return "scenario", ""
        index = int(match.group(2))
        key = content_keys[index] if index < len(content_keys) else "scenario"
        if key == "reference_images":
            return key, f"image {content_keys[:index].count(key) + 1} "
        return key, ""
    for c in controls_for(family_id):
        apis = {c.api, c.key}
        if c.key == "orientation":
            apis |= {"size", "aspect_ratio"}
        elif c.key == "length":
            apis |= {"duration", "seconds"}
        elif c.key == "reference":
            apis |= {"input_reference", "image_urls"}
        if top in apis:
            prefix = f"item {int(match.group(2)) + 1} " if match and c.type == "refs" else ""
            return c.key, prefix
    if top == "model":
        return "model", ""
    return EXTRA_KEY, ""


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
    body, content_keys = to_body(family_id, values)
    extras, out = parse_extra(values)
    for p in validate_request(fam.create_path, body):
        key, prefix = _owner(family_id, p.field, content_keys)
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
    if family_id == "starvideos":
        mode = str(values.get("mode") or "text")
        for name in MODE_REQUIRED.get(mode, ()):
            if body.get(name) in (None, "", []):
                label = label_of(family_id, name)
                out.append(FormProblem(name, f"{label}: is required", True, True, label))
    scenario = values.get("scenario") == "reference_images"
    if family_id == "seedance" and scenario and not _lines(values.get("reference_images")):
        label = label_of(family_id, "reference_images")
        out.append(FormProblem("reference_images", f"{label}: is required", True, True, label))
    seen: set[str] = set()
    unique: list[FormProblem] = []
    for problem in sorted(out, key=lambda item: not item.error):
        if problem.message not in seen:
            seen.add(problem.message)
            unique.append(problem)
    return unique


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
        if not c.options or c.key in ("mode", "scenario", "orientation") or not shown(c, values):
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
    """An aspect ratio in the target's terms (orientation <-> 9:16 / 16:9), None if none."""
    if source.key == "orientation":
        value = ORIENTATIONS.get(str(value), {}).get("ratio")
    if target.key == "orientation":
        return next((k for k, v in ORIENTATIONS.items() if v["ratio"] == value), None)
    return value if any(o["value"] == value for o in target.options) else None
