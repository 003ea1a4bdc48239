"""The service interface as students see it: every route forwards, or answers from the copy.

``/api/...`` is the students' ``base_url``, ``/gateway/...`` their ``text_base_url``; the
front (``_front``) has already checked the code and read the body. A student sees only their
own tasks: another student's id answers 404.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import IO, Any, Final

import httpx2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from mediagen_nb._serverkit.body import file_chunks
from mediagen_nb._serverkit.errors import dumps, error_body, error_response
from mediagen_nb._serverkit.urls import media_root
from mediagen_nb.catalog import FAMILIES, Family
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._forward import relay, request_headers
from mediagen_nb.classroom._gateway import Gateway, student_of
from mediagen_nb.classroom._hub import HubUnavailableError
from mediagen_nb.classroom._me import ME_PATH, me_endpoint
from mediagen_nb.classroom._media import media_response
from mediagen_nb.classroom._pipeline import chat, create_task, upstream_failure
from mediagen_nb.classroom._refusals import asset_refusal_response
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._upstream import SPEED_HEADER
from mediagen_nb.types import ChatProtocol

ASSET_PATHS: Final = (
    ("/svcVideo2/asset/upload", ("POST",)),
    ("/svcVideo2/asset/{asset_id}", ("GET", "DELETE")),
    ("/asset/sd2Manxue/assetUpload", ("POST",)),
    ("/asset/sd2Manxue/assetStatus", ("POST",)),
)
UPLOAD_PATH: Final = "/uploads"
UPLOAD_KEY: Final = "mediagen.upload"
"""Scope key under which the front middleware puts an upload's spooled file."""
_MEDIA_NAME = re.compile(r"^[A-Za-z0-9_-]{8,64}\.[a-z0-9]{1,5}$")
Endpoint = Callable[[Request], Awaitable[Response]]
Reply = tuple[int, bytes, dict[str, str]]


def public_result(task: TaskRecord, media_base: str) -> dict[str, Any]:
    """The result object a student sees: the service's, with the gateway's media URL."""
    body: dict[str, Any] = dict(task.result or {})
    body.setdefault("id", task.id)
    body.setdefault("model", task.model)
    body.setdefault("created", int(task.created))
    body["status"] = task.status
    body["error"] = task.error if task.status in ("failed", "cancelled") else None
    if task.status == "completed" and task.media:
        body["image_url" if task.kind == "image" else "video_url"] = media_base + task.media
    return body


def result_reply(gw: Gateway, scope: Scope, student: Student, task_id: str) -> Reply:
    """``GET /v1/result/{id}`` from the gateway's copy: (status, body, headers).

    The front middleware calls it directly (the path students poll skips the router).
    """
    task = gw.state.task_for(task_id, student.name)
    if task is None:
        return 404, error_body(404, f"no task {task_id} of yours in this class"), {}
    task.student_polls += 1
    gw.count("student_polls")
    headers = {SPEED_HEADER: f"{gw.upstream.speed:g}"} if gw.upstream.kind == "emulator" else {}
    return 200, dumps(public_result(task, media_root(scope))), headers


def _result(gw: Gateway) -> Endpoint:
    async def result(request: Request) -> Response:
        status, body, headers = result_reply(
            gw, request.scope, student_of(request), request.path_params["id"]
        )
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    return result


def _media(gw: Gateway) -> Endpoint:
    async def media(request: Request) -> Response:
        name = request.path_params["name"]
        task = gw.state.task_by_media(name) if _MEDIA_NAME.match(name) else None
        if task is None or not await _may_see(gw, request, task):
            return error_response(404, "no such media on this gateway")
        return media_response(gw.media_dir / name, name)

    return media


async def _may_see(gw: Gateway, request: Request, task: TaskRecord) -> bool:
    """Whether this request may fetch a task's result: anyone when it is public (on the
    wall); while it waits for approval, only its student (their code or hub token, as our
    client sends it to its own origin) and the teacher; a hidden item only the teacher."""
    if gw.state.moderation.public(task):
        return True
    scheme, _, bearer = request.headers.get("authorization", "").partition(" ")
    token = bearer.strip() if scheme.lower() == "bearer" else request.headers.get("x-api-key", "")
    if not token:
        return False
    if gw.is_teacher(token):
        return True
    if task.hidden or gw.state.roster.joining(token) is not None:
        return False
    owner, _ = gw.state.roster.resolve(token)
    name = owner.name if owner is not None else await _hub_name(gw, token)
    return name is not None and name.casefold() == task.student.casefold()


async def _hub_name(gw: Gateway, token: str) -> str | None:
    """The hub user a token names (None: no hub, an unknown token, or no answer)."""
    if gw.hub is None:
        return None
    try:
        user = await gw.hub.user_for_token(token)
    except HubUnavailableError:
        return None
    return None if user is None else user.name


def _asset(gw: Gateway, path: str) -> Endpoint:
    async def asset(request: Request) -> Response:
        student = student_of(request)
        refusal = gw.state.check_asset() if request.method != "GET" else None
        if refusal is not None:
            gw.state.ledger.log(student.name, "refused", path, reason=refusal)
            return asset_refusal_response(refusal)
        headers = request_headers(request, gw.upstream)
        content = await _outgoing(request, headers)
        try:
            response = await gw.client().request(
                request.method,
                gw.upstream.base_url + request.url.path.removeprefix("/api"),
                content=content,
                headers=headers,
            )
        except httpx2.HTTPError as error:
            return upstream_failure(error, f"{student.name}'s {request.method} {path}")
        gw.upstream.note_speed(response.headers)
        gw.state.ledger.log(
            student.name, "asset", path, method=request.method, status=response.status_code
        )
        return relay(response)

    return asset


async def _outgoing(request: Request, headers: dict[str, str]) -> bytes | AsyncIterator[bytes]:
    """The body to send upstream: an upload streams from its spooled file (its length set
    in ``headers``), any other body is the bytes the front read."""
    spooled: IO[bytes] | None = request.scope.get(UPLOAD_KEY)
    if spooled is None:
        return await request.body()
    headers["content-length"] = str(spooled.seek(0, os.SEEK_END))
    spooled.seek(0)
    return file_chunks(spooled)


def _chat(gw: Gateway, path: str, protocol: ChatProtocol) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        return await chat(gw, request, path, protocol)

    return endpoint


def _create(gw: Gateway, fam: Family) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        return await create_task(gw, request, fam)

    return endpoint


def student_routes(gw: Gateway) -> tuple[list[BaseRoute], list[BaseRoute]]:
    """(routes under ``/api``, routes under ``/gateway``)."""
    api: list[BaseRoute] = [
        Route("/v1/result/{id}", _result(gw), methods=["GET"]),
        Route("/media/{name}", _media(gw), methods=["GET"]),
        Route(ME_PATH, me_endpoint(gw), methods=["GET"]),
        Route(UPLOAD_PATH, _asset(gw, UPLOAD_PATH), methods=["POST"]),
    ]
    api += [Route(fam.create_path, _create(gw, fam), methods=["POST"]) for fam in FAMILIES.values()]
    api += [Route(path, _asset(gw, path), methods=list(m)) for path, m in ASSET_PATHS]
    text: list[BaseRoute] = [
        Route(
            "/v1/chat/completions",
            _chat(gw, "/v1/chat/completions", "chat_completions"),
            methods=["POST"],
        ),
        Route("/v1/messages", _chat(gw, "/v1/messages", "messages"), methods=["POST"]),
    ]
    return api, text
