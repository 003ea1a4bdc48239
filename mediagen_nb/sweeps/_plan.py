"""``mg.sweep(kind, **axes)``: a plan of cells, every one translated and validated, none sent.

A list is an axis, any other value is fixed (a tuple is one value: ``references=("a.png",
"b.png")``). Cells are the product of the axes in the order given. The plan runs through
an ``AsyncClient`` (``_run``), and a restarted kernel rebuilds it from the history.
"""

from __future__ import annotations

import html
import itertools
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

from mediagen_nb.sweeps._translate import SweepKind, translate
from mediagen_nb.types import Problem

if TYPE_CHECKING:
    import pandas as pd

    from mediagen_nb.client import AsyncClient, Client, Task
    from mediagen_nb.sweeps._results import CellResult
    from mediagen_nb.widgets import SweepGrid

KINDS: tuple[str, ...] = get_args(SweepKind)
SUMMARY_REASONS = 3
"""At most this many different reasons per line of ``summary()``."""


@dataclass(frozen=True)
class Cell:
    """One cell of a sweep: its axis values and its request, or why it cannot be sent.

    Attributes:
        index: Its position in the plan (the product of the axes, in order).
        axes: This cell's value of each axis, by parameter name.
        params: Every parameter of the cell (axes and fixed values), as given.
        family: The model family its request goes to (``None`` for chat or an unknown model).
        path: The service path its request is sent to.
        body: The request body, in the family's own field names.
        problems: Why the cell cannot be sent (empty when it is valid).
        notes: What the translation changed or dropped, one line each.
    """

    index: int
    axes: dict[str, Any]
    params: dict[str, Any]
    family: str | None
    path: str
    body: dict[str, Any]
    problems: tuple[Problem, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        """True when the cell will be sent."""
        return not self.problems

    @property
    def model(self) -> str:
        """The model the cell asks."""
        return str(self.body.get("model") or self.params.get("model") or "")

    def reason(self) -> str:
        """Why the cell is invalid, in one line ("" when valid)."""
        return "; ".join(f"{self.model}: {p}" for p in self.problems)

    def to_json(self) -> dict[str, Any]:
        """The cell as the history records it."""
        return {
            "index": self.index,
            "axes": self.axes,
            "params": self.params,
            "family": self.family,
            "path": self.path,
            "body": self.body,
            "problems": [[p.field, p.rule] for p in self.problems],
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cell:
        """A cell as :meth:`to_json` wrote it."""
        return cls(
            index=int(data["index"]),
            axes=dict(data.get("axes") or {}),
            params=dict(data.get("params") or {}),
            family=data.get("family"),
            path=str(data.get("path") or ""),
            body=dict(data.get("body") or {}),
            problems=tuple(Problem(str(f), str(r)) for f, r in data.get("problems") or []),
            notes=tuple(str(n) for n in data.get("notes") or []),
        )


def _value(value: Any) -> Any:
    """A parameter value as JSON has it (a tuple is one list value)."""
    return list(value) if isinstance(value, tuple) else value


def _cells(
    kind: SweepKind, axes: dict[str, list[Any]], fixed: dict[str, Any], fit: bool = False
) -> list[Cell]:
    names = list(axes)
    cells = []
    for index, combo in enumerate(itertools.product(*(axes[n] for n in names))):
        cell_axes = {n: _value(v) for n, v in zip(names, combo, strict=True)}
        params = {**{k: _value(v) for k, v in fixed.items()}, **cell_axes}
        done = translate(kind, params, fit=fit)
        cells.append(
            Cell(
                index,
                cell_axes,
                params,
                done.family,
                done.path,
                done.body,
                done.problems,
                done.notes,
            )
        )
    return cells


class SweepPlan:
    """The cells of a sweep: made by ``mg.sweep(...)``, run by :meth:`run`.

    Build one with ``mg.sweep``; the constructor is how a resumed sweep is rebuilt from the
    history. Each attribute below keeps the argument of the same name.

    Args:
        kind: ``"image"``, ``"video"`` or ``"chat"``.
        axes: Parameter name -> the values it takes; the cells are their product, in order.
        fixed: Parameter name -> the one value every cell takes.
        sweep_id: The id recorded with every task and chat turn of the run; a new one when
            omitted.
        cells: The cells as recorded by an earlier run; omitted, they are computed (and
            validated) from ``axes`` and ``fixed``.
        order: The parameters in the order the user gave them (for :meth:`code`); omitted,
            the axes then the fixed values.

    Attributes:
        cells: Every :class:`Cell`, valid or not.
        results: Cell index -> its :class:`CellResult`, filled while the plan runs.

    Example:
        >>> plan = mg.sweep("image", model=["nano-banana", "seedream"], prompt="a fox")
        >>> df = await plan.run()
    """

    def __init__(
        self,
        kind: SweepKind,
        axes: dict[str, list[Any]],
        fixed: dict[str, Any],
        *,
        sweep_id: str | None = None,
        cells: list[Cell] | None = None,
        order: list[str] | None = None,
        fit: bool = False,
    ) -> None:
        self.kind = kind
        self.fit = fit
        """Values a model cannot take were fitted to ones it can (:meth:`fitted`)."""
        self.axes = axes
        self.fixed = fixed
        self.order = order or [*axes, *fixed]
        """The parameters in the order they were given (for :meth:`code`)."""
        self.sweep_id = sweep_id or f"sweep-{uuid.uuid4().hex[:12]}"
        self.cells: list[Cell] = cells if cells is not None else _cells(kind, axes, fixed, fit)
        self.results: dict[int, CellResult] = {}
        self._listeners: list[Callable[[int], None]] = []

    def __len__(self) -> int:
        return len(self.cells)

    @property
    def invalid(self) -> list[Cell]:
        """The cells that will not be sent, each with its ``problems``."""
        return [c for c in self.cells if not c.valid]

    @property
    def valid(self) -> list[Cell]:
        """The cells that will be sent."""
        return [c for c in self.cells if c.valid]

    def summary(self) -> str:
        """A few plain lines: how many cells, which are invalid and why, what was translated.

        Returns:
            e.g. "12 cells: 10 to send, 2 invalid: nano-banana: resolution: ..." and one
            line per parameter a family changed or dropped.
        """
        invalid = self.invalid
        head = f"{len(self)} cells: {len(self) - len(invalid)} to send"
        if invalid:
            reasons = Counter(c.reason() for c in invalid)
            shown = [r if n == 1 else f"{r} ({n} cells)" for r, n in reasons.most_common()]
            more = len(shown) - SUMMARY_REASONS
            head += f", {len(invalid)} invalid: " + "; ".join(shown[:SUMMARY_REASONS])
            head += f"; and {more} more" if more > 0 else ""
        notes = Counter(n for c in self.cells for n in c.notes)
        lines = [head, *(f"  {n}" + (f" ({k} cells)" if k > 1 else "") for n, k in notes.items())]
        return "\n".join(lines)

    def __repr__(self) -> str:
        axes = ", ".join(f"{k}={len(v)}" for k, v in self.axes.items())
        return (
            f"SweepPlan({self.kind!r}, {axes or 'no axes'}: {len(self)} cells, "
            f"{len(self.invalid)} invalid, sweep_id={self.sweep_id!r})"
        )

    def _repr_html_(self) -> str:
        lines = self.summary().splitlines()
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines[1:])
        return (
            f"<div class='mediagen-sweep-plan'><strong>{html.escape(lines[0])}</strong>"
            + (f"<ul>{items}</ul>" if items else "")
            + f"<div><code>{html.escape(self.sweep_id)}</code></div></div>"
        )

    def code(self) -> str:
        """The ``mg.sweep(...)`` call that makes this plan's cells again (Copy as code)."""
        args = [repr(self.kind)]
        for name in self.order:
            if name in self.axes:
                args.append(f"{name}={self.axes[name]!r}")
            elif name in self.fixed:
                value = self.fixed[name]
                args.append(f"{name}={tuple(value) if isinstance(value, list) else value!r}")
        fitted = ".fitted()" if self.fit else ""
        return "import mediagen_nb as mg\n\nplan = mg.sweep(" + ", ".join(args) + f"){fitted}\n"

    def fitted(self) -> SweepPlan:
        """The same sweep where a model that cannot take a value gets one it can.

        "nano-banana: resolution 1K (it has no 4K)": each such change is a note of the cell,
        where the plain plan would make the cell invalid. The Studio's Compare row is one.

        Returns:
            A new plan (its own ``sweep_id``), nothing sent.
        """
        return SweepPlan(self.kind, self.axes, self.fixed, order=self.order, fit=True)

    # -- running ------------------------------------------------------------------------

    def on_change(self, callback: Callable[[int], None], remove: bool = False) -> None:
        """Call ``callback(index)`` whenever a cell's result changes (``remove``: stop)."""
        if remove:
            self._listeners = [c for c in self._listeners if c is not callback]
        else:
            self._listeners.append(callback)

    def _changed(self, index: int) -> None:
        for callback in list(self._listeners):
            callback(index)

    async def run(
        self,
        concurrency: int = 4,
        *,
        client: AsyncClient | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 - each task's polling deadline
        attached: dict[str, Task] | None = None,
    ) -> pd.DataFrame:
        """Send the valid cells, at most ``concurrency`` at a time; one row per cell.

        A cell this sweep already created (an earlier run, a kernel before a restart) is
        never created again: its task is polled to the end, or its outcome read back.

        Args:
            concurrency: cells in flight at once (created and not yet finished).
            client: the client to send through (default: ``mg``'s default client).
            timeout: each task's polling deadline in seconds (default: the task's own).
            attached: tasks already being polled (by ``mg.resume()``), by id.

        Returns:
            A pandas DataFrame: the axes, ``status``, ``task_id``, ``local_file``,
            ``elapsed``, ``error``, ``sweep_id`` (chat: also ``text`` and ``usage``).
        """
        from mediagen_nb.sweeps._results import frame
        from mediagen_nb.sweeps._run import run_plan

        await run_plan(self, client, concurrency, timeout, attached or {})
        return frame(self)

    def stop(self) -> bool:
        """Stop this plan's run in progress (one Stop for every cell).

        Cells not yet sent are not sent, tasks in flight stop being polled (the service may
        still finish them), chat requests in flight are dropped; each ends ``cancelled``,
        and :meth:`run` returns its rows. ``mg.resume()`` leaves a stopped sweep alone.

        Returns:
            False when the plan is not running.
        """
        from mediagen_nb.sweeps._run import stop_plan

        return stop_plan(self)

    def run_sync(
        self, concurrency: int = 4, *, client: Client | None = None, timeout: float | None = None
    ) -> pd.DataFrame:
        """The blocking twin of :meth:`run`, for scripts (``client`` is a ``mg.Client``)."""
        from mediagen_nb.sweeps._run import run_blocking

        return run_blocking(self, concurrency, client, timeout)

    def frame(self) -> pd.DataFrame:
        """The rows as they are now (cells not yet run say ``pending``)."""
        from mediagen_nb.sweeps._results import frame

        return frame(self)

    def grid(self, x: str = "model", y: str | None = None) -> SweepGrid:
        """A labelled grid widget of the results, live while the plan runs.

        Args:
            x: the axis along the columns.
            y: the axis along the rows (default: the first other axis, if any).

        Returns:
            A ``SweepGrid`` widget; its cells follow the run.
        """
        from mediagen_nb.sweeps._grid import grid_for

        return grid_for(self, x, y)

    def contact_sheet(self, path: str, x: str = "model", y: str | None = None) -> str:
        """Write the grid of finished pictures as one labelled PNG; returns the path."""
        from mediagen_nb.sweeps._sheet import contact_sheet

        return contact_sheet(self, path, x, y)


def sweep(kind: SweepKind, **params: Any) -> SweepPlan:
    """Plan a sweep: every combination of the list-valued parameters; nothing is sent.

    Args:
        kind: ``"image"``, ``"video"`` or ``"chat"``.
        **params: parameters in common words (``prompt``, ``ratio``, ``resolution``,
            ``duration``, ``references``...) or a family's own names; ``model`` is
            required. A list is an axis, any other value is fixed (a tuple is one value).

    Returns:
        The plan: ``cells``, ``invalid``, ``summary()``, ``run()``, ``grid()``...

    Raises:
        ValueError: an unknown kind, no ``model``, or an axis without values.
    """
    if kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)}, not {kind!r}")
    if "model" not in params:
        raise ValueError("model: a sweep needs model= (one model, or a list of models)")
    axes = {k: list(v) for k, v in params.items() if isinstance(v, list)}
    empty = [k for k, v in axes.items() if not v]
    if empty:
        raise ValueError(f"{empty[0]}: an axis needs at least one value")
    fixed = {k: v for k, v in params.items() if not isinstance(v, list)}
    return SweepPlan(kind, axes, fixed, order=list(params))
