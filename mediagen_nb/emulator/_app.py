"""``create_app``: the whole service as one Starlette ASGI app.

Task, result, media, asset and upload routes under ``/api``, chat under ``/gateway``;
``app.state.emulator`` is the :class:`~mediagen_nb.emulator._state.EmulatorState`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount

from mediagen_nb._serverkit.errors import error_response, http_error_response
from mediagen_nb._serverkit.urls import API_PREFIX, TEXT_PREFIX
from mediagen_nb.catalog import FAMILIES
from mediagen_nb.emulator._asset_journal import AssetJournal
from mediagen_nb.emulator._asset_routes import ASSET_POST_PATHS, asset_routes
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._journal import TaskJournal
from mediagen_nb.emulator._middleware import EmulatorMiddleware
from mediagen_nb.emulator._state import Clock, EmulatorState
from mediagen_nb.emulator._task_routes import result_reply, task_routes
from mediagen_nb.emulator._text_routes import text_routes
from mediagen_nb.emulator._uploads import upload_routes, upload_store

TEXT_POST_PATHS = ("/v1/chat/completions", "/v1/messages")
_log = logging.getLogger("mediagen_nb.emulator")


async def _http_error(request: Request, exc: Exception) -> Response:
    return http_error_response(request, exc)


async def _server_error(request: Request, exc: Exception) -> Response:
    _log.error("emulator bug on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal emulator error")


def create_app(
    *,
    api_key: str,
    speed: float = 1.0,
    faults: FaultConfig | None = None,
    clock: Clock | None = None,
    seed: int | None = None,
    state_dir: Path | None = None,
) -> Starlette:
    """Build the emulator as an ASGI app, to serve yourself or to reach in-process.

    Example:
        ```python
        app = create_app(api_key="test-key", speed=600)
        client = mg.AsyncClient(
            api_key="test-key",
            base_url="http://emu.test/api",
            text_base_url="http://emu.test/gateway",
            transport=httpx2.ASGITransport(app=app),
        )
        ```

    Args:
        api_key: The key clients must send (``Authorization: Bearer`` or ``x-api-key``).
        speed: How many times faster than the real service it runs: every service duration
            (ETAs, reviews, poll intervals, URL lifetimes, retention) is divided by it
            (30: a 2-minute video takes 4 s). Default 1, the service's own pace.
        faults: Errors, 429s, dropped connections, latency and stream cuts to inject on
            purpose; None (the default) injects none.
        clock: Returns the current time in seconds, in place of ``time.time`` (tests
            advance one by hand).
        seed: Makes ids and timings reproducible (result and upload links stay
            unguessable); None: different every run.
        state_dir: A folder for the journals of task and asset records and for uploaded
            files, so a new emulator on the same folder still knows (and finishes) the
            tasks and assets of a previous one; None keeps everything in memory.

    Returns:
        A Starlette app: image, video, result, media, asset and upload endpoints under
        ``/api``, chat completions and messages under ``/gateway``; its state is
        ``app.state.emulator`` (an :class:`EmulatorState`).

    Raises:
        ValueError: ``api_key`` is empty or ``speed`` is not positive.
        OSError: ``state_dir`` cannot be created.
    """
    state = EmulatorState(api_key=api_key, speed=speed, faults=faults, clock=clock, seed=seed)
    if state_dir is not None:
        state.tasks.use_journal(TaskJournal(state_dir))
        state.assets.use_journal(AssetJournal(state_dir))
    uploads = upload_store(state_dir)
    state.uploaded = uploads.get
    post_paths = [API_PREFIX + fam.create_path for fam in FAMILIES.values()]
    post_paths += [API_PREFIX + path for path in ASSET_POST_PATHS]
    post_paths += [TEXT_PREFIX + path for path in TEXT_POST_PATHS]
    app = Starlette(
        routes=[
            Mount(
                API_PREFIX,
                routes=[*task_routes(state), *asset_routes(state), *upload_routes(store=uploads)],
            ),
            Mount(TEXT_PREFIX, routes=text_routes()),
        ],
        middleware=[
            Middleware(
                EmulatorMiddleware,
                state=state,
                post_paths=post_paths,
                fast_result=lambda scope, task_id: result_reply(state, scope, task_id),
            )
        ],
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
    )
    app.state.emulator = state
    return app
