"""Fold one ledger event into the ``items`` row it belongs to (a pure function).

A non-terminal status never overwrites a terminal one, so late or duplicated polls from two
kernels cannot resurrect a finished task.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mediagen_nb.history._schema import ITEM_COLUMNS

TERMINAL = frozenset({"completed", "failed", "cancelled", "incomplete", "deleted"})
"""Statuses after which nothing but another terminal event changes the row."""

UNFINISHED = ("queued", "processing")
"""Task statuses that a restarted kernel re-attaches to."""

_ACTION_STATUS: dict[tuple[str, str], str | None] = {
    ("task", "created"): "queued",
    ("task", "completed"): "completed",
    ("task", "failed"): "failed",
    ("task", "cancelled"): "cancelled",
    ("task", "unconfirmed"): "unconfirmed",
    ("chat", "started"): "started",
    ("chat", "completed"): "completed",
    ("chat", "incomplete"): "incomplete",
    ("chat", "failed"): "failed",
    ("asset", "uploaded"): "submitted",
    ("asset", "deleted"): "deleted",
    ("asset", "failed"): "failed",
}
"""Status an action implies when the event carries none (``None``: keep the current one)."""

_FORCED = frozenset(
    {
        ("task", "completed"),
        ("task", "failed"),
        ("task", "cancelled"),
        ("chat", "completed"),
        ("chat", "incomplete"),
        ("chat", "failed"),
        ("asset", "deleted"),
    }
)
"""Actions whose implied status wins over a ``status`` value inside ``data``."""

_CREATING = frozenset(
    {"created", "started", "uploaded", "failed", "status", "completed", "unconfirmed"}
)
"""Actions that may create a row that does not exist yet (``stored`` and ``error`` may not).

``unconfirmed`` is a create request whose answer was lost (5xx or a broken connection after
sending): the service may or may not have made the task, so the row keeps the request under a
local ``attempt-...`` key and the error says so; it is never re-attached (there is no id).
"""

_RESPONSE_KEYS = ("response", "result", "asset")
"""Names under which the client passes the service's last JSON object."""

UrlLifetime = Callable[[str | None], float | None]


