"""Compare in the Images and Videos panels: two to four models, one form, one row of cards.

Python owns ``compare_models``, ``compare_form`` (the union of the controls the models take,
with who takes each and what a model receives instead), ``compare_values`` and
``compare_rows``; a row is a fitted sweep over ``model``, and Keep moves a card to the gallery.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import traitlets as t

from mediagen_nb.catalog import families, family, model_title
from mediagen_nb.widgets._class_models import allowed
from mediagen_nb.widgets._gallery import Result

if TYPE_CHECKING:
    from mediagen_nb.sweeps import SweepPlan


@dataclass
class CompareRow:
    """One Generate of the Compare form: its plan and one card per model."""

    plan: SweepPlan
    cards: dict[int, Result] = field(default_factory=dict)
    """The card of each valid cell, by cell index."""
    run: asyncio.Task[Any] | None = None

    @property
    def sweep_id(self) -> str:
        return self.plan.sweep_id

    def to_json(self, models: frozenset[str] | None = None) -> dict[str, Any]:
        prompt = str(self.plan.fixed.get("prompt") or "")
        return {
            "sweep_id": self.sweep_id,
            "label": prompt[:120],
            "code": self.plan.code(),
            "cards": [r.to_json(models) for r in self.cards.values()],
        }


class CompareMixin(t.HasTraits):
    """The Compare switch of a generate panel (mixed into ``GeneratePanel``)."""

    compare = t.Bool(False).tag(sync=True)
    """The Compare switch: the form is the union form of ``compare_models``."""
    compare_choices: t.List[Any] = t.List().tag(sync=True)
    """The models one can compare: ``{"value", "label"}`` (the catalog's listed models)."""
    compare_models = t.List(t.Unicode()).tag(sync=True)
    """The chosen models (two to four), in the order of their cards."""
    compare_form: t.List[Any] = t.List().tag(sync=True)
    """The union form's rows: a control's spec plus ``applies`` (model titles) and ``notes``."""
    compare_values = t.Dict().tag(sync=True)
    """The union form's values, by row key (common words, or a family's control key)."""
    compare_problems = t.List(t.Unicode()).tag(sync=True)
    """Why the row cannot be generated (a model's problem, in its words)."""
    compare_code = t.Unicode("").tag(sync=True)
    """The ``mg.sweep(...)`` call of the row the form describes (Copy as code)."""
    compare_rows: t.List[Any] = t.List().tag(sync=True)
    """Rows of cards, newest first (``CompareRow.to_json``), throttled with the gallery."""

    if TYPE_CHECKING:
        kind: Any
        values: Any
        can_generate: Any
        hint: Any
        attempted: Any
        _results: list[Result]
        _handles: dict[str, Any]
        _throttle: Any
        _media_dirty: bool
        session: Any

        def spawn(self, coro: Any, *, name: str | None = None) -> asyncio.Task[Any]: ...
        def on_action(self, name: str, handler: Any) -> None: ...
        def hold_sync(self) -> Any: ...
        def _set_values(self, values: dict[str, Any]) -> None: ...

    def _setup_compare(self) -> None:
        self._rows: list[CompareRow] = []
        self._all_choices = [
            {"value": m, "label": model_title(m), "group": fam.title}
            for fam in families(self.kind)
            for m in fam.models
        ]
        self.compare_choices = list(self._all_choices)
        self.observe(lambda _c: self._compare_check(), names="compare_values")
        self.observe(self._compare_switched, names="compare")
        for action, handler in {
            "compare": lambda m: self.set_compare(bool(m.get("on"))),
            "compare_models": lambda m: self.set_compare_models(list(m.get("models") or [])),
            "keep": lambda m: self.keep(str(m.get("id", ""))),
            "remove_row": lambda m: self.remove_row(str(m.get("sweep_id", ""))),
        }.items():
            self.on_action(action, handler)

    # --- the form ---------------------------------------------------------------------------

    def set_compare(self, on: bool, models: list[str] | None = None) -> None:
        """Turn Compare on (with ``models``, or the form's model and the next one) or off."""
        if not on:
            self.compare = False
            return
        self.set_compare_models(models or list(self.compare_models) or self._first_pair())
        self.compare = True

    def _first_pair(self) -> list[str]:
        names = [str(c["value"]) for c in self.compare_choices]
        current = str(self.values.get("model") or "")
        first = current if current in names else names[0]
        return [first, next(n for n in names if n != first)]

    def set_compare_models(self, models: list[str]) -> None:
        """Choose the models to compare (two to four of ``compare_choices``).

        Raises:
            ValueError: Fewer than two, more than four, or a model this panel cannot make.
        """
        from mediagen_nb.sweeps._compare import (
            MAX_MODELS,
            MIN_MODELS,
            union_controls,
            union_values,
        )

        models = list(dict.fromkeys(models))
        known = {str(c["value"]) for c in self.compare_choices}
        unknown = [m for m in models if m not in known]
        if unknown:
            raise ValueError(f"Compare: {unknown[0]!r} is not a {self.kind} model of the catalog")
        if not MIN_MODELS <= len(models) <= MAX_MODELS:
            raise ValueError(
                f"Compare: pick {MIN_MODELS} to {MAX_MODELS} models, not {len(models)}"
            )
        rows = union_controls(models)
        lead = str(self.values.get("family"))
        start = union_values(rows, lead, self.values)
        kept = {k: v for k, v in self.compare_values.items() if k in rows}
        self.compare_models = models
        self.compare_values = {**start, **kept}  # observed: checks and publishes the form

    def compare_allowed(self, models: frozenset[str] | None) -> None:
        """Offer only a class's models (None: every model); Compare ends if two are not left."""
        apply_allowed(self, self._all_choices, models)

    def _compare_switched(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self._compare_check()
        else:  # the single form's own state again
            self._set_values(dict(self.values))

    def set_compare_values(self, **changes: Any) -> None:
        """Change the union form's values as the user would."""
        self.compare_values = {**self.compare_values, **changes}

    def compare_plan(self) -> SweepPlan:
        """The fitted sweep over ``model`` that the form describes now (nothing sent)."""
        from mediagen_nb.sweeps._compare import compare_plan

        return compare_plan(self.kind, list(self.compare_models), dict(self.compare_values))

    def _compare_check(self) -> None:
        from mediagen_nb.sweeps._compare import with_notes

        models = list(self.compare_models)
        if not models:
            return
        rows = with_notes(self.kind, models, dict(self.compare_values))
        plan = self.compare_plan()
        problems = [f"{c.model}: {p.field}: {p.rule}" for c in plan.invalid for p in c.problems]
        with self.hold_sync():
            self.compare_form = [r.to_json() for r in rows.values()]
            self.compare_problems = problems
            self.compare_code = plan.code()
            if self.compare:
                self.can_generate = not problems
                self.hint = "" if not problems else "Check the form: " + problems[0]

    # --- the row ----------------------------------------------------------------------------

    @property
    def compare_cards(self) -> list[list[Result]]:
        """Each row's cards (newest row first), for tests and the text repr."""
        return [list(row.cards.values()) for row in self._rows]

    def generate_compare(self) -> CompareRow | None:
        """One Generate of the Compare form: one card per model at once, then the sweep runs.

        Returns:
            The row, or None when the form is invalid (every problem then shows).
        """
        plan = self.compare_plan()
        if plan.invalid or not plan.valid:
            self.attempted = True
            return None
        row = CompareRow(plan)
        for cell in plan.valid:
            fam = family(str(cell.family))
            result = Result(self.kind, fam.id, fam.title, dict(cell.body), status="sending")
            result.note = "; ".join(n for n in cell.notes if n.startswith(f"{cell.model}:"))
            row.cards[cell.index] = result
        self._rows.insert(0, row)
        self._throttle.flush()  # every card is on the page now, before the client is asked
        speed = float(getattr(self.session.client, "speed", 1.0) or 1.0)  # may start it
        for card in row.cards.values():
            low, high = family(card.family).eta(card.model, None)
            card.eta = (low / speed, high / speed)  # the emulator's clock
        plan.on_change(lambda index: self._cell_changed(row, index))
        row.run = self.spawn(self._run_row(row), name=f"compare {plan.sweep_id}")
        self._throttle.request()
        return row

    async def _run_row(self, row: CompareRow) -> None:
        from mediagen_nb.sweeps._run import run_plan  # plan.run without its DataFrame (pandas)

        await run_plan(row.plan, self.session.client, len(row.cards), None, {})
        await self._throttle.drain()

    def _cell_changed(self, row: CompareRow, index: int) -> None:
        card = row.cards.get(index)
        outcome = row.plan.results.get(index)
        if card is None or outcome is None:
            return
        task = outcome.task
        if task is not None:
            card.follow(task)
            if not task.done:
                self._handles[card.id] = task
            elif task.status == "completed" and not card.source:
                self._handles.pop(card.id, None)
                self.spawn(self._load_media(task, card), name=f"media {task.id}")
        # a request that failed before its task existed ends the card as failed, and says why
        card.status = "failed" if outcome.status in ("error", "unconfirmed") else outcome.status
        if outcome.error and not card.error:
            card.error = outcome.error
        self._throttle.request()

    async def _load_media(self, task: Any, card: Result) -> None:
        from mediagen_nb._platform import off_loop

        data = await task.read_bytes()
        await off_loop(card.set_media, data, task.id, task.local_path)
        self._media_dirty = True
        self._throttle.request()
        await self._throttle.drain()  # the picture is sent before this task ends

    def _row_of(self, result_id: str) -> tuple[CompareRow, int] | None:
        for row in self._rows:
            for index, card in row.cards.items():
                if card.id == result_id:
                    return row, index
        return None

    def keep(self, result_id: str) -> Result:
        """Keep this one: the card leaves its row and becomes an ordinary gallery result.

        Raises:
            KeyError: No compare card has this id.
        """
        found = self._row_of(result_id)
        if found is None:
            raise KeyError(f"no compare card {result_id!r}")
        row, index = found
        card = row.cards.pop(index)
        if not row.cards:
            self._rows.remove(row)
        self._results.insert(0, card)
        self._media_dirty = True
        self._throttle.flush()
        return card

    def remove_row(self, sweep_id: str) -> None:
        """Close a row: its running cells stop (``plan.stop()``), its cards go."""
        for row in list(self._rows):
            if row.sweep_id == sweep_id:
                row.plan.stop()
                self._rows.remove(row)
        self._media_dirty = True
        self._throttle.flush()

    def remove(self, result_id: str) -> None:
        """Take a card off the gallery or its compare row (a running task is cancelled)."""
        found = self._row_of(result_id)
        if found is None:
            super().remove(result_id)  # type: ignore[misc]
            return
        row, index = found
        if not row.cards[index].done:
            self.cancel(result_id)  # type: ignore[attr-defined]
        row.cards.pop(index)
        if not row.cards:
            self._rows.remove(row)
        self._media_dirty = True
        self._throttle.flush()

    def _all_results(self) -> list[Result]:
        return [*self._results, *(c for row in self._rows for c in row.cards.values())]

    def _find(self, result_id: str) -> Result:
        for result in self._all_results():
            if result.id == result_id:
                return result
        raise KeyError(f"no result {result_id!r} in the gallery")

    def _push_rows(self) -> None:
        models = allowed(self.session.classroom)
        self.compare_rows = [row.to_json(models) for row in self._rows]


def apply_allowed(panel: Any, choices: list[dict[str, Any]], models: frozenset[str] | None) -> None:
    """A panel's Compare choices narrowed to ``models`` (a classroom's), its chosen ones too."""
    panel.compare_choices = [c for c in choices if models is None or c["value"] in models]
    kept = [m for m in panel.compare_models if models is None or m in models]
    from mediagen_nb.sweeps._compare import MIN_MODELS

    if len(kept) < MIN_MODELS:
        panel.compare = False
        panel.compare_models = []
    elif kept != list(panel.compare_models):
        panel.set_compare_models(kept)
