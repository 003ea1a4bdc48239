"""The shared HTTP core: one connection pool for both base URLs, auth, errors, speed.

Why at most ``MAX_IN_FLIGHT`` requests reach the pool: the design page, "One HTTP core,
at most 16 requests in flight".
"""

from __future__ import annotations

import asyncio
import json as jsonlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, Literal

import httpx2

from mediagen_nb import _env
from mediagen_nb._platform import is_browser
from mediagen_nb.types import Problem, RequestValidationError
from mediagen_nb.types._json import json_value_problems

from ._config import Settings, get_logger, redact_chain
from ._exceptions import (
    APIError,
    APITimeoutError,
    ConfigurationError,
    MalformedResponseError,
    connection_error,
)
from ._limits import (
    DOWNLOAD_HINT,
    JSON_HINT,
    MAX_JSON_BYTES,
    MaxDownload,
    declared_size,
    download_limits,
    read_capped,
)
from ._retry import IDEMPOTENT_EXTENSION, NO_RETRY_EXTENSION, RetryTransport, Sleep

logger = get_logger("mediagen_nb.client")

Base = Literal["base", "text"]
SPEED_HEADER = "x-mediagen-emulator-speed"
USER_AGENT = "mediagen_nb/0.1"
DEFAULT_TIMEOUT = httpx2.Timeout(60.0, connect=10.0)
POOL_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=100)
"""Connection pool of the default transport: idle connections are kept up to the maximum."""
MAX_IN_FLIGHT = 16
"""Requests handed to the pool at once (below ``POOL_LIMITS.max_connections``): more makes
httpcore2's per-request walk over the pool stall the event loop (design page)."""
ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer is read (its message is in the first few hundred bytes)."""


MIN_SPEED = 1.0
"""A speed header never slows the client's clock: deadlines never grow past the real ones."""
MAX_SPEED = 1_000.0
"""Nor speeds it up beyond this (a 10 s poll interval becomes 10 ms)."""


def parse_speed(value: str | None) -> float | None:
    """The emulator speed from its header, clamped to ``[MIN_SPEED, MAX_SPEED]``; None when
    absent or not a positive number."""
    if value is None:
        return None
    try:
        speed = float(value)
    except ValueError:
        return None
    if not speed > 0:  # NaN too
        return None
    return min(max(speed, MIN_SPEED), MAX_SPEED)


