"""The retrying transport: what is retried, how long it waits, and what it never repeats."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Sequence
from typing import Any

import httpx2
import pytest

from mediagen_nb.client import (
    APIConnectionError,
    APITimeoutError,
    AsyncClient,
    RateLimitError,
    ServerError,
)
from mediagen_nb.client._retry import RetryTransport
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT


def counting(
    responses: Sequence[httpx2.Response | Exception],
) -> tuple[httpx2.MockTransport, list[str]]:
    """A transport answering from a list (last entry repeats), logging each request."""
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(f"{request.method} {request.url.path}")
        item = responses[min(len(seen) - 1, len(responses) - 1)]
        if isinstance(item, Exception):
            raise item
        return item

    return httpx2.MockTransport(handler), seen


def ok() -> httpx2.Response:
    return httpx2.Response(200, json={"id": "t", "status": "processing"})


def make(transport: httpx2.MockTransport, clock: FakeClock, retries: int = 3) -> AsyncClient:
    return AsyncClient(
        KEY,
        BASE,
        TEXT,
        transport,
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 0.0,
        max_retries=retries,
        recorder=None,
    )


async def test_get_is_retried_honouring_retry_after() -> None:
    transport, seen = counting(
        [
            httpx2.Response(429, headers={"Retry-After": "0.25"}, json={"error": "slow"}),
            httpx2.Response(503, headers={"Retry-After": "2"}),
            ok(),
        ]
    )
    clock = FakeClock()
    async with make(transport, clock) as client:
        result = await client.tasks.get("t")
        assert result.status == "processing"
        assert len(seen) == 3
        assert clock.sleeps == [0.25, 2.0]
        assert client.retries == 2
        assert client.retry_transport.retry_reasons == {"status 429": 1, "status 503": 1}


async def test_retry_after_http_date_is_honoured() -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    transport, seen = counting([httpx2.Response(503, headers={"Retry-After": when}), ok()])
    clock = FakeClock()
    async with make(transport, clock) as client:
        await client.tasks.get("t")
    assert len(seen) == 2
    assert 25 <= clock.sleeps[0] <= 30


async def test_backoff_is_exponential_capped_and_jittered() -> None:
    transport, seen = counting([httpx2.Response(500)] * 6 + [ok()])
    clock = FakeClock()
    client = AsyncClient(
        KEY,
        BASE,
        TEXT,
        transport,
        sleep=clock.sleep,
        clock=clock,
        rng=lambda: 1.0,
        max_retries=6,
        recorder=None,
    )
    await client.tasks.get("t")
    # initial 0.5 s doubling, capped at 8 s, each reduced by the full 25 % jitter (rng = 1.0)
    assert clock.sleeps == [0.375, 0.75, 1.5, 3.0, 6.0, 6.0]
    assert len(seen) == 7
    await client.aclose()


async def test_gives_up_after_max_retries_and_raises() -> None:
    transport, seen = counting([httpx2.Response(502, text="bad gateway")])
    clock = FakeClock()
    async with make(transport, clock, retries=2) as client:
        with pytest.raises(ServerError):
            await client.tasks.get("t")
    assert len(seen) == 3


async def test_retry_after_beyond_cap_is_returned_not_waited() -> None:
    transport, seen = counting([httpx2.Response(429, headers={"Retry-After": "3600"})])
    clock = FakeClock()
    async with make(transport, clock) as client:
        with pytest.raises(RateLimitError) as info:
            await client.tasks.get("t")
    assert info.value.retry_after == 3600
    assert len(seen) == 1
    assert clock.sleeps == []


async def test_post_is_not_retried_after_a_500() -> None:
    transport, seen = counting([httpx2.Response(500, json={"error": "boom"}), ok()])
    clock = FakeClock()
    async with make(transport, clock) as client:
        with pytest.raises(ServerError):
            await client.images.create("nano-banana", prompt="a cat")
    assert seen == ["POST /api/v1/banana/images"]
    assert clock.sleeps == []


async def test_post_is_not_retried_after_a_429_or_read_timeout() -> None:
    for failure in (
        httpx2.Response(429, headers={"Retry-After": "0"}),
        httpx2.ReadTimeout("no answer"),
    ):
        transport, seen = counting([failure, ok()])
        async with make(transport, FakeClock()) as client:
            with pytest.raises((RateLimitError, APITimeoutError)):
                await client.images.create("nano-banana", prompt="a cat")
        assert len(seen) == 1


async def test_post_is_retried_after_connect_error() -> None:
    transport, seen = counting(
        [httpx2.ConnectError("connection refused"), httpx2.ConnectTimeout("no syn-ack"), ok()]
    )
    clock = FakeClock()
    async with make(transport, clock) as client:
        task = await client.images.create("nano-banana", prompt="a cat")
        assert task.id == "t"
        assert client.retries == 2
    assert seen == ["POST /api/v1/banana/images"] * 3


async def test_get_is_retried_after_read_errors_then_gives_up() -> None:
    transport, seen = counting([httpx2.ReadError("reset")])
    clock = FakeClock()
    async with make(transport, clock, retries=3) as client:
        with pytest.raises(APIConnectionError):
            await client.tasks.get("t")
    assert len(seen) == 4
    assert len(clock.sleeps) == 3


async def test_sd2_asset_status_post_counts_as_idempotent() -> None:
    envelope: dict[str, Any] = {"code": "0", "msg": None, "data": {"items": [], "failedItems": []}}
    transport, seen = counting([httpx2.Response(503), httpx2.Response(200, json=envelope)])
    clock = FakeClock()
    async with make(transport, clock) as client:
        batch = await client.assets.sd2_status(["a1"])
    assert batch.items == []
    assert seen == ["POST /api/asset/sd2Manxue/assetStatus"] * 2


async def test_retry_transport_standalone_defaults() -> None:
    transport, seen = counting([httpx2.Response(408), ok()])
    clock = FakeClock()
    retry = RetryTransport(transport, sleep=clock.sleep, rng=lambda: 0.5)
    async with httpx2.AsyncClient(transport=retry) as http:
        response = await http.get("http://x.test/y")
    assert response.status_code == 200
    assert retry.retries == 1
    assert retry.slept == pytest.approx(0.5 * 0.875)
    assert len(seen) == 2
