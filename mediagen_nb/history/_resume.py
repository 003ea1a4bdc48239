"""Find tasks a previous kernel left running, and poll them to the end after a restart.

Decisions: only tasks whose ``service`` equals the client's ``base_url`` (ignoring a
trailing slash) are re-attached, since a task id means nothing on another service; tasks
recorded without a service are skipped for the same reason. A 404 from the service means
its task record has expired (seedance keeps records one day): the task is marked failed
with ``EXPIRED_ERROR`` instead of being polled forever. Outcomes are recorded by the
client's normal recording path; only the expiry is written here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mediagen_nb._hooks import LedgerEvent
from mediagen_nb.history._ledger import Ledger, ledger
from mediagen_nb.history._materialise import UNFINISHED

if TYPE_CHECKING:
    from mediagen_nb.client import AsyncClient, Task

log = logging.getLogger("mediagen_nb.history")

EXPIRED_ERROR = "task record expired on the service"
"""Error text recorded for a task the service no longer knows (HTTP 404 on its result)."""

_background: set[asyncio.Task[Any]] = set()
"""Strong references to running resume pollers (the loop keeps only weak ones)."""


@dataclass(frozen=True)
class PendingTask:
    """A task whose last recorded status is ``queued`` or ``processing``."""

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


def _ledger_for(home: Path | str | None) -> Ledger:
    return ledger() if home is None else Ledger(home)


def unfinished(home: Path | str | None = None) -> list[PendingTask]:
    """Tasks not yet completed, failed or cancelled according to the history, oldest first."""
    store = _ledger_for(home)
    try:
        rows = store.items(kind="task", status=UNFINISHED)
    finally:
        if home is not None:
            store.close()
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
        )
        for row in reversed(rows)
    ]


def _same_service(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.rstrip("/") == b.rstrip("/")


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


async def resume(
    client: AsyncClient,
    *,
    on_task: Callable[[Task], object] | None = None,
    home: Path | str | None = None,
) -> list[Task]:
    """Re-attach every unfinished task of ``client``'s service and poll each to the end.

    Polling runs in asyncio tasks on the running loop, so this returns as soon as the tasks
    are attached; ``on_task`` is called with each re-attached task (panels show a card).
    Returns the re-attached tasks; expired ones are marked failed and left out.
    """
    from mediagen_nb.client import NotFoundError

    store = _ledger_for(home)
    loop = asyncio.get_running_loop()
    attached: list[Task] = []
    for pending in unfinished(home):
        if not _same_service(pending.service, str(client.base_url)):
            continue
        try:
            task = await client.tasks.attach(
                pending.task_id, family=pending.family, model=pending.model
            )
        except NotFoundError:
            _mark_expired(store, pending)
            continue
        attached.append(task)
        if on_task is not None:
            on_task(task)
        poller = loop.create_task(_finish(task, pending, store), name=f"resume-{task.id}")
        _background.add(poller)
        poller.add_done_callback(_background.discard)
    return attached
