"""Every error the client raises, as one tree under ``MediagenError``.

The tree is drawn on the site's Exceptions page (docs/reference/exceptions.md). Messages
never contain the API key: each passes through ``_config.redact``, and errors of other
libraries chained to ours are redacted too (``_config.redact_chain``).
"""

from __future__ import annotations

import json
import math
import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx2

from ._config import redact

BODY_EXCERPT_CHARS = 500
"""How much of an error response body an ``APIError`` keeps (and shows)."""


class MediagenError(Exception):
    """Base class of every error raised on purpose by the mediagen_nb client.

    Args:
        message: What went wrong, in words; the API key is masked out of it.
    """

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))

    @property
    def message(self) -> str:
        """The (redacted) human-readable message."""
        return str(self.args[0]) if self.args else ""


class ConfigurationError(MediagenError, ValueError):
    """The client cannot tell where to send requests or which key to use."""


class APIError(MediagenError):
    """The service answered with an HTTP error status.

    Built with ``from_response``, which picks the subclass by status code. Only the
    request's method and path are kept (no headers, no query string) and a short excerpt of
    the response body.

    Args:
        message: The service's error message (or the status's reason phrase).
        status_code: The HTTP status of the answer.
        method: The request's method.
        path: The request's path, without its query string.
        body: The response body; its first 500 characters are kept, redacted.
        error_type: The error's ``type`` in the body, when it has one.
        param: The request field the service names, when it names one.
        headers: The response headers (``retry-after``, ``request-id``...).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        method: str,
        path: str,
        body: str = "",
        error_type: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.headers: dict[str, str] = dict(headers or {})
        """Response headers (lower-case names): ``retry-after``, ``request-id``, ..."""
        self.status_code = status_code
        self.method = method
        self.path = path
        self.body = redact(body[:BODY_EXCERPT_CHARS])
        self.error_type = error_type
        self.param = param
        super().__init__(f"{method} {path} -> HTTP {status_code}: {message}")

    @property
    def request_id(self) -> str | None:
        """The service's id of the failed request (``x-request-id`` / ``request-id``)."""
        return self.headers.get("x-request-id") or self.headers.get("request-id")

    @classmethod
    def from_response(cls, response: httpx2.Response, body: str | None = None) -> APIError:
        """Build the right subclass from an error response: its ``body`` as read, or (None)
        the response's own (it must be read)."""
        status = response.status_code
        error_cls = _class_for_status(status)
        text = _safe_text(response) if body is None else body
        message, error_type, param = _parse_error_body(text)
        if not message:
            message = response.reason_phrase or "error"
        kwargs: dict[str, Any] = {
            "status_code": status,
            "method": response.request.method,
            "path": response.request.url.path,
            "body": text,
            "error_type": error_type,
            "param": param,
            "headers": {k.lower(): v for k, v in response.headers.items()},
        }
        if error_cls is RateLimitError:
            return RateLimitError(
                message,
                retry_after=parse_retry_after(response.headers.get("retry-after")),
                **kwargs,
            )
        return error_cls(message, **kwargs)


class BadRequestError(APIError):
    """The service refused the request as malformed (400 and other 4xx not listed below)."""


class AuthenticationError(APIError):
    """The API key was missing, wrong or not allowed here (401, 403)."""


class NotFoundError(APIError):
    """Unknown path, task id or asset id (404), or an expired record / result URL (410)."""


class RateLimitError(APIError):
    """Too many requests (429); ``retry_after`` is the server's wish in seconds, if given.

    Args:
        message: The service's error message.
        retry_after: Seconds the service asks to wait (``Retry-After``), or None.
        **kwargs: The other arguments of ``APIError``.
    """

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kwargs)


class ServerError(APIError):
    """The service failed (5xx)."""


class MalformedResponseError(APIError):
    """A success answer the client cannot read: not JSON, nested too deeply, or fields of the
    wrong type (a ``status`` that is an object). ``status_code`` is the answer's own status."""


