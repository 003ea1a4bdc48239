"""The service interface as students see it: every route forwards, or answers from the copy.

``/api/...`` is the students' ``base_url`` (image and video creates of every family,
``/v1/result/{id}``, ``/media/{name}``, both asset libraries, the emulator's ``/uploads``);
``/gateway/...`` is their ``text_base_url`` (chat completions, messages). The front
middleware (``_front``) has already checked the student's code and read the JSON body.
A student sees only their own tasks: another student's id answers 404.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import httpx2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from mediagen_nb._serverkit.body import file_chunks
from mediagen_nb._serverkit.errors import JSON_KEY, dumps, error_body, error_response
from mediagen_nb._serverkit.urls import media_root
from mediagen_nb.catalog import FAMILIES, Family
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._forward import describe, forward_chat, relay, request_headers
from mediagen_nb.classroom._ledger import TaskRecord
from mediagen_nb.classroom._media import media_response
from mediagen_nb.classroom._refusals import (
    asset_refusal_response,
    chat_refusal_response,
    refused_task_body,
)
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._tracker import Tracker
from mediagen_nb.classroom._upstream import SPEED_HEADER, Upstream
from mediagen_nb.client._tasks import normalize_status
from mediagen_nb.types import ChatProtocol

STUDENT_KEY: Final = "mediagen.student"
"""Scope key under which the front middleware puts the authenticated :class:`Student`."""
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
log = logging.getLogger("mediagen_nb.classroom")


@dataclass
class Gateway:
    """What every route needs; ``http`` exists while the server runs (its lifespan)."""

    state: ClassState
    upstream: Upstream
    media_dir: Path
    http: httpx2.AsyncClient | None = None
    tracker: Tracker | None = None
    counters: dict[str, int] = field(default_factory=dict)

    def client(self) -> httpx2.AsyncClient:
        """The shared upstream client (RuntimeError outside the server's lifespan)."""
        if self.http is None:
            raise RuntimeError("the gateway is not running")
        return self.http

    def count(self, name: str) -> None:
        """Bump a counter (shown to the teacher and the bench)."""
        self.counters[name] = self.counters.get(name, 0) + 1

    def stats(self) -> dict[str, int]:
        """Requests handled by kind, and the result polls sent upstream in all (this run)."""
        polls = sum(t.upstream_polls for t in list(self.state.tasks.values()))
        return {**self.counters, "upstream_polls": polls}


def student_of(request: Request) -> Student:
    """The student the front middleware authenticated."""
    student: Student = request.scope[STUDENT_KEY]
    return student


def prompt_of(body: Any) -> str:
    """The prompt of a create body (seedance: its text content), '' when none."""
    if not isinstance(body, dict):
        return ""
    if isinstance(body.get("prompt"), str):
        return str(body["prompt"])
    for part in body.get("content") or ():
        if isinstance(part, dict) and part.get("type") == "text":
            return str(part.get("text", ""))
    return ""


def upstream_failure(
    error: httpx2.HTTPError, what: str, protocol: ChatProtocol | None = None
) -> Response:
    """502 when the upstream did not answer: the cause is logged (a warning naming the
    request and the error) and its kind named to the student (``ReadTimeout``, ...)."""
    kind = type(error).__name__
    log.warning("the upstream did not answer %s: %s", what, describe(error))
    return error_response(
        502,
        f"the class's service did not answer ({kind}); try again in a moment",
        protocol=protocol,
    )


def _create(gw: Gateway, fam: Family) -> Endpoint:
    async def create(request: Request) -> Response:
        student = student_of(request)
        body = request.scope.get(JSON_KEY)
        model = body.get("model") if isinstance(body, dict) else None
        refusal = gw.state.check_task(student.name, fam.kind, model)
        if refusal is not None:
            return _refuse_task(
                gw, student=student, fam=fam, model=model, body=body, sentence=refusal
            )
        try:
            response = await gw.client().post(
                gw.upstream.base_url + fam.create_path,
                content=await request.body(),
                headers=request_headers(request, gw.upstream),
            )
        except httpx2.HTTPError as error:
            gw.state.release(student.name)
            gw.state.ledger.log(
                student.name, "create_lost", fam.id, model=str(model), error=describe(error)
            )
            return upstream_failure(error, f"{student.name}'s {fam.id} create")
        try:
            _record_created(gw, student=student, fam=fam, model=model, body=body, response=response)
        finally:
            gw.state.release(student.name)
        return relay(response)

    return create


def _record_created(
    gw: Gateway,
    *,
    student: Student,
    fam: Family,
    model: object,
    body: Any,
    response: httpx2.Response,
) -> None:
    gw.upstream.note_speed(response.headers)
    gw.count("creates")
    data = response.json() if response.status_code < 400 else None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        gw.state.ledger.log(student.name, "create_error", fam.id, status=response.status_code)
        return
    status = normalize_status(data.get("status"))
    now = time.time()
    record = TaskRecord(
        id=data["id"],
        student=student.name,
        kind=fam.kind,
        family=fam.id,
        model=str(model),
        prompt=prompt_of(body),
        status=status,
        created=now,
        updated=now,
        error=data.get("error") if status == "failed" else None,
        refused=status == "failed",
    )
    gw.state.put_task(record)
    gw.state.ledger.log(student.name, "created", record.id, family=fam.id, status=status)
    if gw.tracker is not None:
        gw.tracker.follow(record)


def _refuse_task(
    gw: Gateway, *, student: Student, fam: Family, model: object, body: Any, sentence: str
) -> Response:
    reply = refused_task_body(model, sentence)
    now = time.time()
    record = TaskRecord(
        id=reply["id"],
        student=student.name,
        kind=fam.kind,
        family=fam.id,
        model=str(model),
        prompt=prompt_of(body),
        status="failed",
        created=now,
        updated=now,
        error=sentence,
        result=dict(reply),
        refused=True,
    )
    gw.state.put_task(record)
    gw.state.ledger.log(student.name, "refused", record.id, family=fam.id, reason=sentence)
    gw.count("refused")
    return Response(dumps(reply), media_type="application/json")


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
        if task is None or task.hidden:
            return error_response(404, "no such media on this gateway")
        return media_response(gw.media_dir / name, name)

    return media


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
    async def chat(request: Request) -> Response:
        student = student_of(request)
        body = request.scope.get(JSON_KEY)
        model = body.get("model") if isinstance(body, dict) else None
        refusal = gw.state.check_chat(student.name, model)
        if refusal is not None:
            gw.state.ledger.log(student.name, "refused", path, reason=refusal)
            gw.count("refused")
            return chat_refusal_response(protocol, refusal)
        gw.count("chats")

        def done(tokens: int, outcome: str) -> None:
            gw.state.add_tokens(student.name, path, str(model), tokens, outcome)

        try:
            return await forward_chat(
                http=gw.client(),
                upstream=gw.upstream,
                request=request,
                url=gw.upstream.text_base_url + path,
                raw=await request.body(),
                on_done=done,
                protocol=protocol,
            )
        except httpx2.HTTPError as error:
            gw.state.ledger.log(
                student.name, "chat_lost", path, model=str(model), error=describe(error)
            )
            return upstream_failure(error, f"{student.name}'s {path}", protocol)

    return chat


def student_routes(gw: Gateway) -> tuple[list[BaseRoute], list[BaseRoute]]:
    """(routes under ``/api``, routes under ``/gateway``)."""
    api: list[BaseRoute] = [
        Route("/v1/result/{id}", _result(gw), methods=["GET"]),
        Route("/media/{name}", _media(gw), methods=["GET"]),
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
