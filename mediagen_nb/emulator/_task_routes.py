"""HTTP routes of image/video tasks: the 11 creates, ``GET /v1/result/{id}``, media downloads.

Relative to the ``/api`` mount. A create always answers 200; a body that breaks a rule gives a
failed task naming the field and the rule.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from mediagen_nb._serverkit.errors import (
    JSON_KEY,
    JSON_TYPE,
    dumps,
    error_body,
    error_response,
    format_seconds,
)
from mediagen_nb._serverkit.media_types import media_headers, served_type
from mediagen_nb._serverkit.urls import media_root
from mediagen_nb.catalog import FAMILIES, Family
from mediagen_nb.emulator._anchors import frame_anchors
from mediagen_nb.emulator._state import EmulatorState

_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
_MEDIA_NAME = re.compile(r"^([0-9a-f]{32})\.(png|mp4)$")
_log = logging.getLogger("mediagen_nb.emulator")

Endpoint = Callable[[Request], Awaitable[Response]]
MEDIA_CACHE_CONTROL: Final = "private, max-age=3600"


Reply = tuple[int, bytes, dict[str, str]]


def result_reply(state: EmulatorState, scope: Scope, task_id: str) -> Reply:
    """Status, JSON body and extra headers of ``GET /v1/result/{task_id}``.

    Plain data so the middleware can answer result polls without the router (the hot path).
    """
    if not _ID.match(task_id):
        return 404, error_body(404, "no task with this id"), {}
    now = state.now()
    task, wait = state.tasks.poll(task_id, now)
    if task is None:
        return 404, error_body(404, f"no task with id {task_id} (unknown or expired)"), {}
    if wait is not None:
        state.counters["poll_too_fast"] += 1
        message = (
            f"polling too often: at most one poll every {format_seconds(task.min_interval)}"
            f" s for {task.family.title} tasks"
        )
        return 429, error_body(429, message), {"retry-after": format_seconds(wait)}
    return 200, task.result_json(now, media_root(scope, state.public_origin)), {}


def _create_endpoint(state: EmulatorState, fam: Family) -> Endpoint:
    async def create(request: Request) -> Response:
        body = request.scope.get(JSON_KEY)
        problems = state.tasks.problems(fam, body)
        # the frame lookup may render a picture: only a valid body is worth it
        anchors = (None, None) if problems else await frame_anchors(state, fam, body)
        task = state.tasks.create(fam, body, anchors, problems)
        return Response(dumps(task.create_payload()), media_type=JSON_TYPE)

    create.__name__ = f"create_{fam.id}"
    return create


def _result_endpoint(state: EmulatorState) -> Endpoint:
    async def result(request: Request) -> Response:
        status, body, headers = result_reply(state, request.scope, request.path_params["id"])
        return Response(body, status_code=status, headers=headers, media_type=JSON_TYPE)

    return result


def _media_endpoint(state: EmulatorState) -> Endpoint:
    tasks = state.tasks

    async def media(request: Request) -> Response:
        match = _MEDIA_NAME.match(request.path_params["name"])
        task = tasks.by_token(match.group(1)) if match else None
        if match is None or task is None or task.spec is None or task.spec.suffix != match[2]:
            return error_response(404, "no such result file (unknown or expired)")
        if state.now() >= task.url_expires_at:
            return error_response(410, "this result URL has expired; results must be downloaded")
        try:
            data = await tasks.media.get(task.id, task.spec)
        except Exception:
            _log.exception("rendering the result of %s failed", task.id)
            return error_response(500, "the emulator could not render this result")
        state.counters["media_served"] += 1
        kind = served_type(data)
        headers = {"cache-control": MEDIA_CACHE_CONTROL, **media_headers(kind, match[0])}
        return Response(data, media_type=kind, headers=headers)

    return media


def task_routes(state: EmulatorState) -> list[BaseRoute]:
    """Routes for every family's create path, the result endpoint and media downloads."""
    routes: list[BaseRoute] = [
        Route("/v1/result/{id}", _result_endpoint(state), methods=["GET"]),
        Route("/media/{name}", _media_endpoint(state), methods=["GET"]),
    ]
    routes.extend(
        Route(fam.create_path, _create_endpoint(state, fam), methods=["POST"])
        for fam in FAMILIES.values()
    )
    return routes
