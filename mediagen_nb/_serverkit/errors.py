"""HTTP-level error bodies and JSON bytes, in the emulator's shape or a chat protocol's.

Every HTTP error answers ``{"error": {"type", "message"}}``; on the text gateway's paths the
protocol's own envelope (``protocol_of``): Anthropic's on messages, OpenAI's on chat
completions. JSON is ASCII-safe, so any string a client sent can be echoed back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Send

from mediagen_nb._serverkit.urls import TEXT_PREFIX

JSON_TYPE: Final = "application/json"
JSON_KEY: Final = "mediagen.json"
"""Scope key under which the middleware puts the parsed JSON body of a POST."""
TRANSPORT_KEY: Final = "mediagen.transport"
"""Scope key under which the runner's protocol puts the connection's transport."""

ERROR_TYPES: Final[Mapping[int, str]] = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    405: "method_not_allowed_error",
    410: "gone_error",
    413: "request_too_large_error",
    415: "unsupported_media_type_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}
"""Error ``type`` per HTTP status (names follow the Anthropic-style error vocabulary)."""


def dumps(obj: Any) -> bytes:
    """Compact, ASCII-safe JSON bytes."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def json_response(
    obj: Any, status_code: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON response encoded with :func:`dumps`."""
    return Response(dumps(obj), status_code=status_code, headers=headers, media_type=JSON_TYPE)


TEXT_PATHS: Final[Mapping[str, str]] = {  # values: mediagen_nb.types.ChatProtocol
    TEXT_PREFIX + "/v1/chat/completions": "chat_completions",
    TEXT_PREFIX + "/v1/messages": "messages",
}


def protocol_of(path: str) -> str | None:
    """Which chat protocol's error envelope a request path gets (None: the emulator's own)."""
    return TEXT_PATHS.get(path.rstrip("/"))


def error_body(
    status_code: int,
    message: str,
    error_type: str | None = None,
    *,
    protocol: str | None = None,
    param: str | None = None,
) -> bytes:
    """The HTTP-level error body for ``status_code`` (in ``protocol``'s envelope if given)."""
    kind = error_type or ERROR_TYPES.get(status_code, "api_error")
    if protocol == "messages":
        return dumps({"type": "error", "error": {"type": kind, "message": message}})
    if protocol == "chat_completions":
        return dumps({"error": {"message": message, "type": kind, "param": param, "code": None}})
    return dumps({"error": {"type": kind, "message": message}})


def error_response(
    status_code: int,
    message: str,
    *,
    error_type: str | None = None,
    headers: Mapping[str, str] | None = None,
    protocol: str | None = None,
    param: str | None = None,
) -> Response:
    """An HTTP-level error as a Starlette response."""
    return Response(
        error_body(status_code, message, error_type, protocol=protocol, param=param),
        status_code=status_code,
        headers=headers,
        media_type=JSON_TYPE,
    )


def http_error_response(
    request: Request, exc: Exception, *, protocol: str | None = None
) -> Response:
    """Starlette's ``HTTPException`` (an unknown path, a wrong method, ...) in the error body:
    a 404 and a 405 name the path and method."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"no endpoint at {request.url.path}"
    elif exc.status_code == 405:
        message = f"method {request.method} is not allowed on {request.url.path}"
    else:
        message = exc.detail
    return error_response(exc.status_code, message, headers=exc.headers, protocol=protocol)


async def send_error(
    send: Send,
    status_code: int,
    message: str,
    *,
    error_type: str | None = None,
    headers: Mapping[str, str] | None = None,
    protocol: str | None = None,
) -> None:
    """Send an HTTP-level error straight on an ASGI ``send`` (used by the middleware)."""
    body = error_body(status_code, message, error_type, protocol=protocol)
    raw = [
        (b"content-type", JSON_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    raw.extend(
        (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()
    )
    await send({"type": "http.response.start", "status": status_code, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def format_seconds(seconds: float) -> str:
    """A ``Retry-After`` value: seconds with up to three decimals, never below 0.001."""
    text = f"{max(seconds, 0.001):.3f}".rstrip("0").rstrip(".")
    return text or "0.001"
