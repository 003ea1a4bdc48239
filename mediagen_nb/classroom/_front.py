"""The gateway's pure-ASGI front: student codes and bounded bodies, before any route.

1. ``/api/media/...`` (result files: the unguessable name is the credential, as for the
   service's result URLs) and ``/wall...`` (the wall checks the teacher token itself) pass.
2. Every other request needs a student's credential (``_codes``) in
   ``Authorization: Bearer`` or ``x-api-key``; else 401 in the endpoint's error shape
   (OpenAI's on chat completions, Anthropic's on messages, the emulator's elsewhere). The
   student goes in the scope under ``STUDENT_KEY``; a name joining with the class code is
   enrolled here. Wrong codes and new names are limited per client address (``_throttle``:
   429 with ``Retry-After``, logged for the teacher).
3. ``GET /api/v1/result/{id}``, the path students poll, is answered right here from the
   gateway's copy (``fast_result``), skipping the router, as the emulator does.
4. POST bodies: at most ``MAX_BODY_BYTES`` (1 MiB, as the emulator; ``MAX_UPLOAD_BYTES`` on
   ``/api/uploads``), else 413; JSON endpoints need a JSON content type (415) and a valid
   JSON body (400), parsed once and put in the scope under ``JSON_KEY``; the bytes are
   replayed to the route.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from starlette.types import ASGIApp, Receive, Scope, Send

from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._gateway import STUDENT_KEY
from mediagen_nb.classroom._routes import UPLOAD_PATH, Reply
from mediagen_nb.classroom._state import ClassState
from mediagen_nb.classroom._throttle import Guard, Window, retry_after
from mediagen_nb.emulator._errors import JSON_KEY, protocol_of, send_error
from mediagen_nb.emulator._middleware import MAX_BODY_BYTES, parse_json, read_capped, replaying

MAX_UPLOAD_BYTES: Final = 20 * 1024 * 1024
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


def header_problem(
    headers: dict[bytes, bytes], limit: int, *, json_body: bool
) -> tuple[int, str] | None:
    """(status, message) when a POST's headers already rule its body out, else None."""
    length = headers.get(b"content-length", b"0").strip()
    if not length.isdigit():
        return 400, "invalid Content-Length header"
    if int(length) > limit:
        return 413, f"request body is larger than {limit} bytes"
    ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if json_body and ctype != b"application/json" and not ctype.endswith(b"+json"):
        return 415, "Content-Type must be application/json"
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
    ) -> None:
        self.app = app
        self.state = state
        self.fast_result = fast_result
        self.guard = guard if guard is not None else Guard()

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
        student = self._admit(scope)
        if not isinstance(student, Student):
            status, message, headers = student
            await fail(status, message, headers=headers)
            return
        scope[STUDENT_KEY] = student
        task_id = path[len(RESULT_PREFIX) :]
        fast = scope["method"] == "GET" and path.startswith(RESULT_PREFIX) and "/" not in task_id
        if fast and self.fast_result is not None:
            await _send(send, *self.fast_result(scope, student, task_id))
            return
        if scope["method"] == "POST":
            is_upload = path == "/api" + UPLOAD_PATH
            replay = await self._read_body(scope, receive, fail, json_body=not is_upload)
            if replay is None:
                return
            receive = replay
        await self.app(scope, receive, send)

    def _admit(self, scope: Scope) -> Student | Turned:
        """The student a request's credential names (a new class-code name enrolled), or
        (status, message, headers): 401, or 429 past a per-address limit (``_throttle``)."""
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
        if (wait := self.guard.wrong.wait(address)) is not None:
            self._report(self.guard.wrong, address, "wrong_codes_throttled")
            return _too_many("wrong codes", wait)
        self.guard.wrong.add(address)
        return UNKNOWN

    def _report(self, window: Window, address: str, action: str, **data: Any) -> None:
        """Tell the teacher (ledger and log) once per lockout of ``address``."""
        if window.first_refusal(address):
            limit = f"{window.limit} per {window.window_s:g} s"
            self.state.ledger.log("-", action, address, limit=limit, **data)
            log.warning("%s from %s: more than %s", action, address, limit)

    async def _read_body(
        self, scope: Scope, receive: Receive, fail: Any, *, json_body: bool
    ) -> Receive | None:
        limit = MAX_BODY_BYTES if json_body else MAX_UPLOAD_BYTES
        problem = header_problem(dict(scope["headers"]), limit, json_body=json_body)
        if problem is not None:
            await fail(*problem)
            return None
        raw = await read_capped(receive, fail, limit, timeout_s=None)
        if raw is None:
            return None
        if json_body:
            value, invalid = parse_json(raw)
            if invalid is not None:
                await fail(400, invalid)
                return None
            scope[JSON_KEY] = value
        return replaying(raw, receive)


async def _send(send: Send, status: int, body: bytes, headers: dict[str, str]) -> None:
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
