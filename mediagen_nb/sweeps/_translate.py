"""One cell's parameters, in common words, as the request body of its model's family.

A common word (``prompt``, ``ratio``, ``duration``...) reaches the family's control that
carries that meaning (``_carry``); unknown names are dropped, and the cell says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from mediagen_nb.catalog import FAMILIES, Family, family_for_model, params_for, text_model
from mediagen_nb.catalog._carry import carried_into, carrier
from mediagen_nb.catalog._controls import Control, controls_for
from mediagen_nb.catalog._form_body import EXTRA_KEY, from_body, to_body
from mediagen_nb.catalog._forms import best_option
from mediagen_nb.types import Problem, validate_request

SweepKind = Literal["image", "video", "chat"]
CHAT_PATH = "/v1/chat/completions"

COMMON: dict[str, str] = {
    "prompt": "prompt",
    "ratio": "ratio",
    "duration": "length",
    "references": "refs",
    "first_frame": "first_frame",
    "last_frame": "last_frame",
    "reference_videos": "ref_videos",
    "reference_audios": "ref_audios",
}
"""Common parameter words and what they mean across families (a control's ``carry``)."""

CHAT_DIRECT = frozenset(
    {"messages", "temperature", "top_p", "max_tokens", "stop", "seed", "reasoning_effort"}
)
"""Chat body fields a sweep passes through as they are."""
_EMPTY: tuple[Any, ...] = (None, "", [])


@dataclass(frozen=True)
class Translation:
    """A cell's request: where it goes, its body, and what became of its parameters."""

    family: str | None
    path: str
    body: dict[str, Any]
    problems: tuple[Problem, ...] = ()
    """Errors: the cell is not sent."""
    notes: tuple[str, ...] = ()
    """Parameters a family changed or dropped, and warnings of the validator, in words."""
    fits: tuple[Fit, ...] = ()
    """With ``fit``: each value a model could not take, and what it receives instead."""


@dataclass(frozen=True)
class Fit:
    """A value a model cannot take, replaced by one it can (a fitted plan, the Compare row)."""

    control: str
    """The family's control key that received the value."""
    given: Any
    sent: Any
    text: str
    """In words, e.g. "1K (it has no 4K)"."""


def translate(kind: SweepKind, params: dict[str, Any], *, fit: bool = False) -> Translation:
    """The request of one cell of a ``kind`` sweep with these parameters.

    Args:
        kind: ``"image"``, ``"video"`` or ``"chat"``.
        params: the cell's parameters, in common words or the family's own names.
        fit: give a model that cannot take an option value the option it can take (the
            form's own fallback) and say so, instead of making the cell invalid.

    Returns:
        Its family, path, body, problems (errors) and notes.
    """
    if kind == "chat":
        return _chat(params)
    model = str(params.get("model") or "")
    fam, problem = _family(kind, model, params.get("family"))
    if fam is None:
        return Translation(None, "", {"model": model}, (problem,) if problem else ())
    values = from_body(fam.id, {"model": model})
    state = _State(fam, values, model if fit else "")
    for name, value in params.items():
        if name not in ("model", "family"):
            state.put(name, value)
    if fit:
        state.fit()
    controls = controls_for(fam.id)
    for c in controls:
        if c.send == "selector" and c.key not in state.given:
            values[c.key] = best_option(c, state.filled)  # type: ignore[arg-type]
    values[EXTRA_KEY] = json.dumps(state.extra) if state.extra else ""
    body = to_body(fam.id, values)[0]
    state.note_changes(body)
    found = validate_request(fam.create_path, body)
    problems = state.problems + [p for p in found if p.is_error]
    notes = state.notes + [f"{fam.id}: {p}" for p in found if not p.is_error]
    fits = tuple(state.fits)
    return Translation(fam.id, fam.create_path, body, tuple(problems), tuple(notes), fits)


def _shown(control: Control, value: Any) -> str:
    """An option value as the form labels it ("" is the service's default)."""
    label = next((o["label"] for o in control.options if o["value"] == value), None)
    if label is not None:
        return str(label)
    return "the default" if value in _EMPTY else str(value)


def _family(kind: str, model: str, family_id: Any) -> tuple[Family | None, Problem | None]:
    """The family a cell's model belongs to, or the problem that says why there is none."""
    known = ", ".join(f.id for f in FAMILIES.values() if f.kind == kind)
    if family_id:
        fam = FAMILIES.get(str(family_id))
        if fam is None:
            return None, Problem("family", f"unknown family {family_id!r}; {kind}: {known}")
    else:
        found = family_for_model(model)
        if found is None:
            rule = f"unknown {kind} model {model!r}; give family= (one of {known})"
            return None, Problem("model", rule)
        fam = found
    if fam.kind != kind:
        return None, Problem("model", f"{model} makes {fam.kind}s, not {kind}s")
    return fam, None


class _State:
    """The values of one cell's form as its parameters are put in, and what is said."""

    def __init__(self, fam: Family, values: dict[str, Any], fit_model: str = "") -> None:
        self.fam = fam
        self.fit_model = fit_model
        """The model whose options values are fitted to ("": no fitting)."""
        self.fits: list[Fit] = []
        self.values = values
        self.controls = {c.key: c for c in controls_for(fam.id)}
        self.fields = {p.name for p in params_for(fam.id)}
        self.given: set[str] = set()
        self.filled: set[str] = set()
        self.extra: dict[str, Any] = {}
        self.problems: list[Problem] = []
        self.notes: list[str] = []
        self.carried: list[tuple[str, Any, Control]] = []

    def put(self, name: str, value: Any) -> None:
        """Put one parameter where this family takes it (see the module docstring)."""
        target = carrier(self.fam.id, COMMON[name]) if name in COMMON else None
        if target is not None:
            self._carry(name, value, target)
        elif name in self.controls:
            self._set(name, value)
        elif name in self.fields:
            self.extra[name] = value
        elif value not in _EMPTY:
            self.notes.append(f"{self.fam.id}: {name} dropped ({self.fam.title} has no {name})")

    def _set(self, key: str, value: Any) -> None:
        self.values[key] = value
        self.given.add(key)
        if value not in _EMPTY:
            self.filled.add(key)

    def _carry(self, name: str, value: Any, target: Control) -> None:
        converted = carried_into(target, value)
        if converted in _EMPTY and value not in _EMPTY and self.fit_model:
            self._fitted(target, value, self.values.get(target.key), name)
            return
        if converted in _EMPTY and value not in _EMPTY:
            taken = [o["value"] for o in target.options if o["value"] != ""]
            if target.table:  # a choice: what its options mean, in the common word's terms
                taken = [row.get(target.carry) for row in target.table.values()]
            rule = f"{self.fam.id} cannot take {name} {value}"
            rule += f" (only {', '.join(map(str, taken))})" if taken else ""
            self.problems.append(Problem(name, rule))
            return
        if target.type == "ref" and isinstance(value, list | tuple) and len(value) > 1:
            self.notes.append(f"{self.fam.id}: {name} keeps the first of {len(value)} (it takes 1)")
        self._set(target.key, converted)
        if target.send in ("field", "choice") and (target.to != name or converted != value):
            self.carried.append((name, value, target))

    def fit(self) -> None:
        """Give each option control a value this model takes (the form's ``normalize``)."""
        from mediagen_nb.widgets._form_state import normalize

        fitted = normalize(self.fam.id, self.values)
        for key in sorted(self.given):
            if fitted.get(key) != self.values.get(key) and key in self.controls:
                self._fitted(self.controls[key], self.values.get(key), fitted.get(key), key)
        self.values.update(fitted)

    def _fitted(self, control: Control, given: Any, sent: Any, name: str) -> None:
        text = f"{_shown(control, sent)} (it has no {_shown(control, given)})"
        self.fits.append(Fit(control.key, given, sent, text))
        self.notes.append(f"{self.fit_model}: {name} {text}")

    def note_changes(self, body: dict[str, Any]) -> None:
        """Say where a common parameter went when it became another field or value."""
        for name, value, target in self.carried:
            if target.to in body:
                sent = body[target.to]
                shown = f"{name} {value}" if sent != value else name
                after = f"{target.to} {sent}" if sent != value else target.to
                self.notes.append(f"{self.fam.id}: {shown} is sent as {after}")


def _chat(params: dict[str, Any]) -> Translation:
    """A chat cell: ``prompt`` (and ``system``) become messages; chat fields pass through."""
    model = str(params.get("model") or "")
    problems: list[Problem] = []
    notes: list[str] = []
    if text_model(model) is None:
        problems.append(Problem("model", f"unknown chat model {model!r}"))
    messages = list(params.get("messages") or [])
    if params.get("system"):
        messages.insert(0, {"role": "system", "content": str(params["system"])})
    if params.get("prompt") is not None:
        messages.append({"role": "user", "content": str(params["prompt"])})
    body: dict[str, Any] = {"model": model, "messages": messages}
    for name, value in params.items():
        if name in CHAT_DIRECT - {"messages"}:
            body[name] = value
        elif name not in ("model", "prompt", "system", "messages") and value not in _EMPTY:
            notes.append(f"chat: {name} dropped (a chat request has no {name})")
    if not problems:
        found = validate_request(CHAT_PATH, body)
        problems += [p for p in found if p.is_error]
        notes += [f"chat: {p}" for p in found if not p.is_error]
    return Translation(None, CHAT_PATH, body, tuple(problems), tuple(notes))
