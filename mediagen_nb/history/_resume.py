"""Find tasks a previous kernel left running, and poll them to the end after a restart.

Only tasks of the client's own service that no live process is polling are taken; a 404
from the service means its record expired, and the task is marked failed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history._ledger import Ledger, ledger, process_token
from mediagen_nb.history._materialise import UNFINISHED

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient, Task

log = logging.getLogger("mediagen_nb.history")

POLLED_RECENTLY_S = 180.0
"""A live process's task counts as being polled if it wrote an event this recently (three
times the longest poll interval of any family)."""

EXPIRED_ERROR = "task record expired on the service"
"""Error text recorded for a task the service no longer knows (HTTP 404 on its result)."""

_running: dict[tuple[str, str], tuple[Task, asyncio.Task[None]]] = {}
"""Pollers started by :func:`resume` in this process, by (service, task id). Also keeps
strong references: the event loop holds only weak ones."""


@dataclass(frozen=True)
class PendingTask:
    """A task whose last recorded status is ``queued`` or ``processing``.

    Attributes:
        task_id: The task's id on the service.
        family: Its family id.
        model: Its model name.
        service: The base URL of the service the task was created on.
        created: When the ledger first saw the task (UTC).
        status: Its last recorded status.
        prompt: Its prompt, when it had one.
        polls: Result requests made so far.
        origin: The process that wrote its last event.
        updated: Unix time of its last event.
    """

    task_id: str
    family: str | None
    model: str | None
    service: str | None
    """Base URL of the service the task was created on."""
    created: datetime
    """When the ledger first saw the task (UTC)."""
    status: str
    prompt: str | None = None
    polls: int = 0
    origin: str | None = None
    """Process that wrote the task's last event (see ``process_token``)."""
    updated: float | None = None
    """Unix time of the task's last event."""


def _ledger_for(home: Path | str | None) -> Ledger:
    return ledger() if home is None else Ledger(home)


def _unkept(row: dict[str, Any], now: float) -> bool:
    """A completed task whose media was never stored here while its URL still works."""
    if not row.get("remote_url"):
        return False
    expires = row.get("url_expires")
    if expires is not None and float(expires) <= now:
        return False
    local = row.get("local_file")
    return not (local and Path(str(local)).is_file())


def unfinished(
    home: Path | str | None = None,
    *,
    include_this_process: bool = True,
    include_unkept: bool = False,
) -> list[PendingTask]:
    """Tasks not yet completed, failed or cancelled according to the history, oldest first.

    Args:
        home: Another history folder than ``$MEDIAGEN_HOME``.
        include_this_process: Keep tasks whose last event came from this process.
        include_unkept: Add completed tasks whose result was never downloaded (the kernel
            died in between) while the result URL has not expired, so re-attaching them
            keeps the media before it is lost.

    Returns:
        The tasks, oldest first.
    """
    store = _ledger_for(home)
    try:
        rows = store.items(kind="task", status=UNFINISHED)
        if include_unkept:
            now = time.time()
            done = store.items(kind="task", status="completed")
            rows += [row for row in done if _unkept(row, now)]
            rows.sort(key=lambda row: float(row["created"]), reverse=True)
    finally:
        if home is not None:
            store.close()
    me = process_token()
    return [
        PendingTask(
            task_id=str(row["key"]),
            family=row["family"],
            model=row["model"],
            service=row["service"],
            created=datetime.fromtimestamp(float(row["created"]), tz=UTC),
            status=str(row["status"]),
            prompt=row["prompt"],
            polls=int(row["polls"] or 0),
            origin=row.get("origin"),
            updated=float(row["updated"]) if row.get("updated") is not None else None,
        )
        for row in reversed(rows)
        if include_this_process or row.get("origin") != me
    ]


def _service_key(url: str | None) -> str | None:
    return url.rstrip("/") if url else None


def _mark_expired(store: Ledger, pending: PendingTask) -> None:
    store.record(
        LedgerEvent(
            kind="task",
            action="failed",
            key=pending.task_id,
            family=pending.family,
            model=pending.model,
            service=pending.service,
            data={"status": "failed", "error": EXPIRED_ERROR},
        )
    )


async def _finish(task: Task, pending: PendingTask, store: Ledger) -> None:
    from mediagen_nb.client import NotFoundError, TaskError

    try:
        await task.wait()
    except NotFoundError:
        _mark_expired(store, pending)
    except TaskError:
        pass  # failed / cancelled / timed out: the client has recorded the outcome
    except Exception:
        log.exception("resuming task %s failed", pending.task_id)


def _live(key: tuple[str, str], loop: asyncio.AbstractEventLoop) -> Task | None:
    """The task already being resumed for ``key`` on this loop, or None."""
    entry = _running.get(key)
    if entry is None:
        return None
    task, poller = entry
    if poller.done() or poller.get_loop() is not loop:
        _running.pop(key, None)
        return None
    return task