class ResponseTooLargeError(MediagenError):
    """An answer larger than its cap; nothing beyond the cap was read.

    Args:
        what: What was refused: the JSON answer, the image result, the video result.
        limit: The cap in bytes.
        declared: The answer's ``Content-Length``, or None when it did not say.
        hint: How to raise the cap (named in the message).
    """

    def __init__(self, what: str, *, limit: int, declared: int | None, hint: str) -> None:
        self.what = what
        self.limit = limit
        self.declared = declared
        size = f"declares {declared:,} bytes" if declared is not None else "is longer"
        super().__init__(f"{what} {size}, over the limit of {limit:,} bytes ({hint})")


class APIConnectionError(MediagenError):
    """No HTTP answer: connection refused or reset, DNS failure, protocol error.

    ``cors`` is True when the request was sent by a browser's fetch (a browser kernel, or a
    fetch error in the message): there the browser hides why a request failed, and the
    usual cause is a service that does not allow requests from the page's origin; the
    message then says so (see ``connection_error``).

    Args:
        message: What failed: the request's method and path and the transport's error.
        cors: True when a browser's fetch sent the request and the cause is hidden.
    """

    def __init__(self, message: str, *, cors: bool = False) -> None:
        self.cors = cors
        super().__init__(message)


_FETCH_FAILURES = ("failed to fetch", "networkerror when attempting to fetch", "load failed")
"""What the browsers' fetch says when a request gets no response (CORS refusals included):
Chrome, Firefox and Safari; the reason is hidden from the page on purpose."""


def connection_error(
    request: httpx2.Request, exc: Exception, *, browser: bool
) -> APIConnectionError:
    """The error for a request that got no HTTP answer; names CORS where fetch sent it.

    ``browser``: the request went through the browser's fetch (a Pyodide kernel). Requests
    to an in-process emulator (``*.mediagen.invalid``) never touch the network.
    """
    text = f"{request.method} {request.url.path} failed: {type(exc).__name__}: {exc}"
    host = request.url.host
    by_fetch = browser or any(sign in str(exc).lower() for sign in _FETCH_FAILURES)
    if not by_fetch or host.endswith(".mediagen.invalid"):
        return APIConnectionError(text)
    origin = f"{request.url.scheme}://{request.url.netloc.decode('ascii', 'replace')}"
    return APIConnectionError(
        f"the service at {origin} does not allow requests from this page (CORS), or cannot "
        "be reached from this browser. A service used from a browser notebook must answer "
        "with Access-Control-Allow-Origin for this page's origin and allow the Authorization "
        "and Content-Type headers (its OPTIONS preflight included); otherwise use the "
        f"notebook in a local Jupyter. ({text})",
        cors=True,
    )


class APITimeoutError(APIConnectionError):
    """The request did not complete within the client's timeout."""


