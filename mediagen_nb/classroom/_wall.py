"""The live wall: a page for the projector and the teacher's controls behind it.

``/wall`` is the page and ``/wall/feed.json`` the completed items anyone may read;
``/wall/api/...`` are the teacher's controls, behind the teacher token.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from mediagen_nb._serverkit.errors import dumps, error_response
from mediagen_nb.classroom._export import export_zip
from mediagen_nb.classroom._rows import TaskRecord
from mediagen_nb.classroom._state import ClassState

STATIC: Final = Path(__file__).parent / "static"
KIT: Final = Path(__file__).parent.parent / "widgets" / "static"
"""The widgets' hand-written kit: the wall reads its files (it imports no widget code)."""
STATIC_FILES: Final = {
    "wall.js": (
        "text/javascript",
        (
            KIT / "kit.js",
            KIT / "kit_table.js",
            KIT / "classroom_parts.js",
            KIT / "classroom_queue.js",
            STATIC / "wall.js",
        ),
    ),
    "wall.css": ("text/css", (KIT / "kit.css", KIT / "classroom.css", STATIC / "wall.css")),
}
"""Each file the page loads, composed of the kit's files and the wall's own (no build)."""
NO_STORE: Final = {"cache-control": "no-store"}
MAX_CONTROL_BYTES: Final = 4096
Endpoint = Callable[[Request], Awaitable[Response]]


TEACHER_CHATS: Final = 100
"""Chat turns the teacher's page lists (newest first)."""
TEACHER_REFUSALS: Final = 50


def wall_item(task: TaskRecord, *, waiting: bool = False) -> dict[str, Any]:
    """One item of the feed (``waiting``: for the teacher's approval)."""
    return {
        "id": task.id,
        "student": task.student,
        "prompt": task.prompt,
        "kind": task.kind,
        "model": task.model,
        "url": f"/api/media/{task.media}",
        "finished": task.updated,
        "hidden": task.hidden,
        "waiting": waiting,
    }


def feed(state: ClassState, *, include_hidden: bool = False) -> dict[str, Any]:
    """The feed's JSON object (only public items unless ``include_hidden``)."""
    items = state.wall_items(include_hidden=include_hidden)
    waiting = {t.id for t in state.waiting()} if include_hidden else set()
    return {
        "version": state.version,
        "paused": state.rules.paused,
        "items": [wall_item(t, waiting=t.id in waiting) for t in items],
    }


def teacher_state(state: ClassState, stats: dict[str, int]) -> dict[str, Any]:
    """Feed with hidden and waiting items, the approval queue, usage per student, recent
    refused prompts and chat turns, and the gateway's counters."""
    moderation = state.moderation
    return {
        **feed(state, include_hidden=True),
        "approve": moderation.approve,
        "queue": [wall_item(t, waiting=True) for t in state.waiting()],
        "refusals": list(moderation.refusals)[:TEACHER_REFUSALS],
        "chats": [turn.as_dict() for turn in state.ledger.chat_turns(limit=TEACHER_CHATS)],
        "usage": state.usage_table(),
        "counters": stats,
    }


class Wall:
    """The wall's routes over one class."""

    def __init__(
        self,
        state: ClassState,
        media_dir: Path,
        teacher_token: str,
        stats: Callable[[], dict[str, int]] = dict,
    ) -> None:
        self.state = state
        self.stats = stats
        self.media_dir = media_dir
        self._token = teacher_token.encode()

    def is_teacher(self, request: Request) -> bool:
        """Whether the request carries the teacher token."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode(), self._token
        )

    def routes(self) -> list[BaseRoute]:
        """Routes mounted at ``/wall`` (the app routes ``/wall`` itself to :meth:`page`)."""
        return [
            Route("/", self.page, methods=["GET"]),
            Route("/static/{name}", self.static, methods=["GET"]),
            Route("/feed.json", self.feed, methods=["GET"]),
            Route("/api/state", self._teacher(self.api_state), methods=["GET"]),
            Route("/api/hide", self._teacher(self.api_hide), methods=["POST"]),
            Route("/api/approve", self._teacher(self.api_approve), methods=["POST"]),
            Route("/api/pause", self._teacher(self.api_pause), methods=["POST"]),
            Route("/api/export.zip", self._teacher(self.api_export), methods=["GET"]),
        ]

    def _teacher(self, endpoint: Endpoint) -> Endpoint:
        async def guarded(request: Request) -> Response:
            if not self.is_teacher(request):
                return error_response(401, "the teacher token is missing or wrong")
            return await endpoint(request)

        return guarded

    async def page(self, request: Request) -> Response:
        """The wall page."""
        return FileResponse(STATIC / "wall.html", media_type="text/html", headers=NO_STORE)

    async def static(self, request: Request) -> Response:
        """The page's script and style sheet."""
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return error_response(404, f"no file {name} on the wall")
        media_type, parts = STATIC_FILES[name]
        body = "\n".join(f"/* --- {p.name} --- */\n{p.read_text(encoding='utf-8')}" for p in parts)
        return Response(body, media_type=media_type, headers=NO_STORE)

    async def feed(self, request: Request) -> Response:
        """Public feed (204 when ``since`` is the current version)."""
        if request.query_params.get("since") == str(self.state.version):
            return Response(status_code=204, headers=NO_STORE)
        return Response(dumps(feed(self.state)), media_type="application/json", headers=NO_STORE)

    async def api_state(self, request: Request) -> Response:
        """Teacher's view."""
        body = dumps(teacher_state(self.state, self.stats()))
        return Response(body, media_type="application/json", headers=NO_STORE)

    async def _control(self, request: Request) -> dict[str, Any] | Response:
        raw = await request.body()
        if len(raw) > MAX_CONTROL_BYTES:
            return error_response(413, "control requests are small JSON objects")
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            return error_response(400, "send a JSON object")
        if not isinstance(data, dict):
            return error_response(400, "send a JSON object")
        return data

    async def api_hide(self, request: Request) -> Response:
        """Hide or show an item."""
        data = await self._control(request)
        if isinstance(data, Response):
            return data
        try:
            self.state.hide(str(data.get("id", "")), bool(data.get("hidden", True)))
        except KeyError as error:
            return error_response(404, str(error.args[0]))
        return await self.api_state(request)

    async def api_approve(self, request: Request) -> Response:
        """Approve an item for the wall."""
        data = await self._control(request)
        if isinstance(data, Response):
            return data
        try:
            self.state.approve(str(data.get("id", "")))
        except KeyError as error:
            return error_response(404, str(error.args[0]))
        return await self.api_state(request)

    async def api_pause(self, request: Request) -> Response:
        """Pause or resume the class."""
        data = await self._control(request)
        if isinstance(data, Response):
            return data
        if not isinstance(data.get("paused"), bool):
            return error_response(400, "paused must be true or false")
        self.state.set_paused(data["paused"])
        return await self.api_state(request)

    async def api_export(self, request: Request) -> Response:
        """The gallery zip."""
        data = export_zip(self.state, self.media_dir)
        return Response(
            data,
            media_type="application/zip",
            headers={"content-disposition": 'attachment; filename="class-gallery.zip"'},
        )
