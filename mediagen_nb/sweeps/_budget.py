"""How many cells of a sweep fit the budget of the class a client belongs to."""

from __future__ import annotations

import asyncio
import warnings
from typing import TYPE_CHECKING

from mediagen_nb.client import MediagenError

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient
    from mediagen_nb.sweeps._plan import SweepPlan
    from mediagen_nb.types import ClassroomMe


class BudgetWarning(UserWarning):
    """Fewer cells of a sweep fit the class's budget than the sweep would send."""


def fitting(plan: SweepPlan, me: ClassroomMe) -> int:
    """How many of ``plan``'s valid cells the class lets this student send now.

    Args:
        plan: The sweep.
        me: The gateway's ``/v1/classroom/me`` answer for this student.

    Returns:
        The number of valid cells whose model the class allows, capped by what is left
        (images or videos; a chat cell fits while chat tokens are left); 0 when paused.
    """
    if me.paused:
        return 0
    allowed = sum(1 for cell in plan.valid if me.allows(cell.model))
    left = {"image": me.left.images, "video": me.left.videos}.get(plan.kind)
    if plan.kind == "chat" and me.left.chat_tokens is not None and me.left.chat_tokens <= 0:
        return 0
    return allowed if left is None else min(allowed, left)


def budget_line(plan: SweepPlan, me: ClassroomMe) -> str:
    """``5 of 10 cells fit your budget (5 of 5 images left)``."""
    left = me.left_text()
    return f"{fitting(plan, me)} of {len(plan.valid)} cells fit your budget" + (
        f" ({left})" if left else ""
    )


ASK_S = 10.0
"""How long a run waits for the gateway's answer before it goes on without a forecast."""


async def classroom_of(client: AsyncClient) -> ClassroomMe | None:
    """The gateway's ``/v1/classroom/me`` for this client, or None off a classroom gateway
    (the service answers 404), when it cannot say, or when it takes over ``ASK_S``."""
    try:
        return await asyncio.wait_for(client.classroom.me(), ASK_S)
    except (MediagenError, TimeoutError):
        return None


async def forecast(plan: SweepPlan, client: AsyncClient) -> str | None:
    """Ask the gateway what is left and say how many cells fit; warn when not all do.

    Args:
        plan: The sweep about to run.
        client: The client it runs through.

    Returns:
        The sentence, or None when the service is not a classroom gateway.
    """
    me = await classroom_of(client)
    if me is None:
        return None
    line = budget_line(plan, me)
    if fitting(plan, me) < len(plan.valid):
        warnings.warn(BudgetWarning(f"{line}; the class will refuse the rest"), stacklevel=3)
    return line
