"""A class's roster and rules at start: what the ledger kept, with what was asked for now."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from mediagen_nb.classroom._codes import Roster, Student, read_roster
from mediagen_nb.classroom._rules import Limits, Rules
from mediagen_nb.classroom._state import rules_from_json


def start_roster(
    saved: list[Student], students: int | Sequence[str], roster: Path | None
) -> list[Student]:
    """Saved students plus those asked for now (generated ``student-NN`` names)."""
    names: list[str] = []
    if isinstance(students, int):
        if students < 0:
            raise ValueError(f"students must be a number >= 0 or a list of names, not {students}")
        names += [f"student-{n:02d}" for n in range(1, students + 1)]
    else:
        names += list(students)
    if roster is not None:
        names += read_roster(Path(roster).read_text(encoding="utf-8"))
    pool = Roster(saved)
    known = {s.name.casefold() for s in saved}
    for name in names:
        if name.strip().casefold() not in known:
            pool.add(name)
            known.add(name.strip().casefold())
    return pool.students()


def start_rules(
    saved: dict[str, Any] | None,
    models: Iterable[str] | None,
    limits: Limits | None,
    class_limits: Limits | None,
    group_limits: dict[str, Limits] | None = None,
) -> Rules:
    """The saved rules with what was asked for now in place (None: keep the saved)."""
    rules = rules_from_json(saved) if saved else Rules()
    if group_limits is not None:
        rules = replace(rules, per_group=dict(group_limits))
    if models is not None:
        rules = rules.with_models(models)
    if limits is not None:
        rules = replace(rules, limits=limits)
    if class_limits is not None:
        rules = replace(rules, class_limits=class_limits)
    return rules
