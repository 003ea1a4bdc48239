"""The load bench names the cause of every failed request (``bench/_failures.py``)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import httpx2

BENCH = Path(__file__).resolve().parent.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _failures import (  # noqa: E402 - bench/ is not a package
    SHOWN,
    Failures,
    RequestTrace,
    cause_of_error,
    cause_of_status,
    error_detail,
)


def reset_read_error() -> httpx2.ReadError:
    """A ReadError as httpx2 raises it for a reset connection: no message of its own."""
    try:
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except ConnectionResetError as reset:
            raise httpx2.ReadError("") from reset
    except httpx2.ReadError as error:
        return error


def test_errors_are_told_apart() -> None:
    assert cause_of_error(httpx2.ReadTimeout("slow")) == "timeout"
    assert cause_of_error(httpx2.ConnectTimeout("slow")) == "timeout"
    assert cause_of_error(httpx2.PoolTimeout("full")) == "client-side"
    assert cause_of_error(httpx2.RemoteProtocolError("gone")) == "connection lost"
    assert cause_of_error(reset_read_error()) == "connection lost"
    assert cause_of_error(httpx2.LocalProtocolError("ours")) == "client-side"


def test_answers_are_told_apart() -> None:
    refused_task = '{"id": "refused-0a1b", "status": "failed", "error": "your class allows 5"}'
    assert cause_of_status("gateway", 401, "{}") == "gateway refusal"
    assert cause_of_status("gateway", 403, "{}") == "gateway refusal"
    assert cause_of_status("gateway", 200, refused_task) == "gateway refusal"
    gone = '{"error": {"message": "the class\'s service did not answer (ReadError)"}}'
    assert cause_of_status("gateway", 502, gone) == "upstream unreachable"
    lost = (
        '{"error": {"message": "the class\'s service got this create but its answer was lost'
        ' (ReadError); the task may have been made, so it counts against your limits"}}'
    )
    assert cause_of_status("gateway", 502, lost) == "upstream answer lost"
    assert cause_of_status("gateway", 502, '{"error": "bad key"}') == "upstream error"
    assert cause_of_status("gateway", 500, "{}") == "gateway error"
    assert cause_of_status("gateway", 503, "{}") == "server busy"
    assert cause_of_status("upstream", 503, "{}") == "server busy"
    assert cause_of_status("upstream", 429, "{}") == "upstream error"


def test_an_error_without_a_message_is_named_by_what_caused_it() -> None:
    assert error_detail(reset_read_error()) == (
        "ReadError <- ConnectionResetError: [Errno 104] Connection reset by peer"
    )


def test_every_failure_is_printed_and_counted_by_cause() -> None:
    failures = Failures()
    failures.error("class", "chat", "gateway", "chat 7", httpx2.ReadTimeout("slow"))
    failures.answer("class", "create", "gateway", "mgc-a", 502, "did not answer", retried=False)
    failures.error("class", "result GET", "upstream", "polite", reset_read_error(), retried=True)
    lines = failures.report()
    assert len(lines) == 4
    assert "class chat via gateway (chat 7): timeout: ReadTimeout: slow" in lines[0]
    assert "create via gateway (mgc-a): upstream unreachable: HTTP 502: did not answer" in lines[1]
    assert lines[2].endswith("; retried")
    assert lines[3] == (
        "3 failed requests: 1 class chat via gateway: timeout; 1 class create via gateway: "
        "upstream unreachable; 1 class result GET via upstream: connection lost"
    )
    assert [f.request for f in failures.of("chat")] == ["chat"]


def test_past_the_shown_ones_the_rest_are_still_counted() -> None:
    failures = Failures()
    for n in range(SHOWN + 5):
        failures.answer("quiet", "result GET", "gateway", f"s{n}", 404, "no task")
    lines = failures.report()
    assert len(lines) == SHOWN + 2
    assert lines[-2] == "... 5 more (counted by cause below)"
    count = SHOWN + 5
    assert (
        lines[-1]
        == f"{count} failed requests: {count} quiet result GET via gateway: upstream error"
    )
    assert Failures().summary() == "no failed request"


def test_the_trace_says_which_connection_and_when() -> None:
    fresh, kept = RequestTrace(), RequestTrace()
    for name in ("connection.connect_tcp.started", "http11.send_request_headers.started"):
        asyncio.run(fresh(name, {}))
    for name in ("http11.send_request_headers.started", "http11.receive_response_headers.failed"):
        asyncio.run(kept(name, {}))
    assert fresh.context().startswith("on a new connection; sent ")
    assert kept.context().startswith("on a kept-alive connection; sent ")
    assert "last step http11.receive_response_headers.failed at " in kept.context()
    assert RequestTrace().context() == "never given a connection"
