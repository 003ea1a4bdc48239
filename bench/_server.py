"""Servers for the benchmarks, each run in its own process (``bench._common.serve``).

``python bench/_server.py KIND [options]`` (repository on ``PYTHONPATH``) binds 127.0.0.1
on a free port, prints ``READY {"port": N, ...}`` and serves until its stdin closes. Every
kind uses the uvicorn settings of ``mediagen_nb.emulator.start_emulator`` (h11 protocol,
its idle keep-alive, lifespan off, no access log), so side-by-side figures compare apps,
not server settings.

Kinds:

* ``emulator --speed X``: the emulator app, plus ``POST /bench/tasks`` (body: a list of task
  ids) answering each task's timeline (``t0``, ``done_at``, ``min_interval``) and the 429
  counter, so a bench can compute the ideal number of polls; ``GET /bench/polls`` lists every
  result poll it answered (task id, wall-clock time, the gateway its ``User-Agent`` names).
* ``bare``: a bare Starlette app whose ``GET /api/v1/result/{id}`` answers a fixed JSON body
  of the emulator's completed-image shape (the baseline of the result-endpoint figure).
* ``classroom --upstream ROOT --students N``: a classroom gateway (``start_classroom``, its
  own uvicorn thread in this child) in front of the emulator at ``ROOT``, with N coded
  students; READY also carries the codes and the teacher token (``/wall/api/state`` then
  gives the gateway's counters, upstream polls included).
* ``longstream --tokens N --rate R``: ``POST /gateway/v1/chat/completions`` streams an
  OpenAI-style SSE reply of N one-token deltas at R tokens per second (the emulator's
  answers are ~100 tokens; the ChatPanel figure needs 10,000).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from mediagen_nb._serverkit.runner import KEEP_ALIVE_S, DroppingH11Protocol
from mediagen_nb.emulator import create_app

API_KEY = "bench-key-not-secret"
RESULT_PATH = "/api/v1/result/"


def stream_token(index: int) -> str:
    """The ``index``-th token of the long stream (unique, so a lost one is visible)."""
    return f" w{index}"


def bare_result_body(task_id: str) -> dict[str, Any]:
    """A completed banana result, shaped like the emulator's."""
    return {
        "id": task_id,
        "object": "image",
        "created": 1_780_000_000,
        "model": "nano-banana-pro",
        "status": "completed",
        "image_url": "http://127.0.0.1/api/media/0123456789abcdef0123456789abcdef.png",
        "error": None,
    }


class CountingH11Protocol(DroppingH11Protocol):
    """The servers' protocol, noting the most connections open at once and each connection
    it refused or dropped (by status): which side closed, seen from the server."""

    peak: ClassVar[int] = 0
    refused: ClassVar[Counter[str]] = Counter()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        CountingH11Protocol.peak = max(CountingH11Protocol.peak, len(self.connections) + 1)
        super().connection_made(transport)

    def _refuse(self, status: int, message: str, reason: bytes) -> None:
        CountingH11Protocol.refused[f"refused_{status}"] += 1
        super()._refuse(status, message, reason)


def connection_counters() -> dict[str, int]:
    """``connections_peak`` and ``refused_<status>`` of this server process."""
    return {"connections_peak": CountingH11Protocol.peak, **CountingH11Protocol.refused}


