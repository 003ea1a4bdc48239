"""The gateway's pure-ASGI front: student codes and bounded bodies, before any route.

It lets result files and the wall through, checks every other request's credential, answers
students' result polls from the gateway's copy (``fast_result``) and reads each POST body
once, within the time and size limits.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Final

from starlette.types import ASGIApp, Receive, Scope, Send

from mediagen_nb._serverkit import body as bodies
from mediagen_nb._serverkit.body import (
    Fail,
    header_problem,
    read_json_body,
    replaying,
    send_json,
    spool_body,
)
from mediagen_nb._serverkit.errors import protocol_of, send_error
from mediagen_nb._serverkit.urls import API_PREFIX
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._gateway import STUDENT_KEY
from mediagen_nb.classroom._hub import HubAuth, HubUnavailableError
from mediagen_nb.classroom._routes import UPLOAD_KEY, UPLOAD_PATH, Reply
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._throttle import Guard, Window, retry_after

MAX_UPLOAD_BYTES: Final = 20 * 1024 * 1024
UPLOADS_IN_FLIGHT: Final = 2
"""Uploads read and forwarded at once; more wait their turn unread (memory stays bounded)."""
OPEN_PREFIXES: Final = ("/api/media/", "/wall")
STUDENT_PREFIXES: Final = ("/api/", "/gateway/")
RESULT_PREFIX: Final = "/api/v1/result/"
FastResult = Callable[[Scope, Student, str], Reply]
Turned = tuple[int, str, dict[str, str]]
"""A request turned away at the door: status, message, headers."""
UNKNOWN: Final[Turned] = (
    401,
    "missing, unknown or revoked class code: set your API key to the code your teacher gave you",
    {"www-authenticate": "Bearer"},
)
log = logging.getLogger("mediagen_nb.classroom")


def credential(scope: Scope) -> str | None:
    """The credential a request carries (Bearer token or ``x-api-key``)."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
        elif name == b"x-api-key" and value.strip():
            return bytes(value).decode("latin-1").strip()
    return None


def client_address(scope: Scope) -> str:
    """The client's address as the server saw it ('unknown' without one)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _too_many(what: str, wait: float) -> Turned:
    seconds = retry_after(wait)
    return (
        429,
        f"too many {what} from your address; try again in {seconds} s",
        {"retry-after": seconds},
    )


class GatewayFront:
    """See the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        state: ClassState,
        fast_result: FastResult | None = None,
        guard: Guard | None = None,
        hub: HubAuth | None = None,
    ) -> None:
        self.app = app
        self.state = state
        self.hub = hub
        self.fast_result = fast_result
        self.guard = guard if guard is not None else Guard()
        self._upload_slots = asyncio.Semaphore(UPLOADS_IN_FLIGHT)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        protocol = protocol_of(path)

        async def fail(status: int, message: str, **kwargs: Any) -> None:
            await send_error(send, status, message, protocol=protocol, **kwargs)

        if not path.startswith(STUDENT_PREFIXES):
            await fail(404, f"no endpoint at {path}")
            return
        student = await self._admit(scope)
        if not isinstance(student, Student):
            status, message, headers = student
            await fail(status, message, headers=headers)
            return
        scope[STUDENT_KEY] = student
        task_id = path[len(RESULT_PREFIX) :]
        fast = scope["method"] == "GET" and path.startswith(RESULT_PREFIX) and "/" not in task_id
        if fast and self.fast_result is not None:
            await send_json(send, *self.fast_result(scope, student, task_id))
            return
        if scope["method"] == "POST" and path == API_PREFIX + UPLOAD_PATH:
            await self._upload(scope, receive, send, fail)
            return
        if scope["method"] == "POST":
            replay = await read_json_body(scope, receive, fail)
            if replay is None:
                return
            receive = replay
        await self.app(scope, receive, send)

    async def _upload(self, scope: Scope, receive: Receive, send: Send, fail: Fail) -> None:
        """An upload: one of ``UPLOADS_IN_FLIGHT`` at a time, spooled to a temporary file
        that the route streams upstream (``UPLOAD_KEY``), at most ``MAX_UPLOAD_BYTES``."""
        problem = header_problem(dict(scope["headers"]), MAX_UPLOAD_BYTES, json_body=False)
        if problem is not None:
            await fail(*problem)
            return
        async with self._upload_slots:
            deadline = bodies.UPLOAD_DEADLINE_S
            spooled = await spool_body(receive, fail, MAX_UPLOAD_BYTES, deadline)
            if spooled is None:
                return
            with spooled:
                scope[UPLOAD_KEY] = spooled
                await self.app(scope, replaying(b"", receive), send)

    async def _admit(self, scope: Scope) -> Student | Turned:
        """The student a request's credential names (a new class-code name or hub user
        enrolled), or (status, message, headers): 401, 429 past a per-address limit
        (``_throttle``), or 503 when the hub does not answer."""
        token = credential(scope)
        if token is None:
            return UNKNOWN
        address = client_address(scope)
        joining = self.state.roster.joining(token)
        if joining is not None and (wait := self.guard.enrolments.wait(address)) is not None:
            self._report(self.guard.enrolments, address, "enrol_throttled", name=joining)
            return _too_many("new names", wait)
        student, new = self.state.roster.resolve(token)
        if student is not None:
            if new:
                self.guard.enrolments.add(address)
                self.state.enrolled(student, address)
            return student
        if self.hub is not None:
            found = await self._hub_student(token, address)
            if found is not None:
                return found
        if (wait := self.guard.wrong.wait(address)) is not None:
            self._report(self.guard.wrong, address, "wrong_codes_throttled")
            return _too_many("wrong codes", wait)
        self.guard.wrong.add(address)
        return UNKNOWN

    async def _hub_student(self, token: str, address: str) -> Student | Turned | None:
        """The hub user ``token`` belongs to, as a student (None: the hub does not know it)."""
        assert self.hub is not None
        try:
            user = await self.hub.user_for_token(token)
        except HubUnavailableError as error:
            log.warning("JupyterHub sign-in failed: %s", error)
            return 503, f"{error}; try again in a moment", {"retry-after": "5"}
        if user is None:
            return None
        student, new = self.state.roster.hub_user(user.name, user.groups)
        if student is None:
            return UNKNOWN
        if new:
            self.state.enrolled(student, address)
        self.state.groups.keep(student)
        return student

    def _report(self, window: Window, address: str, action: str, **data: Any) -> None:
        """Tell the teacher (ledger and log) once per lockout of ``address``."""
        if window.first_refusal(address):
            limit = f"{window.limit} per {window.window_s:g} s"
            self.state.ledger.log("-", action, address, limit=limit, **data)
            log.warning("%s from %s: more than %s", action, address, limit)
