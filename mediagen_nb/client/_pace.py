"""How a task is polled: its family's interval, ``Retry-After`` and the wait's deadline.

One set of rules for the client's ``Task`` and the classroom's
tracker, which both follow tasks on the service.
"""

from __future__ import annotations

from dataclasses import dataclass

from mediagen_nb.catalog import Family

from ._exceptions import parse_retry_after

MIN_DEFAULT_DEADLINE_S = 600.0
"""A wait's default deadline is at least this (before the speed divides it)."""
DEADLINE_FLOOR_S = 10.0
"""A default deadline scaled by the emulator's speed never drops below this."""
MIN_POLL_INTERVAL_S = 0.01
"""Nor does a poll interval (so a stuck task is polled at most 100 times a second)."""
UNKNOWN_INTERVAL_S = 5.0
"""The interval of a family the catalog does not know."""


@dataclass(frozen=True)
class PollPace:
    """How often and how long one task is polled.

    Attributes:
        interval: Seconds between two polls of the result.
        deadline: Seconds after which a wait without its own timeout gives up.
    """

    interval: float
    deadline: float

    def after_busy(self, retry_after: float | str | None) -> float:
        """Seconds to wait after a ``429`` or ``503`` answer to a poll.

        Args:
            retry_after: The answer's ``Retry-After``: seconds already parsed, or the header's
                text (delta-seconds or an HTTP date); None when it had none.

        Returns:
            The ``Retry-After`` wait, else one interval; never below ``MIN_POLL_INTERVAL_S``,
            so ``Retry-After: 0`` is no busy loop.
        """
        wanted = parse_retry_after(retry_after) if isinstance(retry_after, str) else retry_after
        return max(self.interval if wanted is None else wanted, MIN_POLL_INTERVAL_S)


def poll_pace(
    family: Family | None, model: str, speed: float = 1.0, *, duration: float | None = None
) -> PollPace:
    """The polling rules of a task of ``model``: the catalog's pace, scaled by ``speed``.

    Args:
        family: The model's family in the catalog; None when the catalog does not know it
            (then every 5 s, and a deadline of 30 min).
        model: The model the task runs.
        speed: The service's clock speed (the emulator's ``x-mediagen-emulator-speed``; 1 for
            the real service): intervals and deadlines are divided by it.
        duration: The clip's length in seconds, for families whose ETA grows with it.

    Returns:
        ``interval``: the family's minimum for this model over ``speed`` (at least
        ``MIN_POLL_INTERVAL_S``); ``deadline``: ``max(600 s, 3 x the upper ETA) / speed``, at
        least ``DEADLINE_FLOOR_S``.

    Example:
        >>> from mediagen_nb.catalog import family
        >>> poll_pace(family("seedance"), "seedance_1_5_pro_720p").interval
        10.0
    """
    if family is None:
        base, high = UNKNOWN_INTERVAL_S, MIN_DEFAULT_DEADLINE_S
    else:
        base, high = family.min_poll_interval(model), family.eta(model, duration)[1]
    return PollPace(
        interval=max(MIN_POLL_INTERVAL_S, base / speed),
        deadline=max(DEADLINE_FLOOR_S, max(MIN_DEFAULT_DEADLINE_S, 3.0 * high) / speed),
    )
