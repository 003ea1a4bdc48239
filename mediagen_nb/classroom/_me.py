"""``GET {base_url}/v1/classroom/me``: what a student may still do, in the student's terms.

Name and groups, the allowed models (``null``: all) with a default per kind, the limits that
apply, what is used (held by running requests too, as the budget check counts), what is left
(the smaller of the student's and the class's room), and whether the class is paused.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from mediagen_nb._serverkit.errors import dumps
from mediagen_nb.catalog import TEXT_MODELS, families
from mediagen_nb.classroom._codes import Student
from mediagen_nb.classroom._gateway import Gateway, student_of
from mediagen_nb.classroom._rules import Limits, Rules, Usage

ME_PATH = "/v1/classroom/me"
LIMITED = ("images", "videos", "concurrent", "chat_tokens")


def default_models(rules: Rules) -> dict[str, str | None]:
    """The model a student's form starts on, per kind: the first allowed one in the
    catalog's order (None when the class allows every model: the form keeps its own)."""
    if rules.models is None:
        return {"image": None, "video": None, "chat": None}
    found: dict[str, str | None] = {}
    for kind in ("image", "video"):
        names = [m for fam in families(kind) for m in fam.models if m in rules.models]
        found[kind] = names[0] if names else None
    chats = [name for name in TEXT_MODELS if name in rules.models]
    found["chat"] = chats[0] if chats else None
    return found


def _used(usage: Usage) -> dict[str, int]:
    return {
        "images": usage.images,
        "videos": usage.videos,
        "concurrent": usage.in_flight,
        "chat_tokens": usage.chat_tokens,
    }


def _left(
    own: Limits, whole: Limits, mine: dict[str, int], everyone: dict[str, int]
) -> dict[str, int | None]:
    """Room left under the student's and the class's caps (None: no cap)."""
    left: dict[str, int | None] = {}
    for name in LIMITED:
        room = [
            max(0, cap - used)
            for cap, used in (
                (getattr(own, name), mine[name]),
                (getattr(whole, name), everyone[name]),
            )
            if cap is not None
        ]
        left[name] = min(room) if room else None
    return left


def me_payload(gw: Gateway, student: Student) -> dict[str, Any]:
    """The ``/v1/classroom/me`` answer for ``student``."""
    rules = gw.state.rules
    own = rules.limits_for(student.name, student.groups)
    mine = _used(gw.state.ledger.usage(student.name))
    everyone = _used(gw.state.ledger.usage(None))
    return {
        "object": "classroom.me",
        "student": student.name,
        "groups": list(student.groups),
        "models": None if rules.models is None else sorted(rules.models),
        "default_models": default_models(rules),
        "limits": {name: getattr(own, name) for name in LIMITED},
        "used": mine,
        "left": _left(own, rules.class_limits, mine, everyone),
        "paused": rules.paused,
    }


def me_endpoint(gw: Gateway) -> Any:
    """The route's endpoint."""

    async def me(request: Request) -> Response:
        body = me_payload(gw, student_of(request))
        return Response(dumps(body), media_type="application/json")

    return me
