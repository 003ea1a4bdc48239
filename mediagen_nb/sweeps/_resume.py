"""After a kernel restart: rebuild the plans of unfinished sweeps from the history and finish
them (``mg.resume()``). A sweep is unfinished when its ``planned`` event has no ``finished``
event after it; its cells already created are polled to the end, the others are sent once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb.history import Ledger, ledger
from mediagen_nb.history._resume import process_alive
from mediagen_nb.sweeps._plan import Cell, SweepPlan
from mediagen_nb.sweeps._run import ACTIVE

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient, Task

_resumed: dict[str, asyncio.Task[Any]] = {}
"""Runs started by :func:`resume_sweeps`, by sweep id (strong references)."""


def plan_from_event(event: dict[str, Any]) -> SweepPlan:
    """The plan a ``planned`` sweep event recorded (its cells and bodies, as they were)."""
    data = event["data"]
    cells = [Cell.from_json(c) for c in data.get("cells") or []]
    return SweepPlan(
        data["kind"],
        dict(data.get("axes") or {}),
        dict(data.get("fixed") or {}),
        sweep_id=str(event["key"]),
        cells=cells,
        order=list(data.get("order") or []),
        fit=bool(data.get("fit")),
    )


def unfinished_sweeps(store: Ledger, service: str | None = None) -> list[SweepPlan]:
    """Plans of the sweeps the history shows started and not finished, oldest first.

    Args:
        store: the history ledger to read.
        service: only sweeps run on this service (a client's ``service_id``); None: all.

    Returns:
        One rebuilt :class:`SweepPlan` per unfinished sweep.
    """
    planned: dict[str, dict[str, Any]] = {}
    for event in store.events(kind="sweep"):
        if event["action"] == "planned":
            planned.setdefault(str(event["key"]), event)
        elif event["action"] == "finished":
            planned.pop(str(event["key"]), None)
    wanted = service.rstrip("/") if service else None
    return [
        plan_from_event(e)
        for e in planned.values()
        if wanted is None or (e.get("service") or "").rstrip("/") == wanted
    ]


def _forget(sweep_id: str) -> Callable[[asyncio.Task[Any]], None]:
    def done(_run: asyncio.Task[Any]) -> None:
        _resumed.pop(sweep_id, None)

    return done


def _elsewhere(store: Ledger, sweep_id: str) -> bool:
    """Whether another live kernel is running this sweep (it recorded the plan)."""
    events = store.events(key=sweep_id, kind="sweep")
    origin = events[0].get("origin") if events else None
    return origin is not None and origin != store.origin and process_alive(origin)


async def resume_sweeps(
    client: AsyncClient,
    tasks: list[Task] | None = None,
    *,
    home: Path | str | None = None,
    concurrency: int = 4,
) -> list[asyncio.Task[Any]]:
    """Finish every unfinished sweep of ``client``'s service in the background.

    Args:
        client: the client to send and poll through.
        tasks: tasks ``mg.resume()`` already re-attached (they are not polled twice).
        home: another history folder than ``$MEDIAGEN_HOME``.
        concurrency: cells in flight at once, per sweep.

    Returns:
        The asyncio tasks running the sweeps (await them to wait for the sweeps' end).
    """
    store = ledger() if home is None else Ledger(home)
    attached = {t.id: t for t in tasks or []}
    loop = asyncio.get_running_loop()
    runs = []
    for plan in unfinished_sweeps(store, client.service_id or client.base_url):
        running = ACTIVE.get(plan.sweep_id) or _resumed.get(plan.sweep_id)
        if running is not None and not running.done():
            runs.append(running)
            continue
        if _elsewhere(store, plan.sweep_id):
            continue
        run = loop.create_task(
            plan.run(concurrency, client=client, attached=attached), name=plan.sweep_id
        )
        _resumed[plan.sweep_id] = run
        run.add_done_callback(_forget(plan.sweep_id))
        runs.append(run)
    return runs
