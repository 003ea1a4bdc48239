"""Gateways as separate processes (so one can be SIGKILLed) and an upstream that records polls.

``RecordingProxy`` stands between the gateways and one emulator: it forwards everything and
writes down each result poll (task id, the gateway named in ``User-Agent``, when it started
and ended, how many polls of that task were in flight at once). ``GatewayProcess`` runs
``mediagen-nb classroom`` in a child interpreter and reads the addresses it prints.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mediagen_nb._serverkit.runner import serve_in_thread

ROOT = Path(__file__).resolve().parent.parent
RESULT = re.compile(r"^/api/v1/result/([^/]+)$")
AGENT = re.compile(r"\((gw-[0-9a-f]+)\)")
KEPT_HEADERS = ("content-type", "retry-after", "x-mediagen-emulator-speed")


@dataclass(frozen=True)
class Poll:
    """One result poll the proxy forwarded."""

    task: str
    gateway: str
    start: float
    end: float


@dataclass
class RecordingProxy:
    """Forwards to ``target`` (the emulator's root) and records result polls."""

    target: str
    polls: list[Poll] = field(default_factory=list)
    most_at_once: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _open: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def start(self) -> None:
        """Serve on a free loopback port (``url`` is its root)."""
        state: dict[str, httpx2.AsyncClient] = {}

        @asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            async with httpx2.AsyncClient(timeout=60) as http:
                state["http"] = http
                yield

        async def forward(request: Request) -> Response:
            return await self._forward(state["http"], request)

        app = Starlette(
            routes=[Route("/{path:path}", forward, methods=["GET", "POST", "DELETE"])],
            lifespan=lifespan,
        )
        self._server, self._thread, port = serve_in_thread(
            app, "127.0.0.1", 0, what="the recording proxy", lifespan="on"
        )
        self.url = f"http://127.0.0.1:{port}"

    async def _forward(self, http: httpx2.AsyncClient, request: Request) -> Response:
        path = request.url.path
        found = RESULT.match(path)
        task = found.group(1) if found else None
        agent = AGENT.search(request.headers.get("user-agent", ""))
        begun = time.monotonic()
        if task is not None:
            with self._lock:
                self._open[task] += 1
                self.most_at_once[task] = max(self.most_at_once[task], self._open[task])
        try:
            headers = {
                k: v for k, v in request.headers.items() if k in ("authorization", "content-type")
            }
            answer = await http.request(
                request.method,
                self.target + path,
                content=await request.body(),
                headers=headers,
                params=request.query_params,
            )
        finally:
            if task is not None:
                with self._lock:
                    self._open[task] -= 1
                    who = agent.group(1) if agent else "?"
                    self.polls.append(Poll(task, who, begun, time.monotonic()))
        kept = {k: v for k, v in answer.headers.items() if k in KEPT_HEADERS}
        return Response(answer.content, status_code=answer.status_code, headers=kept)

    def pollers(self, task: str) -> list[str]:
        """The gateways that polled ``task``, one entry per poll, in order."""
        with self._lock:
            return [p.gateway for p in sorted(self.polls, key=lambda p: p.start) if p.task == task]

    def stop(self) -> None:
        """Stop serving."""
        self._server.should_exit = True
        self._thread.join(10)


class GatewayProcess:
    """``mediagen-nb classroom ...`` in a child interpreter."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], log: Path) -> None:
        self._log = log.open("w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from mediagen_nb.cli import main; sys.exit(main(sys.argv[1:]))",
                "classroom",
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **env},
        )
        self._lines: queue.Queue[str] = queue.Queue()
        stdout: IO[str] = self.proc.stdout  # type: ignore[assignment]
        threading.Thread(target=self._drain, args=(stdout,), daemon=True).start()
        self.printed = self._until("Press Ctrl-C", log)
        self.base_url = self._value(r"MEDIAGEN_BASE_URL=(\S+)")
        self.text_base_url = self._value(r"MEDIAGEN_TEXT_BASE_URL=(\S+)")
        self.holder = self._value(r"this gateway is (gw-[0-9a-f]+)")

    def _drain(self, stdout: IO[str]) -> None:
        for line in stdout:
            self._lines.put(line)

    def _until(self, marker: str, log: Path, within: float = 60.0) -> str:
        seen: list[str] = []
        deadline = time.monotonic() + within
        while not seen or marker not in seen[-1]:
            try:
                seen.append(self._lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                self.kill()
                raise AssertionError(
                    f"the gateway did not start: {''.join(seen)}{log.read_text()[-3000:]}"
                ) from None
        return "".join(seen)

    def _value(self, pattern: str) -> str:
        found = re.search(pattern, self.printed)
        assert found is not None, f"{pattern!r} not in {self.printed!r}"
        return found.group(1)

    def kill(self) -> None:
        """SIGKILL (nothing runs after it: no lease given back, no transaction finished)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        """Stop as Ctrl-C would, or kill after 10 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()
