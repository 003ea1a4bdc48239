"""A refused request, in the shape the student's endpoint normally answers with.

A failed task for creates, a 403 ``permission_error`` (``x-should-retry: false``) for chat
completions and messages, the ``{"code": "403"}`` envelope for asset libraries: shapes our
client and the vendors' SDKs already show well.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, Final

from starlette.responses import Response

from mediagen_nb._serverkit.errors import JSON_TYPE, dumps, error_response
from mediagen_nb.types import ChatProtocol

REFUSED_PREFIX: Final = "refused-"
NO_RETRY: Final = {"x-should-retry": "false"}


def refused_task_body(model: object, sentence: str) -> dict[str, Any]:
    """The create response (and result) of a refused task."""
    return {
        "id": REFUSED_PREFIX + secrets.token_hex(8),
        "object": None,
        "created": int(time.time()),
        "model": model if isinstance(model, str) else None,
        "status": "failed",
        "error": sentence,
    }


def chat_refusal_response(protocol: ChatProtocol, sentence: str) -> Response:
    """403 in the chat protocol's own envelope."""
    return error_response(
        403, sentence, error_type="permission_error", protocol=protocol, headers=NO_RETRY
    )


def asset_refusal_response(sentence: str) -> Response:
    """The asset envelope with a non-"0" code."""
    return Response(dumps({"code": "403", "msg": sentence, "data": None}), media_type=JSON_TYPE)
