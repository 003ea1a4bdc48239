"""Every failed request of a load bench, with its cause (``bench_classroom`` uses it).

A failure is never just counted: each one is kept with the phase and the request it
belongs to, who sent it, where it went (``gateway`` or ``upstream``), the HTTP status or the
exception (type and message), and a cause:

* ``gateway refusal``: the gateway itself said no (401 for a code, 403 for a rule, a
  ``refused-`` task);
* ``upstream error``: the upstream answered an error (straight, or relayed by the gateway);
* ``upstream unreachable``: the gateway's 502 saying the upstream did not answer (its
  message names the upstream error's kind, its log the whole error);
* ``upstream answer lost``: the gateway's 502 saying the upstream got the request whole but
  its answer was lost (it counts against the student's limits);
* ``gateway error``: the gateway answered 500 (a bug; its log has the traceback);
* ``server busy``: 503 (a server's connection limit);
* ``timeout``: this client gave up waiting (``ConnectTimeout``, ``ReadTimeout``, ...);
* ``connection lost``: the server closed or reset the connection (e.g. a kept-alive
  connection closed by the server just as a request was sent on it);
* ``client-side``: this client's own problem (its pool full for too long, a protocol error
  of its own);
* ``stream cut``: a 200 stream that ended without its ``[DONE]``.

``Failures.report()`` prints every failure (up to ``SHOWN``, then a count per cause for the
rest), so the output of a run names what went wrong.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

import httpx2

SHOWN: Final = 60
DETAIL_CHARS: Final = 300
GATEWAY_502: Final = "did not answer"
GATEWAY_502_LOST: Final = "its answer was lost"
REFUSED_ID: Final = "refused-"


@dataclass(frozen=True)
class Failure:
    """One failed request."""

    phase: str
    """``class`` (under load) or ``quiet`` (after it)."""
    request: str
    """``create``, ``result GET``, ``chat``, ..."""
    side: str
    """``gateway`` or ``upstream``: where the request was sent."""
    who: str
    """The student's code, or the request's number (``chat 17``)."""
    cause: str
    detail: str
    at_s: float
    """Seconds since the bench started."""
    retried: bool = False
    """Whether the bench sends the request again (a result GET next second)."""

    def line(self) -> str:
        """One printable line."""
        again = "; retried" if self.retried else ""
        return (
            f"[{self.at_s:7.1f} s] {self.phase} {self.request} via {self.side} ({self.who}): "
            f"{self.cause}: {self.detail}{again}"
        )


def cause_of_error(error: BaseException) -> str:
    """The cause of a request that raised ``error`` instead of answering."""
    if isinstance(error, httpx2.PoolTimeout):
        return "client-side"
    if isinstance(error, httpx2.TimeoutException):
        return "timeout"
    if isinstance(error, (httpx2.RemoteProtocolError, httpx2.NetworkError)):
        return "connection lost"
    return "client-side"


def cause_of_status(side: str, status: int, body: str) -> str:
    """The cause of an answer with HTTP ``status`` and ``body`` from ``side``."""
    if side == "upstream":
        return "server busy" if status == 503 else "upstream error"
    if status in (401, 403) or REFUSED_ID in body:
        return "gateway refusal"
    if status == 502 and GATEWAY_502 in body:
        return "upstream unreachable"
    if status == 502 and GATEWAY_502_LOST in body:
        return "upstream answer lost"
    if status == 500:
        return "gateway error"
    if status == 503:
        return "server busy"
    return "upstream error"


def error_detail(error: BaseException) -> str:
    """``Type: message``, then what caused it (httpx2's ``ReadError`` often has no message
    of its own: ``ReadError <- BrokenResourceError <- ConnectionResetError: [Errno 104]``)."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        message = str(current)[:DETAIL_CHARS]
        parts.append(f"{type(current).__name__}: {message}" if message else type(current).__name__)
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)


def status_detail(status: int, body: str) -> str:
    """``HTTP status: body`` (cut)."""
    return f"HTTP {status}: {body[:DETAIL_CHARS]}"


@dataclass
class RequestTrace:
    """The connection steps of one request, timed (httpcore's ``trace`` request extension:
    ``extensions={"trace": RequestTrace()}``), to say where a failed request failed."""

    start: float = field(default_factory=time.perf_counter)
    steps: list[tuple[str, float]] = field(default_factory=list)

    async def __call__(self, name: str, info: dict[str, object]) -> None:
        self.steps.append((name, time.perf_counter() - self.start))

    def context(self) -> str:
        """Which connection the request went on, when it was sent, where and when it failed."""
        if not self.steps:
            return "never given a connection"
        names = [name for name, _ in self.steps]
        fresh = any(name.startswith("connection.connect_tcp") for name in names)
        where = "a new connection" if fresh else "a kept-alive connection"
        sent = next(
            (t for name, t in self.steps if name.endswith("send_request_headers.started")), None
        )
        sent_text = "never sent" if sent is None else f"sent {sent:.2f} s after the call"
        last, at_s = self.steps[-1]
        return f"on {where}; {sent_text}; last step {last} at {at_s:.2f} s"


@dataclass
class Failures:
    """The failures of one run (see the module docstring)."""

    started: float = field(default_factory=time.monotonic)
    items: list[Failure] = field(default_factory=list)

    def error(
        self,
        phase: str,
        request: str,
        side: str,
        who: str,
        error: BaseException,
        *,
        retried: bool = False,
        context: str = "",
    ) -> Failure:
        """Record a request that raised ``error``; ``context`` adds what the bench knows."""
        detail = error_detail(error) + (f" ({context})" if context else "")
        return self._add(phase, request, side, who, cause_of_error(error), detail, retried)

    def answer(
        self,
        phase: str,
        request: str,
        side: str,
        who: str,
        status: int,
        body: str,
        *,
        cause: str | None = None,
        context: str = "",
        retried: bool = False,
    ) -> Failure:
        """Record an answer that is not the one needed (``cause`` overrides the status's)."""
        detail = status_detail(status, body) + (f" ({context})" if context else "")
        found = cause or cause_of_status(side, status, body)
        return self._add(phase, request, side, who, found, detail, retried)

    def _add(
        self, phase: str, request: str, side: str, who: str, cause: str, detail: str, again: bool
    ) -> Failure:
        at_s = time.monotonic() - self.started
        failure = Failure(phase, request, side, who, cause, detail, at_s, again)
        self.items.append(failure)
        return failure

    def of(self, request: str) -> list[Failure]:
        """The failures of one kind of request."""
        return [f for f in self.items if f.request == request]

    def summary(self) -> str:
        """``N failed requests: 2 chat via gateway: timeout, ...`` (or ``no failed request``)."""
        if not self.items:
            return "no failed request"
        counts = Counter(f"{f.phase} {f.request} via {f.side}: {f.cause}" for f in self.items)
        parts = [f"{n} {what}" for what, n in sorted(counts.items())]
        return f"{len(self.items)} failed requests: " + "; ".join(parts)

    def report(self) -> list[str]:
        """Every failure's line (the first ``SHOWN``), then the summary."""
        lines = [f.line() for f in self.items[:SHOWN]]
        if len(self.items) > SHOWN:
            lines.append(f"... {len(self.items) - SHOWN} more (counted by cause below)")
        return [*lines, self.summary()]
