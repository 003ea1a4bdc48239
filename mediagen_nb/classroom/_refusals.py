"""A refused request, in the shape the student's endpoint normally answers with.

Decisions (each shape is what our client and the vendors' SDKs already surface well):

* **task create** (images, videos): HTTP 200 and the spec's rejected-create object,
  ``{"id": "refused-...", "status": "failed", "error": <sentence>, ...}``. Our client
  returns an already failed ``Task`` (its ``wait()`` raises ``TaskFailedError`` with the
  sentence; the panels show it on the card), and ``GET /v1/result/{id}`` answers the same
  object, as the spec says a terminal task does.
* **chat completions**: HTTP 403 with OpenAI's envelope
  ``{"error": {"message", "type": "permission_error", "param": null, "code": ...}}``;
* **messages**: HTTP 403 with Anthropic's ``{"type": "error", "error": {"type":
  "permission_error", "message"}}``. Both carry ``x-should-retry: false``, which our client
  and both SDKs honour, so the refusal is shown at once instead of being retried;
* **asset libraries**: HTTP 200 with the envelope ``{"code": "403", "msg": <sentence>,
  "data": null}`` (our client raises ``AssetError`` with the sentence).
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
