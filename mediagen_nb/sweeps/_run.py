"""Running a plan's valid cells through an ``AsyncClient``, each created at most once.

A cell the history shows this sweep already created is polled or read back, never sent
again (see "Sweeps run each cell once" on the design page).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.client import MediagenError, Task, TaskError, recording_tags
from mediagen_nb.history import Ledger
from mediagen_nb.history._resume import resume_poller
from mediagen_nb.sweeps._budget import forecast
from mediagen_nb.sweeps._collector import settled_survivors
from mediagen_nb.sweeps._results import CellResult
from mediagen_nb.types import RequestValidationError

if TYPE_CHECKING:
    import pandas as pd

    from mediagen_nb.client import AsyncClient, Client
    from mediagen_nb.sweeps._plan import Cell, SweepPlan

ACTIVE: dict[str, asyncio.Task[Any]] = {}
"""Runs in progress in this process, by sweep id (a resume leaves them alone)."""
STOPPED = "stopped before it finished"
"""The error of a cell whose run was stopped (``plan.stop()``)."""
_CREATES = frozenset({"created", "unconfirmed", "started"})
START_BATCH = 64
"""Cells started per event-loop iteration (10,000 started at once stalled the loop)."""


@dataclass(frozen=True)
class Earlier:
    """What the history says this sweep already sent for one cell."""

    kind: str
    key: str
    action: str


@dataclass
class _Run:
    plan: SweepPlan
    client: AsyncClient
    store: Ledger | None
    gate: asyncio.Semaphore
    timeout: float | None
    earlier: dict[int, Earlier]
    attached: dict[str, Task]
    runners: list[asyncio.Future[None]] = field(default_factory=list)
    stopped: bool = False


_RUNS: dict[str, _Run] = {}
"""The state of each run in progress, by sweep id (for ``stop_plan``)."""


def stop_plan(plan: SweepPlan) -> bool:
    """Stop the run of ``plan`` in progress; False when none is running.

    Cells not yet sent are not sent; tasks in flight stop being polled (cancelled here, as
    ``Task.cancel``: the service may still finish them); chat requests in flight are
    dropped. Each such cell ends ``cancelled``; the history records the sweep as finished
    (stopped), so ``mg.resume()`` leaves it alone.
    """
    run = _RUNS.get(plan.sweep_id)
    if run is None or run.stopped:
        return False
    run.stopped = True
    for result in plan.results.values():
        if result.task is not None and not result.task.done:
            result.task.cancel()
    for runner in run.runners:
        runner.cancel()
    return True


def earlier_cells(store: Ledger | None, sweep_id: str) -> dict[int, Earlier]:
    """The cells of ``sweep_id`` the history holds a create (or chat turn) for, by index."""
    if store is None:
        return {}
    found: dict[int, Earlier] = {}
    for event in store.events(sweep_id=sweep_id):
        cell = event["data"].get("sweep_cell")
        if event["action"] in _CREATES and isinstance(cell, int) and event["kind"] != "sweep":
            kept = found.get(cell)
            if kept is None or kept.kind == "chat":  # a later turn replaces an unfinished one
                found[cell] = Earlier(str(event["kind"]), str(event["key"]), event["action"])
    return found


def _record(client: AsyncClient, event: LedgerEvent) -> None:
    recorder = client.recorder
    if recorder is None:
        return
    try:
        recorder.record(event)
    except Exception:  # recording must never end a run (as the client's SafeRecorder)
        import logging

        logging.getLogger("mediagen_nb.sweeps").exception("could not record %s", event.key)


def _record_plan(run: _Run) -> None:
    plan = run.plan
    if run.store is not None and run.store.events(key=plan.sweep_id, kind="sweep"):
        return  # recorded by an earlier run of the same sweep
    data = {
        "kind": plan.kind,
        "order": plan.order,
        "fit": plan.fit,
        "axes": plan.axes,
        "fixed": {k: list(v) if isinstance(v, tuple) else v for k, v in plan.fixed.items()},
        "cells": [c.to_json() for c in plan.cells],
    }
    _record(run.client, _sweep_event(run, "planned", data))


def _sweep_event(run: _Run, action: str, data: dict[str, Any]) -> LedgerEvent:
    return LedgerEvent(
        kind="sweep", action=action, key=run.plan.sweep_id, service=run.client.service_id, data=data
    )


async def run_plan(
    plan: SweepPlan,
    client: AsyncClient | None,
    concurrency: int,
    timeout: float | None,  # noqa: ASYNC109 - each task's polling deadline
    attached: dict[str, Task],
) -> None:
    """Run every valid cell of ``plan`` not yet finished (see the module docstring)."""
    if client is None:
        from mediagen_nb._defaults import default_client

        client = default_client()
    running = ACTIVE.get(plan.sweep_id)
    if running is not None and not running.done():
        raise RuntimeError(f"sweep {plan.sweep_id} is already running: await that run")
    plan.budget = await forecast(plan, client)
    store = client.recorder if isinstance(client.recorder, Ledger) else None
    earlier = earlier_cells(store, plan.sweep_id)
    gate = asyncio.Semaphore(max(1, concurrency))
    run = _Run(plan, client, store, gate, timeout, earlier, attached)
    _record_plan(run)
    current = asyncio.current_task()
    if current is not None:
        ACTIVE[plan.sweep_id] = current
    _RUNS[plan.sweep_id] = run
    try:
        with settled_survivors(len(plan.valid)):  # no long collector pauses in a large run
            await _start_and_gather(run)
    finally:
        for runner in run.runners:
            runner.cancel()  # a no-op for finished ones; the rest when the kernel stops it
        ACTIVE.pop(plan.sweep_id, None)
        _RUNS.pop(plan.sweep_id, None)
    if run.stopped:
        for cell in plan.valid:
            result = plan.results.setdefault(cell.index, CellResult())
            if not result.done:
                result.status, result.error = "cancelled", STOPPED
                plan._changed(cell.index)
    counts: dict[str, int] = {}
    for result in plan.results.values():
        counts[result.status] = counts.get(result.status, 0) + 1
    _record(client, _sweep_event(run, "finished", {"statuses": counts, "stopped": run.stopped}))


async def _start_and_gather(run: _Run) -> None:
    """Start the cells a few per loop iteration (no long stall), then wait for all of them;
    a stopped run's cancelled cells are not an error."""
    for count, cell in enumerate(run.plan.valid, 1):
        if run.stopped:
            break
        run.runners.append(asyncio.ensure_future(_one(run, cell)))
        if count % START_BATCH == 0:
            await asyncio.sleep(0)
    outcomes = await asyncio.gather(*run.runners, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            raise outcome


async def _one(run: _Run, cell: Cell) -> None:
    result = run.plan.results.setdefault(cell.index, CellResult())
    if result.done and result.status != "error":
        return  # finished in an earlier run of this plan object
    async with run.gate:
        prior = run.earlier.get(cell.index)
        if prior is not None and await _from_history(run, cell, result, prior):
            pass
        elif run.plan.kind == "chat":
            await _chat(run, cell, result)
        else:
            await _task(run, cell, result)
    run.plan._changed(cell.index)


async def _task(run: _Run, cell: Cell, result: CellResult) -> None:
    """Create the cell's task and poll it to the end."""
    resource = run.client.images if run.plan.kind == "image" else run.client.videos
    body = dict(cell.body)
    model = str(body.pop("model"))
    result.status = "sending"
    try:
        with recording_tags(sweep_id=run.plan.sweep_id, sweep_cell=cell.index):
            task = await resource.create(model, family=cell.family, **body)
    except (MediagenError, RequestValidationError) as exc:
        lost = earlier_cells(run.store, run.plan.sweep_id).get(cell.index)
        unconfirmed = lost is not None and lost.action == "unconfirmed"
        result.status, result.error = "unconfirmed" if unconfirmed else "error", str(exc)
        return
    await _follow(run, cell, result, task)


async def _follow(run: _Run, cell: Cell, result: CellResult, task: Task) -> None:
    """Poll ``task`` to the end (or wait for the resume already polling it)."""
    result.task, result.task_id, result.status = task, task.id, task.status
    run.plan._changed(cell.index)

    def seen(polled: Task) -> None:
        if polled.status != result.status:
            result.status = polled.status
            run.plan._changed(cell.index)

    error: str | None = None
    poller = resume_poller(task)
    try:
        if poller is not None:
            await asyncio.shield(poller)
        else:
            await task.wait(run.timeout, on_update=seen)
    except TaskError as exc:
        error = str(exc)
    except MediagenError as exc:
        error = str(exc)
    result.status = task.status if task.done else "error"
    result.error = task.error or error if result.status != "completed" else None
    result.local_file, result.elapsed = task.local_path, task.elapsed


async def _chat(run: _Run, cell: Cell, result: CellResult) -> None:
    """Send the cell's chat request; the answer's text and usage."""
    result.status = "sending"
    run.plan._changed(cell.index)
    started = time.monotonic()
    try:
        with recording_tags(sweep_id=run.plan.sweep_id, sweep_cell=cell.index):
            reply = await run.client.chat.completions.create(**cell.body)
    except (MediagenError, RequestValidationError) as exc:
        result.status, result.error = "failed", str(exc)
    else:
        result.status, result.text = "completed", reply.text
        result.usage = reply.usage.model_dump(mode="json") if reply.usage else None
        result.task_id = reply.id or None
    result.elapsed = time.monotonic() - started


async def _from_history(run: _Run, cell: Cell, result: CellResult, prior: Earlier) -> bool:
    """Finish a cell this sweep already sent; False when it must be sent (again)."""
    item = run.store.item(prior.kind, prior.key) if run.store is not None else None
    status = str(item.get("status")) if item else prior.action
    if prior.kind == "chat":
        if status != "completed" or item is None:
            return False  # a turn cut off by the restart: ask again
        result.status, result.text, result.usage = "completed", item.get("text"), item.get("usage")
        result.elapsed = item.get("elapsed")
        return True
    result.task_id = prior.key
    if prior.action == "unconfirmed" or item is None:
        result.status = "unconfirmed"
        result.error = (item or {}).get("error") or "the create's answer was lost"
        return True
    kept = item.get("local_file")
    if status in ("failed", "cancelled") or (status == "completed" and kept):
        result.status, result.error = status, item.get("error")
        result.local_file, result.elapsed = kept, item.get("elapsed")
        return True
    task = run.attached.get(prior.key) or run.client.tasks.attach(
        prior.key, family=str(item.get("family") or cell.family), model=cell.model
    )
    await _follow(run, cell, result, task)
    return True


def run_blocking(
    plan: SweepPlan, concurrency: int, client: Client | None, timeout: float | None
) -> pd.DataFrame:
    """:meth:`SweepPlan.run` from code without an event loop of its own (a script)."""
    from mediagen_nb.client import Client

    sync = client if client is not None else Client()
    try:
        return sync.call(plan.run(concurrency, client=sync.async_client, timeout=timeout))
    finally:
        if client is None:
            sync.close()