class TaskError(MediagenError):
    """An image or video task ended (or the wait ended) without a result.

    Args:
        message: What happened to the task.
        task_id: The task's id.
    """

    def __init__(self, message: str, *, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(message)


class TaskFailedError(TaskError):
    """The task's status is ``failed``; ``error`` is the service's free-form text.

    Args:
        task_id: The task's id.
        error: The service's reason, or None when it gave none.
    """

    def __init__(self, task_id: str, error: str | None) -> None:
        self.error = error or "no error text given"
        super().__init__(f"task {task_id} failed: {self.error}", task_id=task_id)


class TaskCancelledError(TaskError):
    """The task was cancelled: locally via ``Task.cancel()``, or by the service (seedance).

    Args:
        task_id: The task's id.
        local: True when ``Task.cancel()`` stopped the wait (the service may still finish).
    """

    def __init__(self, task_id: str, *, local: bool) -> None:
        self.local = local
        how = "locally (the service may still finish it)" if local else "by the service"
        super().__init__(f"task {task_id} was cancelled {how}", task_id=task_id)


class TaskTimeoutError(TaskError, TimeoutError):
    """The overall deadline of ``Task.wait()`` passed while the task was still running.

    Args:
        task_id: The task's id.
        timeout: The deadline that passed, in seconds.
        status: The task's last status (``queued`` or ``processing``).
    """

    def __init__(self, task_id: str, *, timeout: float, status: str) -> None:
        self.timeout = timeout
        self.status = status
        super().__init__(
            f"task {task_id} still {status} after {timeout:.1f} s; it keeps running on the "
            "service, call wait() again or tasks.attach() later",
            task_id=task_id,
        )


class AssetError(MediagenError):
    """An asset endpoint answered with ``code`` other than "0"; ``msg`` says why.

    Args:
        code: The answer's ``code``.
        msg: The answer's ``msg``, or None.
        path: The endpoint's path, named in the message when given.
    """

    def __init__(self, code: str, msg: str | None, *, path: str = "") -> None:
        self.code = code
        self.msg = msg
        where = f"{path}: " if path else ""
        super().__init__(f"{where}asset request failed (code {code}): {msg or 'no message'}")


class AssetNotUsableError(AssetError):
    """A request references an asset this client knows is not Active; nothing was sent.

    Args:
        asset_id: The asset's id.
        status: Its known status (``Processing``, ``Failed``, ``deleted``...).
    """

    def __init__(self, asset_id: str, status: str) -> None:
        self.asset_id = asset_id
        self.status = status
        MediagenError.__init__(
            self,
            f"asset://{asset_id} cannot be used: its status is {status!r} "
            "(only Active assets can be referenced; wait with assets.wait_active())",
        )
        self.code = "not_usable"
        self.msg = f"asset status {status}"


class AssetTimeoutError(AssetError, TimeoutError):
    """``wait_active()`` gave up: ``asset_ids`` were still under review at the deadline.

    Args:
        asset_ids: The assets not Active yet.
        timeout: The deadline that passed, in seconds.
    """

    def __init__(self, asset_ids: list[str], timeout: float) -> None:
        self.asset_ids = asset_ids
        self.timeout = timeout
        MediagenError.__init__(
            self, f"assets still not Active after {timeout:.1f} s: {', '.join(asset_ids)}"
        )
        self.code = "timeout"
        self.msg = "review not finished"


class StreamInterruptedError(MediagenError):
    """A streamed chat reply ended before its terminator; ``partial_text`` is what arrived.

    Args:
        partial_text: The text received before the stream ended.
        reason: Why it ended (the transport's error, or the missing terminator).
    """

    def __init__(self, partial_text: str, reason: str) -> None:
        self.partial_text = partial_text
        self.reason = reason
        super().__init__(
            f"stream interrupted after {len(partial_text)} characters: {reason} "
            "(the partial text is in .partial_text)"
        )


class ToolLoopError(MediagenError, RuntimeError):
    """The model still called tools after ``max_steps`` requests of ``run_tools``."""


def _class_for_status(status: int) -> type[APIError]:
    if status in (401, 403):
        return AuthenticationError
    if status in (404, 410):
        return NotFoundError
    if status == 429:
        return RateLimitError
    if status >= 500:
        return ServerError
    return BadRequestError


def _safe_text(response: httpx2.Response) -> str:
    try:
        return response.text
    except (httpx2.ResponseNotRead, UnicodeDecodeError):
        return ""


def _parse_error_body(text: str) -> tuple[str, str | None, str | None]:
    """Read ``{"error": {"type", "message", "param"}}`` (or a few common variants)."""
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()[:200], None, None
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, str):
            return err, None, None
        if isinstance(err, dict):
            msg = err.get("message") or err.get("msg") or err.get("detail") or ""
            etype = err.get("type")
            param = err.get("param")
            return (
                str(msg),
                str(etype) if etype is not None else None,
                str(param) if param is not None else None,
            )
    return text.strip()[:200], None, None


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds (fractions allowed) or a date.

    Returns None when absent or unparseable; never negative.
    """
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return None if math.isnan(seconds) else max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)
