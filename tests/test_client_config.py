"""Settings resolution, demo mode, and the API key never showing up anywhere."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx2
import pytest

import mediagen_nb.client._client as client_module
from mediagen_nb import _hooks
from mediagen_nb.client import (
    APIConnectionError,
    AsyncClient,
    AuthenticationError,
    Client,
    ConfigurationError,
)
from mediagen_nb.client._config import Secret, redact, resolve_settings
from tests._support import KEY, FakeClock
from tests.client_fakes import BASE, TEXT, FakeService, MemoryRecorder


def test_secret_never_shows_its_value() -> None:
    secret = Secret(KEY)
    assert KEY not in repr(secret)
    assert KEY not in str(secret)
    assert KEY not in f"{secret} {secret!r}"
    assert secret.get_secret_value() == KEY
    assert "sk-" not in repr(secret)


def test_redact_scrubs_known_keys_and_bearer_tokens() -> None:
    Secret(KEY)
    text = f"url=http://x?k={KEY} header Authorization: Bearer other-token-123"
    cleaned = redact(text)
    assert KEY not in cleaned
    assert "other-token-123" not in cleaned
    assert "Bearer [redacted]" in cleaned


def test_settings_from_env_and_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDIAGEN_API_KEY", KEY)
    monkeypatch.setenv("MEDIAGEN_BASE_URL", BASE + "/")
    monkeypatch.setenv("MEDIAGEN_TEXT_BASE_URL", TEXT)
    settings = resolve_settings()
    assert settings.api_key == Secret(KEY)
    assert settings.base_url == BASE
    assert settings.text_base_url == TEXT
    assert KEY not in repr(settings)
    explicit = resolve_settings("sk-other-key", "http://other/api")
    assert explicit.api_key is not None
    assert explicit.api_key.get_secret_value() == "sk-other-key"
    assert explicit.base_url == "http://other/api"
    assert explicit.text_base_url == TEXT


def test_key_without_base_url_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="MEDIAGEN_BASE_URL"):
        AsyncClient(KEY, recorder=None)


def test_base_url_without_key_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="no API key"):
        AsyncClient(base_url=BASE, recorder=None)


def test_no_key_and_no_fallback_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_hooks, "_fallback_factory", None)
    with pytest.raises(ConfigurationError, match="MEDIAGEN_API_KEY"):
        AsyncClient(recorder=None)


async def test_demo_mode_uses_fallback_service_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint = _hooks.ServiceEndpoint(BASE, TEXT, "emu-key-123456")
    monkeypatch.setattr(_hooks, "_fallback_factory", lambda: endpoint)
    monkeypatch.setattr(client_module, "_notice_shown", False)
    service = FakeService(script=["completed"])
    first = AsyncClient(transport=httpx2.MockTransport(service), recorder=None)
    second = AsyncClient(transport=httpx2.MockTransport(service), recorder=None)
    assert first.demo_mode
    assert second.demo_mode
    assert first.base_url == BASE
    assert first.text_base_url == TEXT
    err = capsys.readouterr().err
    assert err.count("demo mode: using the built-in emulator at " + BASE) == 1
    task = await first.images.create("nano-banana", prompt="a red square")
    assert service.requests[-1].headers["authorization"] == "Bearer emu-key-123456"
    assert task.status == "queued"
    await first.aclose()
    await second.aclose()


async def test_key_absent_from_repr_errors_logs_and_records(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)

    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        if request.url.path.endswith("/boom"):
            raise httpx2.ConnectError(f"cannot connect, token {KEY}")
        if request.url.path.endswith("/result/echo"):
            return httpx2.Response(401, json={"error": {"message": f"bad key {KEY}"}})
        return httpx2.Response(200, json={"id": "x", "status": "queued"})

    recorder = MemoryRecorder(tmp_path)
    clock = FakeClock()
    client = AsyncClient(
        KEY,
        BASE,
        TEXT,
        httpx2.MockTransport(handler),
        recorder=recorder,
        sleep=clock.sleep,
        clock=clock,
        max_retries=1,
    )
    assert KEY not in repr(client)
    with pytest.raises(AuthenticationError) as auth:
        await client.tasks.get("echo")
    assert KEY not in str(auth.value)
    assert KEY not in auth.value.body
    with pytest.raises(APIConnectionError) as conn:
        await client.tasks.get("boom")
    assert KEY not in str(conn.value)
    logging.getLogger("mediagen_nb.client").warning("key is %s", KEY)
    logging.getLogger("httpx2").info("header Authorization: Bearer %s", KEY)
    await client.images.create("nano-banana", prompt="p")
    assert caplog.records
    for record in caplog.records:
        assert KEY not in record.getMessage()
    assert KEY not in caplog.text
    assert KEY not in json.dumps([e.data for e in recorder.events], default=str)
    sync = Client(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=None)
    assert KEY not in repr(sync)
    assert KEY not in str(sync)
    sync.close()
    await client.aclose()


async def test_bearer_not_sent_to_foreign_hosts() -> None:
    seen: dict[str, str | None] = {}

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen[request.url.host] = request.headers.get("authorization")
        return httpx2.Response(200, content=b"data")

    async with AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=None) as c:
        assert await c._core.download("http://cdn.test/x.png") == b"data"
        assert await c._core.download("/api/media/y.png") == b"data"
    assert seen["cdn.test"] is None
    assert seen["svc.test"] == f"Bearer {KEY}"
