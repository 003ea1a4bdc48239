"""A request the browser's fetch could not send (CORS, usually) says so, in the client and
in the panel that sent it."""

from __future__ import annotations

import httpx2
import pytest

from mediagen_nb.client import APIConnectionError, AsyncClient
from mediagen_nb.client._exceptions import connection_error
from mediagen_nb.widgets._generate_panel import ImagePanel
from mediagen_nb.widgets._session import Session

KEY = "sk-cors-test"
SERVICE = "https://svc.example"


def _refusing(message: str) -> AsyncClient:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError(message, request=request)

    return AsyncClient(
        api_key=KEY,
        base_url=f"{SERVICE}/api",
        text_base_url=f"{SERVICE}/gateway",
        transport=httpx2.MockTransport(handler),
        max_retries=0,
        recorder=None,
    )


async def test_a_fetch_failure_names_cors_and_the_service_origin() -> None:
    async with _refusing("TypeError: Failed to fetch") as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.images.create("gpt-image-2", prompt="a fox")
    assert caught.value.cors
    text = str(caught.value)
    assert text.startswith(
        "the service at https://svc.example does not allow requests from this page (CORS)"
    )
    assert "Access-Control-Allow-Origin" in text
    assert "POST /api/" in text
    assert KEY not in text


async def test_an_ordinary_connection_failure_is_not_called_cors() -> None:
    async with _refusing("[Errno 111] Connection refused") as client:
        with pytest.raises(APIConnectionError) as caught:
            await client.images.create("gpt-image-2", prompt="a fox")
    assert not caught.value.cors
    assert "CORS" not in str(caught.value)
    assert "Connection refused" in str(caught.value)


@pytest.mark.parametrize(
    ("url", "message", "browser", "cors"),
    [
        ("https://svc.example/api/x", "anything", True, True),  # in a browser kernel
        (
            "https://svc.example/api/x",
            "NetworkError when attempting to fetch resource.",
            False,
            True,
        ),
        ("https://svc.example/api/x", "Load failed", False, True),
        ("http://emulator-3.mediagen.invalid/api/x", "dropped", True, False),  # in-process
        ("https://svc.example/api/x", "reset by peer", False, False),
    ],
)
def test_connection_error_decides_by_where_the_request_went(
    url: str, message: str, browser: bool, cors: bool
) -> None:
    request = httpx2.Request("GET", url)
    error = connection_error(request, httpx2.ConnectError(message), browser=browser)
    assert error.cors is cors
    assert ("(CORS)" in str(error)) is cors


async def test_the_panel_that_sent_it_shows_the_cors_sentence() -> None:
    client = _refusing("TypeError: Failed to fetch")
    panel = ImagePanel(session=Session(client=client), model="gpt-image-2")
    panel.set(prompt="a fox")
    job = panel.generate()
    assert job is not None
    await panel.join()
    assert "does not allow requests from this page (CORS)" in panel.notice
    assert panel.cards == []
    await client.aclose()