def _forget(key: tuple[str, str]) -> Callable[[asyncio.Task[None]], None]:
    def done(poller: asyncio.Task[None]) -> None:
        entry = _running.get(key)
        if entry is not None and entry[1] is poller:
            del _running[key]

    return done


def resume_poller(task: Task) -> asyncio.Task[None] | None:
    """The poller :func:`resume` runs for ``task`` (a handle it returned), or None.

    Code that needs a resumed task's outcome awaits this instead of polling the task a
    second time.
    """
    for service in {key[0] for key in _running}:
        handle, poller = _running.get((service, task.id), (None, None))
        if handle is task and poller is not None and not poller.done():
            return poller
    return None


def _polled_elsewhere(pending: PendingTask) -> bool:
    """Whether another live kernel is polling this task (it wrote to it recently)."""
    if pending.origin is None or pending.origin == process_token():
        return False
    if pending.updated is None or time.time() - pending.updated > POLLED_RECENTLY_S:
        return False
    return process_alive(pending.origin)


def _attach(client: AsyncClient, pending: PendingTask, include_this_process: bool) -> Task | None:
    """A handle on ``pending`` to poll, or None when this kernel should leave it alone."""
    if not include_this_process and pending.origin == process_token():
        return None
    if _polled_elsewhere(pending):
        return None
    if pending.family is None or pending.model is None:
        log.warning("cannot resume task %s: family or model unknown", pending.task_id)
        return None
    try:
        return client.tasks.attach(pending.task_id, family=pending.family, model=pending.model)
    except ValueError as exc:  # RequestValidationError: family no longer in the catalog
        log.warning("cannot resume task %s: %s", pending.task_id, exc)
        return None


async def resume(
    client: AsyncClient,
    *,
    on_task: Callable[[Task], object] | None = None,
    home: Path | str | None = None,
    wait: bool = False,
    include_this_process: bool = False,
) -> list[Task]:
    """Re-attach every unfinished task of ``client``'s service and poll each to the end.

    Completed tasks whose result was never downloaded (URL not yet expired) are re-attached
    too, so their media is kept before the URL expires.

    Polling runs in asyncio tasks on the running loop, so this returns as soon as the tasks
    are attached. A task whose record has expired ends marked failed in the history.

    Args:
        client: The client whose service (base URL, or the emulator's id) to resume.
        on_task: Called with each newly re-attached task (panels show a card).
        home: Another history folder than ``$MEDIAGEN_HOME``.
        wait: Return only after every poller has ended (scripts, tests).
        include_this_process: Also take tasks this process wrote (a restart simulated
            within one process).

    Returns:
        The tasks being resumed for this service, including ones an earlier call started.
    """
    store = _ledger_for(home)
    close_orphaned_turns(store)
    loop = asyncio.get_running_loop()
    service = _service_key(getattr(client, "service_id", None) or client.base_url)
    resumed: list[Task] = []
    for pending in unfinished(home, include_unkept=True):
        if service is None or _service_key(pending.service) != service:
            continue
        key = (service, pending.task_id)
        live = _live(key, loop)
        if live is not None:
            resumed.append(live)
            continue
        task = _attach(client, pending, include_this_process)
        if task is None:
            continue
        poller = loop.create_task(_finish(task, pending, store), name=f"resume-{task.id}")
        _running[key] = (task, poller)
        poller.add_done_callback(_forget(key))
        resumed.append(task)
        if on_task is not None:
            on_task(task)
    if wait and service is not None:
        keys = [(service, t.id) for t in resumed]
        pollers = [_running[k][1] for k in keys if k in _running]
        if pollers:
            await asyncio.gather(*pollers)
    return resumed


ORPHANED_TURN_ERROR = "the kernel stopped before the reply finished"
"""Error text recorded for a chat turn whose kernel died while the reply was streaming."""


def process_alive(origin: str | None) -> bool:
    """Whether the process that wrote ``origin`` (``"{pid}-{random}"``) still runs here."""
    pid_text = (origin or "").split("-", 1)[0]
    if not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


def close_orphaned_turns(store: Ledger) -> int:
    """Mark chat turns still ``started`` by a dead process as ``incomplete``; return how many.

    A turn's reply streams inside the kernel that asked for it; when that kernel is gone the
    turn can never finish, so its row must not say "started" forever. The partial text, if
    any was recorded, is kept. Turns of live processes (another open kernel) are left alone.
    """
    closed = 0
    for item in store.items(kind="chat", status="started"):
        if item.get("origin") == store.origin or process_alive(item.get("origin")):
            continue
        store.record(
            LedgerEvent(
                kind="chat",
                action="incomplete",
                key=item["key"],
                model=item.get("model"),
                service=item.get("service"),
                data={"error": ORPHANED_TURN_ERROR},
            )
        )
        closed += 1
    return closed
