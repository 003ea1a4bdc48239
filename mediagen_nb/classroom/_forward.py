"""Sending a student's request upstream and the answer back, the key swapped in and out.

Only a few request headers go upstream (content type, accept, the Anthropic version and
beta headers); the student's credential is dropped and the teacher's key written instead.
Only a few response headers come back (content type, ``Retry-After``, request ids, the
emulator's speed). An upstream error body passes through :func:`redact` (no key can leak
even if a service echoed one).

Streams (chat and messages with ``stream: true``) are sent on as they arrive: the upstream
response is opened with ``send(stream=True)`` and its raw bytes relayed by a
``StreamingResponse``; when the student disconnects, the relay is cancelled and the upstream
response closed. A :class:`UsageMeter` reads the relayed SSE to count tokens.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Final

import anyio
import httpx2
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from mediagen_nb._serverkit.errors import error_response
from mediagen_nb.classroom._upstream import Upstream
from mediagen_nb.client._config import redact
from mediagen_nb.types import ChatProtocol

REQUEST_HEADERS: Final = ("content-type", "accept", "anthropic-version", "anthropic-beta")
RESPONSE_HEADERS: Final = (
    "content-type",
    "retry-after",
    "x-request-id",
    "request-id",
    "x-mediagen-emulator-speed",
    "cache-control",
)
CHARS_PER_TOKEN: Final = 4
log = logging.getLogger("mediagen_nb.classroom")
OnDone = Callable[[int, str], None]
"""Called once a forwarded chat ends: tokens used, outcome (``ok``, ``error``, ``cut``)."""


def request_headers(request: Request, upstream: Upstream) -> dict[str, str]:
    """The headers sent upstream for ``request``."""
    headers = {k: v for k in REQUEST_HEADERS if (v := request.headers.get(k)) is not None}
    headers.update(upstream.auth_headers())
    return headers


def response_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The upstream response headers a student may see."""
    return {k: v for k in RESPONSE_HEADERS if (v := headers.get(k)) is not None}


def describe(error: BaseException) -> str:
    """``Type: message`` of an error, keys redacted (for the ledger and the log)."""
    return redact(f"{type(error).__name__}: {error}")


def relay(response: httpx2.Response, protocol: ChatProtocol | None = None) -> Response:
    """A read upstream response as a Starlette response (error bodies redacted).

    An upstream 401 means the teacher's key was refused: the student gets a 502 saying so
    (their own code was fine), in the endpoint's error shape.
    """
    if response.status_code == 401:
        return error_response(
            502,
            "the service refused the class's key; please tell your teacher",
            protocol=protocol,
        )
    body = response.content
    if response.status_code >= 400:
        body = redact(response.text).encode("utf-8")
    return Response(
        body, status_code=response.status_code, headers=response_headers(response.headers)
    )


class UsageMeter:
    """Counts the tokens of a chat reply from its JSON or from its SSE stream.

    The service's own ``usage`` (OpenAI ``prompt_tokens``/``completion_tokens``, Anthropic
    ``input_tokens``/``output_tokens``) wins; without one, the streamed text's length over
    ``CHARS_PER_TOKEN`` is the estimate.
    """

    def __init__(self) -> None:
        self.reported: dict[str, int] = {}
        self.text_chars = 0
        self._pending = b""

    @property
    def tokens(self) -> int:
        """Tokens used, as well as known."""
        if self.reported:
            return sum(self.reported.values())
        return -(-self.text_chars // CHARS_PER_TOKEN)

    def read_object(self, data: Any) -> None:
        """Take usage (and text length) from one JSON object."""
        if not isinstance(data, dict):
            return
        usage = data.get("usage")
        if usage is None and isinstance(data.get("message"), dict):
            usage = data["message"].get("usage")
        if isinstance(usage, dict):
            for name in ("prompt_tokens", "completion_tokens", "input_tokens", "output_tokens"):
                value = usage.get(name)
                if isinstance(value, int) and value >= self.reported.get(name, 0):
                    self.reported[name] = value
        self.text_chars += _text_length(data)

    def feed(self, chunk: bytes) -> None:
        """Read the complete SSE lines in ``chunk`` (a partial line waits for the next)."""
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            stripped = line.strip()
            if not stripped.startswith(b"data:"):
                continue
            payload = stripped[5:].strip()
            if payload and payload != b"[DONE]":
                try:
                    self.read_object(json.loads(payload))
                except ValueError:
                    continue


def _text_length(data: dict[str, Any]) -> int:
    """Characters of generated text in a reply, chunk or event."""
    total = 0
    for choice in data.get("choices") or ():
        if isinstance(choice, dict):
            for part in (choice.get("delta"), choice.get("message")):
                if isinstance(part, dict) and isinstance(part.get("content"), str):
                    total += len(part["content"])
    delta = data.get("delta")
    if isinstance(delta, dict) and isinstance(delta.get("text"), str):
        total += len(delta["text"])
    for block in data.get("content") or ():
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            total += len(block["text"])
    return total


async def forward_chat(
    *,
    http: httpx2.AsyncClient,
    upstream: Upstream,
    request: Request,
    url: str,
    raw: bytes,
    on_done: OnDone,
    protocol: ChatProtocol,
) -> Response:
    """Forward a chat or messages request, streaming the reply through as it arrives."""
    outgoing = http.build_request(
        "POST", url, content=raw, headers=request_headers(request, upstream)
    )
    response = await http.send(outgoing, stream=True)
    upstream.note_speed(response.headers)
    meter = UsageMeter()
    ctype = response.headers.get("content-type", "")
    if response.status_code >= 400 or "text/event-stream" not in ctype:
        try:
            await response.aread()
        finally:
            await response.aclose()
        ok = response.status_code < 400
        if ok:
            with contextlib.suppress(ValueError):
                meter.read_object(response.json())
        on_done(meter.tokens, "ok" if ok else "error")
        return relay(response, protocol)

    async def body() -> AsyncIterator[bytes]:
        outcome = "cut"
        try:
            async for chunk in response.aiter_raw():
                meter.feed(chunk)
                yield chunk
            outcome = "ok"
        except httpx2.HTTPError as error:
            log.warning(
                "the upstream stream of %s broke: %s",
                url,
                describe(error),
            )
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()
                on_done(meter.tokens, outcome)

    return StreamingResponse(
        body(), status_code=response.status_code, headers=response_headers(response.headers)
    )
