"""``create_gateway_app``: the gateway as one Starlette app.

``/api`` is the students' ``base_url``, ``/gateway`` their ``text_base_url``, ``/wall`` the
wall and the teacher's controls. The lifespan opens the one upstream client and resumes
following every task in flight; CORS is off unless the teacher lists origins.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Final

import httpx2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mediagen_nb._serverkit.errors import error_response, http_error_response, protocol_of
from mediagen_nb._serverkit.urls import API_PREFIX, TEXT_PREFIX
from mediagen_nb.classroom._front import GatewayFront
from mediagen_nb.classroom._gateway import Gateway
from mediagen_nb.classroom._routes import result_reply, student_routes
from mediagen_nb.classroom._shared import SYNC_S, SharedLedger
from mediagen_nb.classroom._tracker import Tracker
from mediagen_nb.classroom._wall import Wall

WALL_PATH: Final = "/wall"
UPSTREAM_TIMEOUT: Final = httpx2.Timeout(60.0, connect=10.0, read=300.0)
"""Per request: 10 s to connect, 60 s to send, 300 s between two bytes of a (streamed) reply."""
UPSTREAM_LIMITS: Final = httpx2.Limits(max_connections=200, max_keepalive_connections=200)
log = logging.getLogger("mediagen_nb.classroom")


async def _http_error(request: Request, exc: Exception) -> Response:
    """The emulator's answer to an unknown path or method, in the protocol's envelope."""
    return http_error_response(request, exc, protocol=protocol_of(request.url.path))


async def _server_error(request: Request, exc: Exception) -> Response:
    log.error("gateway bug on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal gateway error", protocol=protocol_of(request.url.path))


async def keep_shared(gw: Gateway, shared: SharedLedger) -> None:
    """Follow the tasks whose holder died and catch up on the other gateways, every tick
    (at most a tenth of a lease: an orphan waits at most a lease and a tenth after the
    last renewal of its dead holder)."""
    tick = min(SYNC_S, shared.lease_s / 10)
    while True:
        try:
            claimed = await asyncio.to_thread(shared.claim_leases)
            if gw.tracker is not None:
                for record in gw.state.adopt(claimed):
                    gw.tracker.follow(record, taken_over=True)
            await asyncio.to_thread(gw.state.sync)
        except Exception:  # the database may be restarting: try again at the next tick
            log.exception("catching up on the shared ledger failed")
        await asyncio.sleep(tick)


class StripPrefix:
    """Serve the app under ``prefix`` too: JupyterHub's proxy forwards a service's requests
    with their path (``/services/mediagen/wall``). The path loses the prefix (routes and the
    front see the usual paths) and ``app_root_path`` keeps it, so the media URLs the gateway
    writes for such a request (``_serverkit.urls.media_root``) keep it too."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.prefix = prefix.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if self.prefix and scope["type"] == "http" and path.startswith(self.prefix + "/"):
            root = scope.get("app_root_path", scope.get("root_path", "")) + self.prefix
            scope = {**scope, "path": path[len(self.prefix) :], "app_root_path": root}
        await self.app(scope, receive, send)


def create_gateway_app(
    gw: Gateway, wall: Wall, cors_origins: Sequence[str] = (), prefix: str = ""
) -> Starlette:
    """The gateway app over ``gw`` (state, upstream, media folder) and ``wall``; ``prefix``:
    a path it is also served under (a JupyterHub service's ``/services/<name>/``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # retries: only connections that failed to open (the request was never sent)
        transport = httpx2.AsyncHTTPTransport(limits=UPSTREAM_LIMITS, retries=1)
        async with httpx2.AsyncClient(timeout=UPSTREAM_TIMEOUT, transport=transport) as http:
            gw.http = http
            gw.tracker = Tracker(gw.state, gw.upstream, http, gw.media_dir)
            shared = gw.state.shared
            keeper = None
            if shared is not None:
                keeper = asyncio.create_task(keep_shared(gw, shared))
            else:
                for record in gw.state.in_flight():
                    gw.tracker.follow(record)
            try:
                yield
            finally:
                if keeper is not None:
                    keeper.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await keeper
                await gw.tracker.stop()
                if shared is not None:  # the other gateways take its tasks at once
                    with contextlib.suppress(Exception):
                        shared.release_leases()
                gw.http = None
                if gw.hub is not None:
                    await gw.hub.aclose()

    api, text = student_routes(gw)
    fast = functools.partial(result_reply, gw)
    middleware = [
        Middleware(GatewayFront, state=gw.state, fast_result=fast, guard=gw.guard, hub=gw.hub)
    ]
    if prefix:
        middleware.insert(0, Middleware(StripPrefix, prefix=prefix))
    if cors_origins:
        middleware.insert(
            0,
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["authorization", "content-type", "x-api-key", "anthropic-version"],
                expose_headers=["retry-after", "x-mediagen-emulator-speed", "request-id"],
            ),
        )
    return Starlette(
        routes=[
            Mount(API_PREFIX, routes=api),
            Mount(TEXT_PREFIX, routes=text),
            Route(WALL_PATH, wall.page, methods=["GET"]),
            Mount(WALL_PATH, routes=wall.routes()),
        ],
        middleware=middleware,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        lifespan=lifespan,
    )
