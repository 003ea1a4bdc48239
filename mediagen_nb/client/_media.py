"""Image and video resources: ``images.create``, ``videos.create`` and ``tasks``."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx2

from mediagen_nb.catalog import FAMILIES, Family, Kind, family_for_model
from mediagen_nb.types import Problem, RequestValidationError, TaskCreateResponse, TaskResult

from ._context import ClientContext
from ._exceptions import (
    APIConnectionError,
    APIError,
    MediagenError,
    ServerError,
    TaskFailedError,
)
from ._http import SPEED_HEADER, parse_speed
from ._inputs import prepare_inputs
from ._parse import parse_answer
from ._tasks import Task, normalize_status, result_path

UNCONFIRMED_NOTE = (
    "the service may have created this task; it was not retried to avoid a duplicate - "
    "check the service or history() before sending it again"
)
"""Appended to a create error whose request may have reached the service."""


def resolve_family(kind: Kind, model: str, family: str | None) -> Family:
    """The family for a create call, or ``RequestValidationError`` naming the fix."""
    if family is not None:
        fam = FAMILIES.get(family)
        if fam is None:
            known = ", ".join(f.id for f in FAMILIES.values() if f.kind == kind)
            raise RequestValidationError(
                [Problem("family", f"unknown family {family!r}; {kind} families: {known}")]
            )
    else:
        found = family_for_model(model)
        if found is None:
            known = ", ".join(f.id for f in FAMILIES.values() if f.kind == kind)
            raise RequestValidationError(
                [Problem("model", f"unknown model {model!r}: pass family= (one of {known})")]
            )
        fam = found
    if fam.kind != kind:
        other = "videos" if fam.kind == "video" else "images"
        raise RequestValidationError(
            [Problem("model", f"{fam.id} is a {fam.kind} family: use {other}.create()")]
        )
    return fam


class _TaskResource:
    _kind: Kind

    def __init__(self, context: ClientContext) -> None:
        self._ctx = context

    async def create(self, model: str, *, family: str | None = None, **params: Any) -> Task:
        """Validate and send a create request; return the ``Task`` handle at once.

        The model name finds its family in the catalog, and ``params`` are that family's
        request fields. Which fields a family takes, their rules, defaults and limits, its
        poll interval, ETA and URL lifetime: the documentation's
        [Model families](../families/index.md) pages (Reference → Model families, one page
        per family, generated from the catalog), or, in a notebook,
        ``[p.name for p in mediagen_nb.catalog.params_for("image2")]``.

        Example:
            ```python
            task = await client.images.create("gpt-image-2", prompt="a fox", ratio="16:9")
            await task.wait()
            video = await client.videos.create(
                "seedance_1_5_pro_480p",
                content=[{"type": "text", "text": "a fox runs"}],
                duration=5,
            )
            ```

        Args:
            model: The model name, e.g. ``gpt-image-2`` or ``neutralSora2Plus``.
            family: The family id, for a model name the catalog does not list (the partly
                documented video families name no models).
            **params: The family's request fields (``prompt``, ``size``, ``content``...).
                Where one takes a media URL it also takes a completed ``Task``, a ``Path``
                or ``bytes``: the client resolves each to a URL the service can fetch.

        Returns:
            The task, being polled only when you ``wait()`` or ``refresh()`` it.

        Raises:
            RequestValidationError: The body breaks a rule (nothing sent), or the model's
                family is unknown or of the other kind.
            AssetNotUsableError: An ``asset://`` reference is known not to be Active.
            APIError: The service refused the request.
            APIConnectionError: No answer from the service.
        """
        fam = resolve_family(self._kind, model, family)
        body: dict[str, Any] = {"model": model, **params}
        body, parents = await prepare_inputs(self._ctx, fam, body)
        core = self._ctx.core
        try:
            async with core.slot():  # validate once a slot is free: a burst waits cheaply
                self._ctx.check(fam.create_path, body)
                data, response = await core.request("POST", "base", fam.create_path, body)
        except (ServerError, APIConnectionError) as exc:
            if not _may_have_arrived(exc):
                raise
            self._note_unconfirmed(exc, fam, model, body)
            raise
        created = parse_answer(TaskCreateResponse, data, response)
        status = normalize_status(created.status)
        if not created.id:
            if status == "failed":
                raise TaskFailedError("(no id)", created.error)
            raise APIError(
                "create response has no task id",
                status_code=response.status_code,
                method="POST",
                path=response.request.url.path,
                body=json.dumps(data)[:500],
            )
        result = TaskResult(
            id=created.id,
            object=created.object,
            created=created.created,
            model=created.model or model,
            status=created.status,
            error=created.error,
        )
        speed = parse_speed(response.headers.get(SPEED_HEADER)) or 1.0
        task = Task(
            self._ctx,
            id=created.id,
            family=fam,
            model=model,
            status=status,
            result=result,
            request=body,
            speed=speed,
        )
        task.parents = parents
        lineage: dict[str, Any] = {"parents": parents} if parents else {}
        rec = self._ctx.recorder
        rec.event(
            "task",
            "created",
            task.id,
            family=fam.id,
            model=model,
            request=body,
            status=status,
            created=created.created,
            **lineage,
        )
        if status == "failed":
            rec.event("task", "failed", task.id, family=fam.id, model=model, error=created.error)
        return task

    def _note_unconfirmed(
        self, exc: ServerError | APIConnectionError, fam: Family, model: str, body: dict[str, Any]
    ) -> None:
        """Say in the error, and in history, that the lost create may have made a task."""
        exc.args = (f"{exc.message}; {UNCONFIRMED_NOTE}",)
        key = f"attempt-{uuid.uuid4().hex[:12]}"
        self._ctx.recorder.event(
            "task",
            "unconfirmed",
            key,
            family=fam.id,
            model=model,
            request=body,
            path=fam.create_path,
            error=exc.message,
        )


def _may_have_arrived(exc: MediagenError) -> bool:
    """False only when the request provably never reached the service (no connection made)."""
    if isinstance(exc, ServerError):
        return True
    return not isinstance(exc.__cause__, httpx2.ConnectError | httpx2.ConnectTimeout)


class Images(_TaskResource):
    """``client.images``: create image tasks (the banana and image2 families).

    ``create`` returns a ``Task`` at once; ``await task.wait()`` polls it to the end.

    Args:
        context: The client's shared state. You do not build this: use ``client.images``.
    """

    _kind: Kind = "image"


class Videos(_TaskResource):
    """``client.videos``: create video tasks (every video family).

    ``create`` returns a ``Task`` at once; ``await task.wait()`` polls it to the end.
    The partly documented families (seedance2, veo, grok, videos) list no model names, so
    pass ``family=`` with them.

    Args:
        context: The client's shared state. You do not build this: use ``client.videos``.
    """

    _kind: Kind = "video"


class Tasks:
    """``client.tasks``: results by id, and re-attaching to tasks made before a restart.

    Args:
        context: The client's shared state. You do not build this: use ``client.tasks``.
    """

    def __init__(self, context: ClientContext) -> None:
        self._ctx = context

    async def get(self, task_id: str) -> TaskResult:
        """Read a task's result once (``GET /v1/result/{id}``), without polling.

        Args:
            task_id: The id the create answered with (``task.id``).

        Returns:
            The result as the service reports it now: ``status``, and the media URLs once
            completed.

        Raises:
            NotFoundError: The service knows no task with this id.
            APIError: The service refused the request.
            APIConnectionError: No answer from the service (after the retries a read gets).
        """
        data, response = await self._ctx.core.request(
            "GET", "base", result_path(task_id), idempotent=True
        )
        return parse_answer(TaskResult, data, response)

    def attach(self, task_id: str, family: str, model: str) -> Task:
        """A handle for an existing task (e.g. after a kernel restart); nothing is sent yet.

        Its status is ``queued`` until the first ``refresh()``; ``wait()`` refreshes at once.
        ``mediagen_nb.resume(client)`` does this for every unfinished task of the history.

        Args:
            task_id: The task's id.
            family: The family id (``"sora"``, ``"seedance"``...), which sets the poll
                interval and the deadline.
            model: The model name the task was created with.

        Returns:
            The task handle.

        Raises:
            RequestValidationError: ``family`` is not a family of the catalog.
        """
        fam = FAMILIES.get(family)
        if fam is None:
            raise RequestValidationError(
                [Problem("family", f"unknown family {family!r}; known: {', '.join(FAMILIES)}")]
            )
        return Task(self._ctx, id=task_id, family=fam, model=model, status="queued")
