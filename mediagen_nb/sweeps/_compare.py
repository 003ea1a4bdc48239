"""The Studio's Compare row as a sweep over ``model``: the union form of the chosen models, and
its plan (``sweep(kind, model=[...], ...).fitted()``), with what each model receives instead.

A control that means the same across families (its ``carry``) is one row, named by its
common word (``ratio``, ``duration``...); any other control is one row per control key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mediagen_nb.catalog import family_for_model, model_title
from mediagen_nb.catalog._carry import carried_into, meaning
from mediagen_nb.catalog._controls import Control, controls_for
from mediagen_nb.sweeps._plan import SweepPlan, sweep
from mediagen_nb.sweeps._translate import COMMON, SweepKind, translate

MIN_MODELS = 2
MAX_MODELS = 4
WORD = {what: word for word, what in COMMON.items()}
"""A control's ``carry`` -> the common word a sweep takes it by."""
_EMPTY: tuple[Any, ...] = (None, "", [])


@dataclass
class UnionControl:
    """One row of the Compare form: the first chosen model's control for it, and who takes it."""

    key: str
    control: Control
    applies: list[str] = field(default_factory=list)
    """The chosen models whose family takes it."""
    notes: list[str] = field(default_factory=list)
    """What a model receives instead of the form's value ("nano-banana: 1K (it has no 4K)")."""

    def to_json(self) -> dict[str, Any]:
        """The row as the front end draws it (the control's spec, keyed by the union key)."""
        return {
            **self.control.to_json(),
            "key": self.key,
            "show_when": None,
            "applies": [model_title(m) for m in self.applies],
            "notes": list(self.notes),
        }


def union_controls(models: list[str]) -> dict[str, UnionControl]:
    """The rows of the union form of ``models`` (in model order, then control order)."""
    out: dict[str, UnionControl] = {}
    for model in models:
        fam = family_for_model(model)
        if fam is None:
            continue
        for control in controls_for(fam.id):
            if control.send == "selector":  # chosen per cell by what is filled (best_option)
                continue
            key = WORD.get(control.carry, control.key) if control.carry else control.key
            row = out.setdefault(key, UnionControl(key, control))
            if model not in row.applies:
                row.applies.append(model)
    return out


def union_values(
    rows: dict[str, UnionControl], family_id: str, values: dict[str, Any]
) -> dict[str, Any]:
    """Start values of the union form from one family's form values (what carries over)."""
    own = {c.key: c for c in controls_for(family_id)}
    by_carry = {c.carry: c for c in own.values() if c.carry}
    out: dict[str, Any] = {}
    for key, row in rows.items():
        lead = row.control
        source = by_carry.get(lead.carry) if lead.carry else own.get(key)
        value = values.get(source.key) if source is not None else None
        if source is not None and lead.carry and source is not lead:
            value = carried_into(lead, meaning(source, value))
        out[key] = lead.default if value in _EMPTY and lead.type not in ("text",) else value
        if out[key] is None:
            out[key] = ""
    return out


def compare_params(
    models: list[str], rows: dict[str, UnionControl], values: dict[str, Any]
) -> dict[str, Any]:
    """The sweep's parameters: ``model``, then each filled row (common words last, so a
    family's own control of the same name never overrides what a common word put there)."""
    own: dict[str, Any] = {}
    common: dict[str, Any] = {}
    for key, row in rows.items():
        value = values.get(key)
        if value in _EMPTY:
            continue
        if isinstance(value, list):
            value = tuple(v for v in value if str(v).strip())  # one value, not an axis
            if not value:
                continue
        if key in COMMON:
            common[key] = meaning(row.control, value)
        else:
            own[key] = value
    prompt = {"prompt": common.pop("prompt")} if "prompt" in common else {}
    return {"model": list(models), **prompt, **own, **common}


def compare_plan(kind: SweepKind, models: list[str], values: dict[str, Any]) -> SweepPlan:
    """The fitted sweep over ``model`` that the Compare form describes."""
    rows = union_controls(models)
    return sweep(kind, **compare_params(models, rows, values)).fitted()


def with_notes(
    kind: SweepKind, models: list[str], values: dict[str, Any]
) -> dict[str, UnionControl]:
    """The union rows, each with what a model receives instead of its value (if anything)."""
    rows = union_controls(models)
    params = compare_params(models, rows, values)
    fixed = {k: v for k, v in params.items() if k != "model"}
    for model in models:
        fam = family_for_model(model)
        if fam is None:
            continue
        carries = {c.key: c.carry for c in controls_for(fam.id)}
        for fit in translate(kind, {"model": model, **fixed}, fit=True).fits:
            carry = carries.get(fit.control, "")
            key = WORD.get(carry, fit.control) if carry else fit.control
            if key in rows:
                rows[key].notes.append(f"{model}: {fit.text}")
    return rows