def encode_json(body: Any, url: str | None = None) -> bytes:
    """``body`` as strict JSON (RFC 8259) bytes; ``RequestValidationError`` naming the field.

    The last guard before the network: ``json.dumps`` would otherwise write ``NaN`` and
    ``Infinity``, which are not JSON. Bodies checked by ``validate_request`` never get here
    with one; this catches every other path.
    """
    try:
        return jsonlib.dumps(body, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        problems = list(json_value_problems(body))
        if not problems:
            problems = [Problem("(body)", f"cannot be sent as JSON: {exc}")]
        raise RequestValidationError(problems, httpx2.URL(url).path if url else None) from exc


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = httpx2.URL(url)
    return (parsed.scheme, parsed.host, parsed.port)


def status_problem(response: httpx2.Response) -> str | None:
    """Why a result download's answer is not the file, by its status: a redirect (never
    followed) or any other non-2xx answer (None when 2xx)."""
    status = response.status_code
    if 300 <= status < 400:
        where = response.headers.get("location", "elsewhere")
        return f"the result URL redirects to {where[:200]} (redirects are not followed)"
    if not 200 <= status < 300:
        return f"the result URL answered HTTP {status}, not the file"
    return None


def body_problem(response: httpx2.Response, size: int) -> str | None:
    """Why a downloaded body of ``size`` bytes is not the file: empty, or fewer bytes than
    ``Content-Length`` says (None when it is)."""
    if size == 0:
        return "the result URL answered an empty body"
    declared = declared_size(response)
    if declared is not None and declared != size:
        return f"the result body is {size} bytes, but Content-Length says {declared}"
    return None


async def error_body(response: httpx2.Response) -> str:
    """A streamed error answer's text, read up to ``ERROR_BODY_BYTES``; the response closed."""
    kept = bytearray()
    try:
        async for chunk in response.aiter_bytes():
            kept += chunk[: ERROR_BODY_BYTES - len(kept)]
            if len(kept) >= ERROR_BODY_BYTES:
                break
    except httpx2.HTTPError:
        pass
    finally:
        await response.aclose()
    return kept.decode(response.encoding or "utf-8", "replace")


def decode_json(content: bytes) -> Any:
    """``content`` as JSON; ValueError when it is not JSON or nests too deeply to decode."""
    try:
        return jsonlib.loads(content)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


class HTTPCore:
    """Sends requests for the resource namespaces (design page: "One HTTP core")."""

    def __init__(
        self,
        settings: Settings,
        *,
        transport: httpx2.AsyncBaseTransport | None = None,
        timeout: float | httpx2.Timeout | None = None,
        max_retries: int = 3,
        sleep: Sleep | None = None,
        rng: Callable[[], float] | None = None,
        max_download_bytes: MaxDownload = None,
    ) -> None:
        self.settings = settings
        self.download_limits = download_limits(max_download_bytes)
        """Largest result read per kind (``image``, ``video``), in bytes (see ``_limits``)."""
        self.demo = False
        """True for the built-in emulator, whose speed header is expected (no warning)."""
        self._speed_warned = False
        if transport is None and is_browser():
            # httpx2's own transport there is the browser's fetch (httpx2-jsfetch): no pool,
            # no sockets, and pool limits do not apply (it warns when given any).
            transport = httpx2.AsyncHTTPTransport()
        elif transport is None:
            # httpcore2 (and anyio) load with the first client, as inside httpx2 itself, not
            # with ``import mediagen_nb.client`` (bench figure 8 times that import).
            from ._backend import default_transport

            transport = default_transport(POOL_LIMITS)
        inner = transport
        self.retry = RetryTransport(inner, max_retries=max_retries, sleep=sleep, rng=rng)
        self.http = httpx2.AsyncClient(
            transport=self.retry,
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
            headers={"User-Agent": USER_AGENT},
            follow_redirects=False,
        )
        self.speed = 1.0
        self.emulated = False
        """True once a response carried the emulator's speed header (or in demo mode)."""
        """Clock factor of the last service response (emulator only; 1.0 for the real one)."""
        self._origins = {
            _origin(url) for url in (settings.base_url, settings.text_base_url) if url is not None
        }
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        self._held: ContextVar[bool] = ContextVar(f"mediagen_nb_slot_{id(self)}", default=False)

    def _in_flight(self) -> asyncio.Semaphore:
        """The semaphore of the running loop (made on first use: a loop binds its primitives)."""
        loop = asyncio.get_running_loop()
        gate = self._gate
        if gate is None or gate[0] is not loop:
            gate = self._gate = (loop, asyncio.Semaphore(MAX_IN_FLIGHT))
        return gate[1]

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one in-flight slot for the block: the requests sent inside it use it instead
        of queueing again. A create validates and sends inside one slot."""
        if self._held.get():
            yield
            return
        async with self._in_flight():
            token = self._held.set(True)
            try:
                yield
            finally:
                self._held.reset(token)

    @asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        if self._held.get():
            yield
            return
        async with self._in_flight():
            yield

    def url(self, base: Base, path: str) -> str:
        """Absolute URL of ``path`` under the image/video base or the text base."""
        root = self.settings.base_url if base == "base" else self.settings.text_base_url
        if root is None:
            env = _env.BASE_URL if base == "base" else _env.TEXT_BASE_URL
            kind = "image/video/asset" if base == "base" else "text"
            raise ConfigurationError(f"no {kind} base URL configured: pass it or set {env}")
        return root + path

    def _headers(self, url: str, *, has_body: bool, own: bool) -> dict[str, str]:
        headers: dict[str, str] = {}
        key = self.settings.api_key
        if key is not None and key.get_secret_value() and (own or _origin(url) in self._origins):
            headers["Authorization"] = f"Bearer {key.get_secret_value()}"
        if has_body:
            headers["Content-Type"] = "application/json"
        return headers

    def _note_speed(self, response: httpx2.Response) -> float:
        raw = response.headers.get(SPEED_HEADER)
        speed = parse_speed(raw)
        if speed is not None:
            self.speed = speed
            self.emulated = True
        if raw is not None and not self.demo and not self._speed_warned:
            self._speed_warned = True
            logger.warning(
                "the service at %s sends %s: %.40r, which only an emulator should; polling "
                "and default deadlines follow it, clamped to %g..%g (deadlines never longer)",
                response.request.url.host,
                SPEED_HEADER,
                raw,
                MIN_SPEED,
                MAX_SPEED,
            )
        return speed if speed is not None else 1.0

    def _build(
        self,
        method: str,
        url: str,
        body: Any | None,
        *,
        idempotent: bool,
        own: bool,
        retry: bool = True,
    ) -> httpx2.Request:
        """The request; ``own=True`` when ``url`` came from ``url`` (one of our bases,
        so the origin check needs no URL parse), False for any other URL."""
        content = None if body is None else encode_json(body, url)
        extensions = {IDEMPOTENT_EXTENSION: True} if idempotent else {}
        if not retry:
            extensions[NO_RETRY_EXTENSION] = True
        return self.http.build_request(
            method,
            url,
            content=content,
            headers=self._headers(url, has_body=content is not None, own=own),
            extensions=extensions,
        )

    async def _send(self, request: httpx2.Request, *, stream: bool) -> httpx2.Response:
        try:
            async with self._turn():
                response = await self.http.send(request, stream=stream)
        except httpx2.TimeoutException as exc:
            redact_chain(exc)
            raise APITimeoutError(
                f"{request.method} {request.url.path} timed out ({type(exc).__name__})"
            ) from exc
        except httpx2.TransportError as exc:
            redact_chain(exc)
            raise connection_error(request, exc, browser=is_browser()) from exc
        except Exception as exc:  # another library's error may quote the headers
            redact_chain(exc)
            raise
        self._note_speed(response)
        if response.status_code >= 400:
            raise APIError.from_response(response, await error_body(response) if stream else None)
        return response

    async def request(
        self,
        method: str,
        base: Base,
        path: str,
        body: Any | None = None,
        *,
        idempotent: bool = False,
        retry: bool = True,
    ) -> tuple[Any, httpx2.Response]:
        """Send and return ``(decoded JSON, response)``; raise from the exception tree.

        ``retry=False``: the transport sends once (the caller retries by its own policy).
        """
        request = self._build(
            method, self.url(base, path), body, idempotent=idempotent, own=True, retry=retry
        )
        response = await self._send(request, stream=True)
        content = await self._read(response, MAX_JSON_BYTES, what="the JSON answer", hint=JSON_HINT)
        try:
            data = decode_json(content)
        except ValueError as exc:
            raise MalformedResponseError(
                f"response is not JSON ({exc})",
                status_code=response.status_code,
                method=request.method,
                path=request.url.path,
                body=content[:500].decode("utf-8", "replace"),
            ) from None
        return data, response

    async def _read(self, response: httpx2.Response, limit: int, *, what: str, hint: str) -> bytes:
        """An open response's body within ``limit``; transport failures as in ``_send``."""
        request = response.request
        try:
            return await read_capped(response, limit, what=what, hint=hint)
        except httpx2.TimeoutException as exc:
            redact_chain(exc)
            raise APITimeoutError(
                f"{request.method} {request.url.path} timed out ({type(exc).__name__})"
            ) from exc
        except httpx2.TransportError as exc:
            redact_chain(exc)
            raise connection_error(request, exc, browser=is_browser()) from exc

    async def open_stream(
        self, base: Base, path: str, body: Any, *, retry: bool = True
    ) -> httpx2.Response:
        """POST ``body`` and return the open streaming response (caller must close it)."""
        request = self._build(
            "POST", self.url(base, path), body, idempotent=False, own=True, retry=retry
        )
        request.headers["Accept"] = "text/event-stream"
        return await self._send(request, stream=True)

    async def download(self, url: str, kind: str = "image") -> bytes:
        """GET a result URL (auth only if it is on the service's own origin); idempotent.

        Reads at most ``download_limits[kind]`` bytes (``ResponseTooLargeError`` beyond).
        """
        if url.startswith("/"):
            url = str(httpx2.URL(self.url("base", "")).join(url))  # relative: the service's own
        request = self._build("GET", url, None, idempotent=True, own=False)
        response = await self._send(request, stream=True)
        problem = status_problem(response)
        content = b""
        if problem is None:
            limit = self.download_limits.get(kind, max(self.download_limits.values()))
            what = f"the {kind} result" if kind in self.download_limits else "the result"
            content = await self._read(response, limit, what=what, hint=DOWNLOAD_HINT)
            problem = body_problem(response, len(content))
        else:
            await response.aclose()
        if problem is not None:
            raise APIError(
                problem,
                status_code=response.status_code,
                method="GET",
                path=request.url.path,
                headers=dict(response.headers),
            )
        return content

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()