def emulator_app(speed: float) -> ASGIApp:
    """The emulator app behind a tiny router adding ``POST /bench/tasks``."""
    app = create_app(api_key=API_KEY, speed=speed, seed=1)
    state = app.state.emulator

    async def tasks_info(request: Request) -> Response:
        ids = json.loads(await request.body())
        info: dict[str, Any] = {}
        for task_id in ids:
            task = state.tasks.get(task_id)
            if task is not None:
                info[task_id] = {
                    "t0": task.t0,
                    "done_at": task.done_at,
                    "min_interval": task.min_interval,
                }
        counters = {**state.counters, **connection_counters()}
        return JSONResponse({"tasks": info, "counters": counters})

    polls: list[tuple[str, float, str]] = []

    async def poll_list(request: Request) -> Response:
        return JSONResponse({"polls": polls})

    extra = Starlette(
        routes=[
            Route("/bench/tasks", tasks_info, methods=["POST"]),
            Route("/bench/polls", poll_list, methods=["GET"]),
        ]
    )

    async def router(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/bench/"):
            await extra(scope, receive, send)
            return
        if scope["type"] == "http" and path.startswith(RESULT_PATH):
            agent = dict(scope["headers"]).get(b"user-agent", b"").decode("latin-1")
            polls.append((path[len(RESULT_PATH) :], time.time(), agent))
        await app(scope, receive, send)

    return router


def bare_app() -> ASGIApp:
    """A bare Starlette JSON endpoint at the emulator's result path."""

    async def result(request: Request) -> Response:
        return JSONResponse(bare_result_body(request.path_params["id"]))

    return Starlette(routes=[Route("/api/v1/result/{id}", result, methods=["GET"])])


def longstream_app(tokens: int, rate: float) -> ASGIApp:
    """An OpenAI-style chat endpoint streaming ``tokens`` one-token deltas at ``rate``/s."""

    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        model = str(body.get("model", "model"))

        def chunk(delta: dict[str, Any], finish: str | None) -> bytes:
            payload = {
                "id": "chatcmpl-bench",
                "object": "chat.completion.chunk",
                "created": 1_780_000_000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return b"data: " + json.dumps(payload).encode() + b"\n\n"

        async def events() -> AsyncIterator[bytes]:
            yield chunk({"role": "assistant", "content": ""}, None)
            start = time.monotonic()
            for index in range(tokens):
                due = start + index / rate
                delay = due - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                yield chunk({"content": stream_token(index)}, None)
            yield chunk({}, "stop")
            yield b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(routes=[Route("/gateway/v1/chat/completions", chat, methods=["POST"])])


async def run(app: ASGIApp, info: dict[str, Any]) -> None:
    """Serve ``app`` like ``start_emulator`` does; print READY; stop when stdin closes."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        http=CountingH11Protocol,
        timeout_keep_alive=KEEP_ALIVE_S,
        lifespan="off",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            await serving
            raise RuntimeError("server stopped before starting")
        await asyncio.sleep(0.005)
    port = server.servers[0].sockets[0].getsockname()[1]
    print("READY " + json.dumps({"port": port, "api_key": API_KEY, **info}), flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()

    def watch_stdin() -> None:
        sys.stdin.read()
        loop.call_soon_threadsafe(stdin_closed.set)

    threading.Thread(target=watch_stdin, daemon=True).start()
    closed = asyncio.ensure_future(stdin_closed.wait())
    await asyncio.wait({closed, serving}, return_when=asyncio.FIRST_COMPLETED)
    closed.cancel()
    server.should_exit = True
    await serving


def run_classroom(upstream_root: str, students: int) -> None:
    """Serve a classroom gateway until stdin closes (see the module docstring)."""
    import tempfile
    from pathlib import Path

    from mediagen_nb.classroom import Upstream, start_classroom
    from mediagen_nb.client._config import Secret

    upstream = Upstream(
        upstream_root + "/api", upstream_root + "/gateway", Secret(API_KEY), kind="emulator"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    with start_classroom(students, upstream=upstream, folder=folder) as room:
        info = {
            "port": room.port,
            "codes": list(room.codes.values()),
            "teacher_token": room.teacher_token,
        }
        print("READY " + json.dumps(info), flush=True)
        sys.stdin.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=["emulator", "bare", "longstream", "classroom"])
    parser.add_argument("--upstream", default="")
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--speed", type=float, default=1000.0)
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=2_000.0)
    args = parser.parse_args()
    if args.kind == "classroom":
        run_classroom(args.upstream, args.students)
        return
    if args.kind == "emulator":
        app, info = emulator_app(args.speed), {"speed": args.speed}
    elif args.kind == "bare":
        app, info = bare_app(), {}
    else:
        app, info = longstream_app(args.tokens, args.rate), {"tokens": args.tokens}
    asyncio.run(run(app, info))


if __name__ == "__main__":
    main()
