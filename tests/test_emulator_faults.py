"""Fault injection, against a real uvicorn server on loopback (drops need real sockets)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from mediagen_nb.emulator import EmulatorHandle, FaultConfig, start_emulator
from mediagen_nb.emulator._faults import ConnectionDropped, FaultInjector
from tests._emulator_helpers import VALID_BODIES, client, make_app, path_of
from tests._support import KEY

AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture
def serve() -> Iterator[list[EmulatorHandle]]:
    """Start emulators with ``start(...)``; all are stopped after the test."""
    handles: list[EmulatorHandle] = []
    yield handles
    for handle in handles:
        handle.stop()


def start(
    handles: list[EmulatorHandle], faults: FaultConfig, speed: float = 1000
) -> EmulatorHandle:
    handle = start_emulator(speed=speed, api_key=KEY, faults=faults)
    handles.append(handle)
    return handle


def create_task(handle: EmulatorHandle) -> str:
    response = httpx2.post(
        handle.base_url + path_of("banana"), json=VALID_BODIES["banana"], headers=AUTH
    )
    assert response.status_code == 200
    task_id: str = response.json()["id"]
    return task_id


def test_dropped_connection_is_a_transport_error_and_the_server_survives(
    serve: list[EmulatorHandle],
) -> None:
    handle = start(serve, FaultConfig(drop_rate=1.0, seed=1))
    task_id = create_task(handle)  # creates are not in apply_to
    with httpx2.Client(headers=AUTH) as c:
        for _ in range(3):
            with pytest.raises(httpx2.RemoteProtocolError):
                c.get(f"{handle.base_url}/v1/result/{task_id}")
    assert handle.state.fault_counts()["drop"] == 3
    assert create_task(handle)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_errors_are_500_or_503_with_the_error_shape(serve: list[EmulatorHandle], seed: int) -> None:
    handle = start(serve, FaultConfig(error_rate=1.0, seed=seed))
    task_id = create_task(handle)
    statuses = []
    for _ in range(8):
        response = httpx2.get(f"{handle.base_url}/v1/result/{task_id}", headers=AUTH)
        statuses.append(response.status_code)
        assert response.json()["error"]["type"] in ("api_error", "overloaded_error")
        if response.status_code == 503:
            assert float(response.headers["retry-after"]) > 0
    counts = handle.state.fault_counts()
    assert set(statuses) <= {500, 503}
    assert counts["error_500"] + counts["error_503"] == 8
    assert counts["error_500"] == statuses.count(500)


def test_rate_limit_fault_is_429_with_retry_after(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(rate_limit_rate=1.0, seed=1), speed=4)
    task_id = create_task(handle)
    response = httpx2.get(f"{handle.base_url}/v1/result/{task_id}", headers=AUTH)
    assert response.status_code == 429
    assert float(response.headers["retry-after"]) == 0.25
    assert handle.state.fault_counts()["rate_limit"] == 1
    assert handle.state.counters["poll_too_fast"] == 0


def test_create_5xx_comes_after_the_task_was_created(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(error_rate=1.0, seed=4, apply_to=("create",)))
    response = httpx2.post(
        handle.base_url + path_of("sora"), json=VALID_BODIES["sora"], headers=AUTH
    )
    assert response.status_code in (500, 503)
    assert "id" not in response.json()
    assert len(handle.state.tasks) == 1
    assert handle.state.fault_counts()["error_after_handling"] == 1


def test_create_drop_happens_before_the_task_exists(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(drop_rate=1.0, seed=4, apply_to=("create",)))
    with pytest.raises(httpx2.RemoteProtocolError):
        httpx2.post(handle.base_url + path_of("sora"), json=VALID_BODIES["sora"], headers=AUTH)
    assert len(handle.state.tasks) == 0


def test_create_drop_with_a_large_body_is_always_an_orderly_close(
    serve: list[EmulatorHandle],
) -> None:
    """The body spans many packets; bytes left unread would turn the close into a reset."""
    handle = start(serve, FaultConfig(drop_rate=1.0, seed=4, apply_to=("create",)))
    body = {**VALID_BODIES["sora"], "prompt": "a slow pan " * 20_000}
    with httpx2.Client(headers=AUTH) as c:
        for _ in range(8):
            with pytest.raises(httpx2.RemoteProtocolError):
                c.post(handle.base_url + path_of("sora"), json=body)
    assert handle.state.fault_counts()["drop"] == 8
    assert len(handle.state.tasks) == 0


def test_asset_upload_5xx_after_the_asset_exists(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(error_rate=1.0, seed=4, apply_to=("asset",)))
    body = {"assetType": "Image", "url": "https://e.com/a.png"}
    response = httpx2.post(handle.base_url + "/svcVideo2/asset/upload", json=body, headers=AUTH)
    assert response.status_code in (500, 503)
    assert len(handle.state.assets) == 1


def test_latency_makes_a_short_timeout_fire(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(latency_s=2.0, apply_to=("result",)))
    task_id = create_task(handle)
    with pytest.raises(httpx2.ReadTimeout):
        httpx2.get(f"{handle.base_url}/v1/result/{task_id}", headers=AUTH, timeout=0.2)
    assert handle.state.fault_counts()["latency"] == 1


def test_faults_follow_the_seed() -> None:
    config = FaultConfig(error_rate=0.3, rate_limit_rate=0.3, drop_rate=0.2, seed=11)
    first, second = FaultInjector(config), FaultInjector(config)
    assert [first.draw() for _ in range(50)] == [second.draw() for _ in range(50)]
    kinds = {first.draw() for _ in range(500)}
    assert kinds == {None, "drop", "error", "rate_limit"}


def test_fault_rates_are_roughly_honoured() -> None:
    injector = FaultInjector(
        FaultConfig(error_rate=0.1, rate_limit_rate=0.05, drop_rate=0.02, seed=3)
    )
    draws = [injector.draw() for _ in range(20_000)]
    assert draws.count("error") / 20_000 == pytest.approx(0.10, abs=0.01)
    assert draws.count("rate_limit") / 20_000 == pytest.approx(0.05, abs=0.01)
    assert draws.count("drop") / 20_000 == pytest.approx(0.02, abs=0.005)


def test_stream_cut_draws_and_counts() -> None:
    always = FaultInjector(FaultConfig(stream_cut_rate=1.0, seed=1))
    never = FaultInjector(FaultConfig())
    assert always.should_cut_stream()
    assert not never.should_cut_stream()
    assert always.counts["stream_cut"] == 1
    assert 3 <= always.cut_point(10) <= 7
    assert always.cut_point(1) == 0


def test_stream_cut_ends_a_chat_stream_without_done(serve: list[EmulatorHandle]) -> None:
    handle = start(serve, FaultConfig(stream_cut_rate=1.0, seed=2))
    body = {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": "tell me about owls"}],
        "stream": True,
    }
    with httpx2.stream(
        "POST", handle.text_base_url + "/v1/chat/completions", json=body, headers=AUTH
    ) as r:
        assert r.status_code == 200
        text = "".join(r.iter_text())
    assert "data: " in text
    assert "[DONE]" not in text
    assert handle.state.fault_counts()["stream_cut"] == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"error_rate": 1.5},
        {"drop_rate": -0.1},
        {"error_rate": 0.6, "rate_limit_rate": 0.6},
        {"latency_s": -1.0},
        {"apply_to": ("everything",)},
    ],
)
def test_fault_config_rejects_impossible_values(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message is tested by its text below
        FaultConfig(**kwargs)  # type: ignore[arg-type]


def test_faults_are_off_by_default() -> None:
    assert not FaultConfig().active
    assert FaultInjector(FaultConfig()).draw() is None


async def test_in_process_drop_raises_a_transport_error() -> None:
    app = make_app(faults=FaultConfig(drop_rate=1.0, seed=1))
    async with client(app) as c:
        with pytest.raises(httpx2.RemoteProtocolError) as caught:
            await c.get("/v1/result/x")
    assert isinstance(caught.value, ConnectionDropped)
