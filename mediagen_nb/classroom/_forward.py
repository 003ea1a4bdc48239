"""Sending a student's request upstream and the answer back, the key swapped in and out.

Only a few headers pass either way and upstream error bodies are redacted. Streams are
relayed as they arrive and closed when the student disconnects (:class:`MeteredStream`),
their tokens counted on the way (:class:`UsageMeter`).
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
from starlette.types import Receive, Scope, Send

from mediagen_nb._serverkit.errors import error_response
from mediagen_nb.classroom._budget import estimate_tokens
from mediagen_nb.classroom._chat_turns import TURN_EXCERPT, answer_text
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
log = logging.getLogger("mediagen_nb.classroom")
OnDone = Callable[[str], None]
"""Called once a forwarded chat ends, with its outcome (``ok``, ``error``, ``cut``)."""


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

    Prompt: the service's ``prompt_tokens`` / ``input_tokens`` (cache reads and writes
    included), else ``prompt`` (the estimate made on the way in). Output: the service's
    ``completion_tokens`` / ``output_tokens`` for a reply that ended normally; for a cut reply,
    or one that reports none, at least the estimate from everything it generated (text,
    tool-call names and arguments, thinking: ``CHARS_PER_TOKEN`` characters per token).
    """

    def __init__(self, prompt: int = 0) -> None:
        self.prompt = prompt
        self.reported: dict[str, int] = {}
        self.out_chars = 0
        self.answer = ""
        """The start of the reply's text (``TURN_EXCERPT`` characters at most)."""
        self._pending = b""

    def tokens(self, *, complete: bool) -> int:
        """Tokens used, as well as known (``complete``: the reply ended normally)."""
        inputs = [self.reported[k] for k in _PROMPT_FIELDS if k in self.reported]
        prompt = sum(inputs) if inputs else self.prompt
        outputs = [self.reported[k] for k in _OUTPUT_FIELDS if k in self.reported]
        estimate = estimate_tokens(self.out_chars)
        if outputs and complete:
            return prompt + sum(outputs)
        return prompt + max(sum(outputs), estimate)

    def read_object(self, data: Any) -> None:
        """Take usage (and the length of what was generated) from one JSON object."""
        if not isinstance(data, dict):
            return
        for usage in (data.get("usage"), (data.get("message") or {}).get("usage")):
            if isinstance(usage, dict):
                for name in (*_PROMPT_FIELDS, *_OUTPUT_FIELDS):
                    value = usage.get(name)
                    if isinstance(value, int) and value >= self.reported.get(name, 0):
                        self.reported[name] = value
        self.out_chars += generated_chars(data)
        if len(self.answer) < TURN_EXCERPT:
            self.answer = (self.answer + answer_text(data))[:TURN_EXCERPT]

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


_PROMPT_FIELDS: Final = (
    "prompt_tokens",
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)
_OUTPUT_FIELDS: Final = ("completion_tokens", "output_tokens")
_GENERATED: Final = ("content", "text", "partial_json", "thinking", "arguments", "name", "refusal")
"""Fields whose string value is text a model generated, wherever they sit in a reply."""


def generated_chars(data: Any) -> int:
    """Characters a model generated in a reply, chunk or event (both protocols): text,
    tool-call names and arguments, streamed tool input, thinking, refusals."""
    if isinstance(data, list):
        return sum(generated_chars(item) for item in data)
    if not isinstance(data, dict):
        return 0
    total = 0
    for key, value in data.items():
        if key == "usage":
            continue
        if key == "input" and isinstance(value, dict):  # a whole tool_use block's arguments
            total += len(json.dumps(value)) if value else 0
        elif isinstance(value, str):
            total += len(value) if key in _GENERATED else 0
        elif isinstance(value, dict | list):
            total += generated_chars(value)
    return total


class MeteredStream(StreamingResponse):
    """A streamed reply relayed as it arrives; when it ends (finished, cut by the student,
    broken upstream or never sent), the upstream response is closed and ``on_done`` called
    once with the outcome (``ok`` or ``cut``)."""

    def __init__(
        self, response: httpx2.Response, meter: UsageMeter, on_done: OnDone, url: str
    ) -> None:
        self._upstream = response
        self._meter = meter
        self._on_done = on_done
        self._url = url
        self._outcome = "cut"
        super().__init__(
            self._relay(),
            status_code=response.status_code,
            headers=response_headers(response.headers),
        )

    async def _relay(self) -> AsyncIterator[bytes]:
        async for chunk in self._upstream.aiter_raw():
            self._meter.feed(chunk)
            yield chunk
        self._outcome = "ok"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except httpx2.HTTPError as error:
            log.warning("the upstream stream of %s broke: %s", self._url, describe(error))
            raise
        finally:
            with anyio.CancelScope(shield=True):
                await self._upstream.aclose()
            self._on_done(self._outcome)


async def forward_chat(
    *,
    http: httpx2.AsyncClient,
    upstream: Upstream,
    request: Request,
    url: str,
    raw: bytes,
    meter: UsageMeter,
    on_done: OnDone,
    protocol: ChatProtocol,
) -> Response:
    """Forward a chat or messages request, streaming the reply through as it arrives.

    A reply read whole calls ``on_done`` before this returns; a stream (a
    :class:`MeteredStream`) calls it when it ends.
    """
    outgoing = http.build_request(
        "POST", url, content=raw, headers=request_headers(request, upstream)
    )
    response = await http.send(outgoing, stream=True)
    upstream.note_speed(response.headers)
    ctype = response.headers.get("content-type", "")
    if response.status_code < 400 and "text/event-stream" in ctype:
        return MeteredStream(response, meter, on_done, url)
    try:
        await response.aread()
    finally:
        await response.aclose()
    ok = response.status_code < 400
    if ok:
        with contextlib.suppress(ValueError):
            meter.read_object(response.json())
    on_done("ok" if ok else "error")
    return relay(response, protocol)
