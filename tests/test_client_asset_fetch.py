"""An asset preview never leads the kernel to an internal address: each redirect target is
checked by the public-address rule before it is requested; public redirects still work, and
a redirect loop ends."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from mediagen_nb import _hooks
from mediagen_nb.client import APIConnectionError, AsyncClient
from tests._support import KEY

PUBLIC = "http://assets.example.com"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
INTERNAL = [
    "http://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:8080/admin",
    "http://10.1.2.3/x",
    "http://localhost/x",
    "http://[::1]/x",
    "http://2130706433/x",
]


class Web:
    """A tiny web behind one transport: answers by path, records every URL requested."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.location = ""

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.seen.append(str(request.url))
        if request.url.path == "/redirect":
            return httpx2.Response(302, headers={"location": self.location})
        if request.url.path == "/loop":
            return httpx2.Response(302, headers={"location": "/loop"})
        return httpx2.Response(200, content=PNG)


@pytest.fixture
def web() -> Iterator[Web]:
    handler = Web()
    _hooks.register_local_transport(PUBLIC, lambda: httpx2.MockTransport(handler))
    yield handler
    _hooks.register_local_transport(PUBLIC, None)


def client() -> AsyncClient:
    return AsyncClient(KEY, "http://svc.example.org/api", "http://svc.example.org/gateway")


@pytest.mark.parametrize("target", INTERNAL)
async def test_a_redirect_to_an_internal_address_is_not_followed(web: Web, target: str) -> None:
    web.location = target
    async with client() as api:
        with pytest.raises(ValueError, match="not fetched"):
            await api.assets.fetch_media(f"{PUBLIC}/redirect", max_bytes=10_000)
    assert web.seen == [f"{PUBLIC}/redirect"]


async def test_a_public_redirect_is_followed(web: Web) -> None:
    web.location = f"{PUBLIC}/picture.png"
    async with client() as api:
        data = await api.assets.fetch_media(f"{PUBLIC}/redirect", max_bytes=10_000)
    assert data == PNG
    assert web.seen == [f"{PUBLIC}/redirect", f"{PUBLIC}/picture.png"]


async def test_a_redirect_loop_ends(web: Web) -> None:
    async with client() as api:
        with pytest.raises(APIConnectionError, match="redirects"):
            await api.assets.fetch_media(f"{PUBLIC}/loop", max_bytes=10_000)
    assert 1 < len(web.seen) <= 4
