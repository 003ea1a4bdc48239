"""The pure-ASGI front of the emulator: speed header, request ids, auth, faults, body checks.

Each check is a small named step (``EmulatorMiddleware.steps``); their order and answers are
listed under "Inside the emulator" in ``docs/reference/design.md``.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mediagen_nb._serverkit.body import read_json_body, send_json
from mediagen_nb._serverkit.errors import format_seconds, protocol_of, send_error
from mediagen_nb._serverkit.urls import MEDIA_PREFIX
from mediagen_nb.emulator._faults import FaultCategory, drop_connection
from mediagen_nb.emulator._state import EmulatorState

SPEED_HEADER: Final = b"x-mediagen-emulator-speed"
RESULT_PREFIX: Final = "/api/v1/result/"
__all__ = ["EmulatorMiddleware", "category"]

FastResult = Callable[[Scope, str], tuple[int, bytes, Mapping[str, str]]]
"""Answers ``GET /api/v1/result/{id}`` from the scope and the id (no router, no Request)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_STATE_CHANGING: Final = frozenset({"POST", "DELETE", "PUT", "PATCH"})


def category(method: str, path: str) -> FaultCategory | None:
    """The fault category of a request (see ``_faults``)."""
    if path.startswith("/gateway/"):
        return "text"
    if path.startswith(RESULT_PREFIX):
        return "result"
    if path.startswith(MEDIA_PREFIX):
        return "media"
    if path.startswith(("/api/svcVideo2/", "/api/asset/")):
        return "asset"
    if method == "POST" and path.startswith("/api/v1/"):
        return "create"
    return None


def _with_request_id(body: bytes, request_id: bytes) -> bytes:
    """An Anthropic error body with its ``request_id`` (other bodies unchanged)."""
    try:
        value = json.loads(body)
    except ValueError:
        return body
    if not isinstance(value, dict) or value.get("type") != "error":
        return body
    value["request_id"] = request_id.decode("ascii")
    return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode("ascii")


class _Call:
    """One request on its way through the middleware's steps."""

    def __init__(self, scope: Scope, receive: Receive, send: Send, speed: bytes) -> None:
        self.scope = scope
        self.receive = receive
        self.path: str = scope["path"]
        self.method: str = scope["method"]
        self.protocol = protocol_of(self.path)
        self.error_after = False
        """An injected error is sent after the app has handled the request."""
        request_id = ("req_" + uuid.uuid4().hex[:24]).encode("ascii")
        stamp = [(SPEED_HEADER, speed), (b"x-request-id", request_id), (b"request-id", request_id)]

        held: list[Message] = []

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *stamp]
                if self.protocol == "messages" and message["status"] >= 400:
                    held.append(message)  # the body gets the id too (Anthropic's envelope)
                    return
            elif held and message["type"] == "http.response.body":
                start = held.pop()
                message["body"] = _with_request_id(message.get("body", b""), request_id)
                start["headers"] = [
                    (k, str(len(message["body"])).encode() if k == b"content-length" else v)
                    for k, v in start["headers"]
                ]
                await send(start)
            await send(message)

        self.send: Send = stamped

    async def fail(self, status: int, message: str, **kwargs: Any) -> None:
        """Answer with an error in the request's protocol envelope."""
        await send_error(self.send, status, message, protocol=self.protocol, **kwargs)


Step = Callable[[_Call], Awaitable[bool]]
"""One check of the middleware: True when it has answered the request (nothing else runs)."""


class EmulatorMiddleware:
    """Wraps the router; its checks run in the order of ``steps`` (listed on the design page)."""

    def __init__(
        self,
        app: ASGIApp,
        state: EmulatorState,
        post_paths: Collection[str],
        fast_result: FastResult | None = None,
    ) -> None:
        self.app = app
        self.state = state
        self.post_paths = frozenset(post_paths)
        self.fast_result = fast_result
        self.steps: tuple[Step, ...] = (
            self._check_auth,
            self._check_path,
            self._inject_faults,
            self._answer_result,
            self._check_body,
        )
        """The checks, in order; a step that answers ends the request."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        call = _Call(scope, receive, send, self.state.speed_header)
        for step in self.steps:
            if await step(call):
                return
        await self._handle(call)

    async def _check_auth(self, call: _Call) -> bool:
        if call.path.startswith(MEDIA_PREFIX) or self._authorized(call.scope):
            return False
        await call.fail(
            401,
            "missing or invalid API key: send 'Authorization: Bearer <key>'",
            headers={"www-authenticate": "Bearer"},
        )
        return True

    async def _check_path(self, call: _Call) -> bool:
        if not _CONTROL.search(call.path):
            return False
        await call.fail(400, "the request path contains control characters")
        return True

    async def _inject_faults(self, call: _Call) -> bool:
        faults = self.state.faults
        if not faults.applies(category(call.method, call.path)):
            return False
        if faults.config.latency_s > 0:
            faults.count("latency")
            await asyncio.sleep(faults.config.latency_s)
        fault = faults.draw()
        if fault == "drop":
            faults.count("drop")
            await drop_connection(call.scope, call.receive, call.send)
            return True
        if fault == "rate_limit":
            faults.count("rate_limit")
            wait = format_seconds(max(0.05, 1.0 / self.state.speed))
            await call.fail(
                429,
                "rate limited (injected fault); retry after the Retry-After seconds",
                headers={"retry-after": wait},
            )
            return True
        if fault == "error" and call.method in _STATE_CHANGING:
            call.error_after = True
        elif fault == "error":
            await self._send_fault_error(call.send, call.protocol)
            return True
        return False

    async def _answer_result(self, call: _Call) -> bool:
        """``GET /api/v1/result/{id}`` answered here: the path clients poll skips the router."""
        task_id = call.path[len(RESULT_PREFIX) :]
        if (
            call.method != "GET"
            or self.fast_result is None
            or not call.path.startswith(RESULT_PREFIX)
            or "/" in task_id
        ):
            return False
        await send_json(call.send, *self.fast_result(call.scope, task_id))
        return True

    async def _check_body(self, call: _Call) -> bool:
        if call.method != "POST" or call.path not in self.post_paths:
            return False
        replay = await read_json_body(call.scope, call.receive, call.fail)
        if replay is None:
            return True
        call.receive = replay
        return False

    async def _handle(self, call: _Call) -> None:
        """Hand the request to the router (an injected error replaces its answer)."""
        if not call.error_after:
            await self.app(call.scope, call.receive, call.send)
            return

        async def swallow(message: Message) -> None:
            return None

        await self.app(call.scope, call.receive, swallow)
        self.state.faults.count("error_after_handling")
        await self._send_fault_error(call.send, call.protocol)

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, token = value.partition(b" ")
                if scheme.lower() == b"bearer" and self.state.key_matches(token.strip()):
                    return True
            elif name == b"x-api-key" and self.state.key_matches(value.strip()):
                return True
        return False

    async def _send_fault_error(self, send: Send, protocol: str | None) -> None:
        faults = self.state.faults
        status = faults.error_status()
        faults.count(f"error_{status}")
        if status == 503:
            wait = format_seconds(max(0.05, 1.0 / self.state.speed))
            overload = 529 if protocol == "messages" else 503
            await send_error(
                send,
                overload,
                "service overloaded (injected fault)",
                headers={"retry-after": wait},
                protocol=protocol,
            )
        else:
            await send_error(
                send,
                500,
                "internal server error (injected fault)",
                protocol=protocol,
            )