def text_of(content: Any) -> str | None:
    """Plain text of a message ``content``: a string, or the text parts of a block array."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


def prompt_of(body: Mapping[str, Any]) -> str | None:
    """The human prompt of a request body, whatever the endpoint's shape.

    ``prompt`` (banana, image2, sora, starvideos), the text objects of ``content``
    (seedance), the last user message (chat), or an asset upload's ``name`` / ``url``.
    """
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    content = body.get("content")
    if isinstance(content, list):
        found = text_of([c for c in content if isinstance(c, Mapping) and c.get("type") == "text"])
        if found is not None:
            return found
    messages = body.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, Mapping) and message.get("role") == "user":
                return text_of(message.get("content"))
    for name in ("name", "url"):
        value = body.get(name)
        if isinstance(value, str):
            return value
    return None


def params_of(body: Mapping[str, Any]) -> dict[str, Any]:
    """Request parameters other than model, prompt and the chat history."""
    return {k: v for k, v in body.items() if k not in {"model", "prompt", "messages"}}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _first_str(*values: Any) -> str | None:
    for value in values:
        if isinstance(value, str) and value:
            return value
    return None


def empty_item(kind: str, key: str, ts: float) -> dict[str, Any]:
    """A fresh row: every column present, nothing known yet."""
    item: dict[str, Any] = dict.fromkeys(ITEM_COLUMNS)
    item.update(kind=kind, key=key, created=ts, updated=ts, polls=0)
    return item


@dataclass
class _Fold:
    """One event being folded into its row: the row so far and what the event carries."""

    new: dict[str, Any]
    kind: str
    action: str
    ts: float
    data: Mapping[str, Any]
    response: Mapping[str, Any]
    names: dict[str, str | None]
    """``family``, ``model``, ``service`` given with the event."""
    url_lifetime: UrlLifetime | None


def apply_event(
    item: Mapping[str, Any] | None,
    *,
    kind: str,
    action: str,
    key: str,
    ts: float,
    data: Mapping[str, Any],
    family: str | None = None,
    model: str | None = None,
    service: str | None = None,
    url_lifetime: UrlLifetime | None = None,
) -> dict[str, Any] | None:
    """The row after this event, or None when the event does not make a row.

    ``item`` is the current row (JSON columns already decoded) or None; it is not changed.
    Each column group is one small step of ``_STEPS``, applied in order.
    """
    if item is None and action not in _CREATING:
        return None
    new = empty_item(kind, key, ts) if item is None else dict(item)
    new["updated"] = ts
    response: Mapping[str, Any] = next(
        (data[k] for k in _RESPONSE_KEYS if isinstance(data.get(k), Mapping)), {}
    )
    names = {"family": family, "model": model, "service": service}
    fold = _Fold(new, kind, action, ts, data, response, names, url_lifetime)
    for step in _STEPS:
        step(fold)
    return fold.new


def _names(fold: _Fold) -> None:
    """Family, model and service as given; else the model the service answered with."""
    for column, value in fold.names.items():
        if value:
            fold.new[column] = value
    if not fold.new.get("model"):
        fold.new["model"] = _first_str(fold.response.get("model"))


def _request(fold: _Fold) -> None:
    """Prompt and parameters from the request body (an asset's from the service's answer)."""
    new, request = fold.new, fold.data.get("request")
    if isinstance(request, Mapping):
        new["request"] = dict(request)
        new["params"] = params_of(request)
        new["prompt"] = prompt_of(request)
        if not new.get("model"):
            new["model"] = _first_str(request.get("model"))
    elif fold.kind == "asset" and fold.response and new.get("prompt") is None:
        response = fold.response
        new["prompt"] = prompt_of(response) or _first_str(response.get("originalUrl"))
        new["params"] = {
            k: v
            for k, v in (
                ("assetType", response.get("assetType")),
                ("library", fold.data.get("library")),
            )
            if v is not None
        }


def _path_and_response(fold: _Fold) -> None:
    path = _first_str(fold.data.get("path"), fold.data.get("endpoint"))
    if path is not None:
        fold.new["path"] = path
    if fold.response:
        fold.new["response"] = dict(fold.response)


def _status(fold: _Fold) -> None:
    _apply_status(fold.new, fold.kind, fold.action, fold.data, fold.response)


def _error(fold: _Fold) -> None:
    error = _first_str(fold.data.get("error"), fold.response.get("error"))
    if error is not None:
        fold.new["error"] = error
    elif fold.new["status"] == "completed":
        fold.new["error"] = None  # a transient poll error before success is not the outcome


def _url(fold: _Fold) -> None:
    """The result URL, and when it expires (first seen + the family's URL lifetime)."""
    data, response, new = fold.data, fold.response, fold.new
    url = _first_str(
        data.get("url"),
        data.get("remote_url"),
        response.get("video_url"),
        response.get("image_url"),
        response.get("url"),
        response.get("originalUrl"),
    )
    if url is not None and url != new.get("remote_url"):
        new["remote_url"] = url
        lifetime = fold.url_lifetime(new.get("family")) if fold.url_lifetime else None
        new["url_expires"] = fold.ts + lifetime if lifetime is not None else None
    expires = _number(data.get("url_expires"))
    if expires is not None:
        new["url_expires"] = expires


def _local_file(fold: _Fold) -> None:
    local_file = fold.data.get("local_file")
    if isinstance(local_file, str) and local_file:
        fold.new["local_file"] = local_file


def _polls(fold: _Fold) -> None:
    """The client's poll count when given, else one more per task ``status`` event."""
    polls = fold.data.get("polls", fold.data.get("poll_count"))
    if isinstance(polls, int) and not isinstance(polls, bool):
        fold.new["polls"] = max(int(fold.new.get("polls") or 0), polls)
    elif fold.action == "status" and fold.kind == "task":
        fold.new["polls"] = int(fold.new.get("polls") or 0) + 1


def _elapsed(fold: _Fold) -> None:
    """The client's figure when given, else seconds since the first event."""
    elapsed = _number(fold.data.get("elapsed"))
    if elapsed is None and fold.action != "stored":
        elapsed = max(0.0, fold.ts - float(fold.new["created"]))
    if elapsed is not None:
        fold.new["elapsed"] = elapsed


def _answer(fold: _Fold) -> None:
    """A chat turn's text and token usage."""
    text = fold.data.get("text")
    if isinstance(text, str):
        fold.new["text"] = text
    usage = fold.data.get("usage")
    if isinstance(usage, Mapping):
        fold.new["usage"] = dict(usage)


def _lineage(fold: _Fold) -> None:
    """The sweep a cell belongs to, and the task and asset ids an item was made from."""
    sweep_id = fold.data.get("sweep_id")
    if isinstance(sweep_id, str) and sweep_id:
        fold.new["sweep_id"] = sweep_id
    parents = fold.data.get("parents")
    if isinstance(parents, list | tuple):
        fold.new["parents"] = [p for p in parents if isinstance(p, str) and p]


_STEPS: tuple[Callable[[_Fold], None], ...] = (
    _names,
    _request,
    _path_and_response,
    _status,
    _error,
    _url,
    _local_file,
    _polls,
    _elapsed,
    _answer,
    _lineage,
)
"""The steps of ``apply_event``, in order (status before error: a completion clears it)."""


def _apply_status(
    new: dict[str, Any],
    kind: str,
    action: str,
    data: Mapping[str, Any],
    response: Mapping[str, Any],
) -> None:
    implied = _ACTION_STATUS.get((kind, action))
    reported = _first_str(data.get("status"), response.get("status"))
    status = implied if (kind, action) in _FORCED or reported is None else reported
    if status is None:
        return
    current = new.get("status")
    forced = (kind, action) in _FORCED or status in TERMINAL
    if current in TERMINAL and not forced:
        return
    new["status"] = status
