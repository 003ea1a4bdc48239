"""Error mapping: HTTP statuses and transport failures to the client's exception tree."""

from __future__ import annotations

import asyncio
import email.utils
import traceback

import httpx2
import pytest

from mediagen_nb.client import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    MediagenError,
    NotFoundError,
    RateLimitError,
    ServerError,
    TaskFailedError,
    TaskTimeoutError,
)
from mediagen_nb.client._config import Secret
from mediagen_nb.client._exceptions import parse_retry_after
from tests._support import KEY
from tests.client_fakes import BASE, TEXT


def _response(status: int, body: object, headers: dict[str, str] | None = None) -> httpx2.Response:
    request = httpx2.Request("GET", f"{BASE}/v1/result/abc?x=1")
    return httpx2.Response(status, json=body, headers=headers, request=request)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, AuthenticationError),
        (404, NotFoundError),
        (405, BadRequestError),
        (410, NotFoundError),
        (413, BadRequestError),
        (415, BadRequestError),
        (422, BadRequestError),
        (429, RateLimitError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
    ],
)
def test_from_response_picks_class_by_status(status: int, cls: type[APIError]) -> None:
    body = {"error": {"type": "some_error", "message": "it went wrong", "param": "model"}}
    err = APIError.from_response(_response(status, body))
    assert type(err) is cls
    assert isinstance(err, MediagenError)
    assert err.status_code == status
    assert err.method == "GET"
    assert err.path == "/api/v1/result/abc"  # no query string
    assert err.error_type == "some_error"
    assert err.param == "model"
    assert "it went wrong" in str(err)
    assert f"HTTP {status}" in str(err)


def test_rate_limit_carries_retry_after() -> None:
    err = APIError.from_response(_response(429, {"error": "slow down"}, {"Retry-After": "0.25"}))
    assert isinstance(err, RateLimitError)
    assert err.retry_after == 0.25
    assert "slow down" in str(err)


def test_non_json_error_body_is_excerpted() -> None:
    request = httpx2.Request("POST", f"{TEXT}/v1/messages")
    response = httpx2.Response(502, text="<html>" + "x" * 2000, request=request)
    err = APIError.from_response(response)
    assert isinstance(err, ServerError)
    assert len(err.body) == 500
    assert err.path == "/gateway/v1/messages"


def test_retry_after_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.5") == 0.5
    assert parse_retry_after("-2") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("nan") is None
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert parse_retry_after(date, now=1_000_000.0) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.formatdate(10.0, usegmt=True), now=100.0) == 0.0


def test_task_errors_are_in_the_tree() -> None:
    failed = TaskFailedError("t1", "content policy")
    assert failed.task_id == "t1"
    assert failed.error == "content policy"
    timeout = TaskTimeoutError("t2", timeout=5, status="processing")
    assert isinstance(timeout, TimeoutError)
    assert isinstance(timeout, MediagenError)


def test_tool_loop_error_is_in_the_tree_and_still_a_runtime_error() -> None:
    from mediagen_nb.client import ToolLoopError

    err = ToolLoopError("the model still called tools after 10 requests")
    assert isinstance(err, MediagenError)
    assert isinstance(err, RuntimeError)  # code that caught RuntimeError still catches it
    assert str(err) == "the model still called tools after 10 requests"


async def test_client_maps_http_and_transport_errors() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("/auth"):
            return httpx2.Response(
                401, json={"error": {"type": "authentication_error", "message": "bad key"}}
            )
        if request.url.path.endswith("/refused"):
            raise httpx2.ConnectError("connection refused")
        if request.url.path.endswith("/slow"):
            raise httpx2.ReadTimeout("timed out")
        return httpx2.Response(404, json={"error": {"type": "not_found_error", "message": "nope"}})

    client = AsyncClient(
        KEY, BASE, TEXT, httpx2.MockTransport(handler), max_retries=0, recorder=None
    )
    async with client:
        with pytest.raises(AuthenticationError, match="bad key"):
            await client.tasks.get("auth")
        with pytest.raises(APIConnectionError, match="ConnectError") as conn:
            await client.tasks.get("refused")
        assert not isinstance(conn.value, APITimeoutError)
        with pytest.raises(APITimeoutError):
            await client.tasks.get("slow")
        with pytest.raises(NotFoundError):
            await client.tasks.get("missing")


def test_errors_chained_from_other_libraries_are_redacted() -> None:
    """A transport error that quotes the Authorization header (h11's "Illegal header value",
    an encoding error) reaches the user redacted, its text and its chain's."""
    key = "sk-chained-Q7v2Lx9"
    Secret(key)  # known to redact, as every client's key is

    def quoting(request: httpx2.Request) -> httpx2.Response:
        value = request.headers["authorization"]
        try:
            (value + "\u200b").encode("ascii")
        except UnicodeEncodeError as inner:
            raise httpx2.LocalProtocolError(f"Illegal header value {value.encode()!r}") from inner
        raise AssertionError("unreachable")

    async def main() -> BaseException:
        transport = httpx2.MockTransport(quoting)
        async with AsyncClient(key, BASE, TEXT, transport, recorder=None, max_retries=0) as client:
            with pytest.raises(APIConnectionError) as caught:
                await client.tasks.get("t1")
        return caught.value

    error = asyncio.run(main())
    shown = "".join(traceback.format_exception(error))
    assert key not in shown
    assert "Illegal header value" in shown  # the chain is kept, only the key is gone
    assert isinstance(error.__cause__, httpx2.LocalProtocolError)
    assert isinstance(error.__cause__.__cause__, UnicodeEncodeError)
