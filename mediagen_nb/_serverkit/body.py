"""Bounded request bodies: a byte cap, one total deadline per body, a strict JSON parse.

The deadline counts from the first read to the last byte however the body is split, so a
client dripping a byte at a time holds a connection no longer than a silent one.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from tempfile import SpooledTemporaryFile
from typing import IO, Any, Final

from starlette.types import Message, Receive, Scope, Send

from mediagen_nb._serverkit.errors import JSON_KEY, JSON_TYPE

MAX_BODY_BYTES: Final = 1024 * 1024
"""Largest accepted JSON request body (1 MiB)."""
BODY_DEADLINE_S = 30.0
"""Longest time a whole JSON request body may take to arrive (then 408)."""
SPOOL_MEMORY_BYTES: Final = 1024 * 1024
FILE_CHUNK_BYTES: Final = 256 * 1024
UPLOAD_DEADLINE_S = 120.0
"""Longest time a whole upload (up to 20 MiB: 1.4 Mbit/s) may take to arrive (then 408)."""

CLOSE: Final = {"connection": "close"}
"""Sent with a refusal in the middle of a body: the rest of it is never read."""
Fail = Callable[..., Awaitable[None]]
"""Sends an error response: ``fail(status, message, headers=...)``."""

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def parse_json(raw: bytes) -> tuple[Any, str | None]:
    """(value, None) for a good JSON body, (None, why) otherwise."""
    if not raw.strip():
        return None, "request body is empty; send a JSON object"
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError:
        return None, "request body is not valid UTF-8"
    except RecursionError:
        return None, "request body is nested too deeply"
    except ValueError as error:
        return None, f"request body is not valid JSON: {error}"
    if _SURROGATE_ESCAPE.search(raw) and _has_lone_surrogate(value):
        return None, "request body contains a lone UTF-16 surrogate escape"
    return value, None


def header_problem(
    headers: dict[bytes, bytes], limit: int, *, json_body: bool = True
) -> tuple[int, str] | None:
    """(status, message) when a POST's headers already rule its body out, else None."""
    length = headers.get(b"content-length")
    if length is not None and not length.strip().isdigit():
        return 400, "invalid Content-Length header"
    if length is not None and int(length) > limit:
        return 413, f"request body is larger than {limit} bytes"
    ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if json_body and ctype != b"application/json" and not ctype.endswith(b"+json"):
        shown = ctype.decode("latin-1")[:80] or "none"
        return 415, f"Content-Type must be application/json (got {shown})"
    return None


def replaying(raw: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the app the body already read, then the rest of the stream."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}
        return await receive()

    return replay


async def read_capped(
    receive: Receive, fail: Fail, limit: int = MAX_BODY_BYTES, deadline_s: float | None = None
) -> bytes | None:
    """The whole body; None (after answering 408 or 413) when it is not complete within
    ``deadline_s`` (default ``BODY_DEADLINE_S``) or grows past ``limit`` bytes, or when the
    client went away."""
    chunks: list[bytes] = []
    async for chunk in capped_chunks(receive, fail, limit, deadline_s):
        if chunk is None:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def capped_chunks(
    receive: Receive, fail: Fail, limit: int, deadline_s: float | None = None
) -> AsyncIterator[bytes | None]:
    """The body's parts as they arrive; a final None (after answering 408 or 413, or when the
    client went away) when the body is refused, see :func:`read_capped`."""
    wait = BODY_DEADLINE_S if deadline_s is None else deadline_s
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    size = 0
    more = True
    while more:
        try:
            async with asyncio.timeout_at(end):
                message = await receive()
        except TimeoutError:
            await fail(408, f"the request body did not arrive within {wait:g} s", headers=CLOSE)
            yield None
            return
        if message["type"] == "http.disconnect":
            yield None
            return
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            await fail(413, f"request body is larger than {limit} bytes", headers=CLOSE)
            yield None
            return
        more = bool(message.get("more_body", False))
        yield chunk


async def spool_body(
    receive: Receive, fail: Fail, limit: int, deadline_s: float | None = None
) -> SpooledTemporaryFile[bytes] | None:
    """The body in a temporary file (in memory up to ``SPOOL_MEMORY_BYTES``, then on disk),
    rewound; None when refused (see :func:`read_capped`). The caller closes the file."""
    spooled: SpooledTemporaryFile[bytes]
    spooled = SpooledTemporaryFile(max_size=SPOOL_MEMORY_BYTES)  # noqa: SIM115 (caller closes it)
    try:
        async for chunk in capped_chunks(receive, fail, limit, deadline_s):
            if chunk is None:
                spooled.close()
                return None
            spooled.write(chunk)
    except BaseException:
        spooled.close()
        raise
    spooled.seek(0)
    return spooled


async def file_chunks(file: IO[bytes], size: int = FILE_CHUNK_BYTES) -> AsyncIterator[bytes]:
    """A file's bytes from where it stands, ``size`` bytes at a time, read off the loop."""
    while chunk := await asyncio.to_thread(file.read, size):
        yield chunk


async def read_json_body(
    scope: Scope,
    receive: Receive,
    fail: Fail,
    limit: int = MAX_BODY_BYTES,
) -> Receive | None:
    """Check and read a JSON POST body: the value goes in the scope under ``JSON_KEY`` and
    the bytes are replayed to the app; None after answering 400, 408, 413 or 415."""
    problem = header_problem(dict(scope["headers"]), limit)
    if problem is not None:
        await fail(*problem)
        return None
    raw = await read_capped(receive, fail, limit)
    if raw is None:
        return None
    value, why = parse_json(raw)
    if why is not None:
        await fail(400, why)
        return None
    scope[JSON_KEY] = value
    return replaying(raw, receive)


async def send_json(send: Send, status: int, body: bytes, headers: Mapping[str, str]) -> None:
    """Send a JSON answer straight on an ASGI ``send`` (a middleware's fast path)."""
    raw = [
        (b"content-type", JSON_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
        *((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
