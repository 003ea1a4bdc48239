"""Sweeps: one prompt across models and parameters, planned, validated and run as one call.

``mg.sweep(kind, **axes)`` makes a :class:`SweepPlan` (nothing sent); ``await plan.run()``
sends its valid cells and returns a DataFrame; ``mg.resume()`` finishes a sweep a restarted
kernel left unfinished. This package sits above the client, the history and the widgets.
"""

from mediagen_nb.sweeps._budget import BudgetWarning
from mediagen_nb.sweeps._plan import Cell, SweepPlan, sweep
from mediagen_nb.sweeps._results import CellResult

__all__ = [
    "BudgetWarning",
    "Cell",
    "CellResult",
    "SweepPlan",
    "sweep",
]
