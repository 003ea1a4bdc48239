"""Results and files wherever a create request takes a media URL (a Task, a Path or bytes).

Each becomes a URL the service can fetch: the task's own result URL while valid, else the
media host (``_media_host``), else the built-in emulator's uploads; else an error naming the
field. Pictures are checked with their real size before anything is uploaded or sent.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

from mediagen_nb._imagesize import image_size, media_type
from mediagen_nb._platform import off_loop
from mediagen_nb._provenance import extract
from mediagen_nb.catalog import Family
from mediagen_nb.catalog._slots import slot_of
from mediagen_nb.types import Problem, RequestValidationError
from mediagen_nb.types._media_rules import picture_problems
from mediagen_nb.types._urls import not_public_reason

from ._config import ENV_MEDIA_HOST
from ._context import ClientContext, asset_ids_in
from ._exceptions import ConfigurationError
from ._tasks import Task

URL_MARGIN_S = 600.0
"""A result URL must stay valid this much longer (the service may fetch it after queueing);
divided by the emulator's speed like its clock (``Task.url_expires`` is already scaled)."""
HOST_HINT = f"configure a media host ({ENV_MEDIA_HOST}=s3://bucket/prefix) or pass a public URL"


@dataclass
class _Input:
    """One media value of the body, and what became of it."""

    path: str
    value: Any
    data: bytes = b""
    url: str | None = None
    parents: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _Hole:
    """Where an input's URL goes in the copied body."""

    def __init__(self, index: int) -> None:
        self.index = index


def is_media_input(value: Any) -> bool:
    """True for what this module turns into a URL: a Task (or its blocking view), a path,
    or bytes."""
    return isinstance(value, Task | PurePath | bytes | bytearray) or isinstance(
        getattr(value, "task", None), Task
    )


def _collect(value: Any, path: str, found: list[_Input]) -> Any:
    """A copy of ``value`` with every media input replaced by a ``_Hole``."""
    if is_media_input(value):
        found.append(_Input(path, value))
        return _Hole(len(found) - 1)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "image_url" and is_media_input(item):  # seedance: image_url=task
                out[key] = {"url": _collect(item, f"{path}.image_url.url", found)}
            else:
                out[key] = _collect(item, f"{path}.{key}" if path else str(key), found)
        return out
    if isinstance(value, list):
        return [_collect(item, f"{path}[{i}]", found) for i, item in enumerate(value)]
    return value


def _fill(value: Any, urls: list[str]) -> Any:
    if isinstance(value, _Hole):
        return urls[value.index]
    if isinstance(value, dict):
        return {key: _fill(item, urls) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, urls) for item in value]
    return value


def _emulator(ctx: ClientContext) -> bool:
    """Whether the service is the built-in emulator, whose uploads take files: demo mode,
    its speed header seen, or a base URL on a loopback or local address (the real service
    is public; an emulator started in the notebook is on 127.0.0.1)."""
    if ctx.host_file is None:
        return False
    return ctx.core.emulated or not_public_reason(ctx.core.settings.base_url or "") is not None


def url_usable(task: Task, now: float | None = None) -> bool:
    """Whether the task's result URL stays valid long enough to hand to the service."""
    if task.url is None or task.url_expires is None:
        return False
    now = time.time() if now is None else now
    return task.url_expires - now >= URL_MARGIN_S / task.speed


def _clock(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%H:%M UTC")


async def _load_task(ctx: ClientContext, item: _Input, task: Task, can_host: bool) -> None:
    item.parents.append(task.id)
    if task.status != "completed":
        rule = f"task {task.id} has not completed (status {task.status}); await task.wait() first"
        item.problems.append(Problem(item.path, rule))
        return
    item.data = await task.read_bytes()
    if url_usable(task):
        item.url = task.url
    elif not can_host:
        what = "picture" if task.family_info.kind == "image" else "video"
        when = f" at {_clock(task.url_expires)}" if task.url_expires else ""
        rule = f"this {what}'s service URL expired{when}; {HOST_HINT}"
        item.problems.append(Problem(item.path, rule))


async def _load_file(item: _Input, can_host: bool) -> None:
    value = item.value
    if isinstance(value, PurePath):
        try:
            item.data = await off_loop(_read, value)
        except OSError as exc:
            item.problems.append(Problem(item.path, f"cannot read {value}: {exc.strerror}"))
            return
    else:
        item.data = bytes(value)
    made_from = extract(item.data)
    if made_from is not None and isinstance(made_from.get("task_id"), str):
        item.parents.append(made_from["task_id"])
    if not can_host:
        rule = f"a local file needs a place the service can fetch it from; {HOST_HINT}"
        item.problems.append(Problem(item.path, rule))


def _read(path: PurePath) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _media_problems(fam: Family, item: _Input, body: dict[str, Any]) -> list[Problem]:
    """The picture against its slot: media kind, then the family's pixel rules."""
    kind = media_type(item.data)
    slot = slot_of(fam.id, item.path)
    if slot is None or (slot.field == "content" and not item.path.endswith(".image_url.url")):
        rule = "takes no media file; a Task, Path or bytes goes where a media URL goes"
        return [Problem(item.path, rule)]
    if not kind.startswith(f"{slot.media}/"):
        wanted = "a picture" if slot.media == "image" else f"a {slot.media} file"
        return [Problem(item.path, f"takes {wanted}; this file is {kind}")]
    size = image_size(item.data)
    return picture_problems(fam.id, item.path, size, body) if size is not None else []


async def _upload(ctx: ClientContext, data: bytes) -> str:
    if ctx.media_host is not None:
        return await ctx.media_host.put(data)
    assert ctx.host_file is not None  # checked by ``can_host``
    digest = hashlib.sha256(data).hexdigest()
    url = ctx.hosted.get(digest)
    if url is None:
        kind = media_type(data)
        suffix = kind.rsplit("/", 1)[-1]
        url = await ctx.host_file(data, f"{digest[:16]}.{suffix}", kind)
        ctx.hosted[digest] = url
    return url


async def prepare_inputs(
    ctx: ClientContext, fam: Family, body: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``body`` with every Task / Path / bytes turned into a URL, and the request's parents.

    Args:
        ctx: The client's shared state (media host, demo upload, checks).
        fam: The family the request is for.
        body: The create body as the user gave it.

    Returns:
        The body to send and the ids (tasks, then ``asset://`` assets) it was made from.

    Raises:
        RequestValidationError: An input cannot be resolved or breaks a picture rule;
            nothing was uploaded or sent.
    """
    found: list[_Input] = []
    shaped = _collect(body, "", found)
    assets = list(dict.fromkeys(asset_ids_in(body)))
    if not found:
        return body, list(dict.fromkeys([*_known(ctx, body), *assets]))
    can_host = ctx.media_host is not None or _emulator(ctx)
    for item in found:
        task = item.value if isinstance(item.value, Task) else getattr(item.value, "task", None)
        if isinstance(task, Task):
            await _load_task(ctx, item, task, can_host)
        else:
            await _load_file(item, can_host)
    problems = [p for item in found for p in item.problems]
    stand_in = _fill(shaped, [f"{ctx.core.settings.base_url}/input.png"] * len(found))
    problems += [p for item in found if item.data for p in _media_problems(fam, item, stand_in)]
    if problems:
        raise RequestValidationError(problems, fam.create_path)
    ctx.check(fam.create_path, stand_in)  # the rest of the body, before any upload
    urls = []
    for item in found:
        url = item.url or await _upload(ctx, item.data)
        for parent in item.parents[:1]:
            ctx.note_url(url, parent)
        urls.append(url)
    sent = _fill(shaped, urls)
    parents = [p for item in found for p in item.parents]
    return sent, list(dict.fromkeys([*parents, *_known(ctx, body), *assets]))


def _known(ctx: ClientContext, value: Any) -> list[str]:
    """Tasks whose result URLs ``value`` names as plain strings (``ClientContext.made_from``)."""
    if isinstance(value, str):
        parent = ctx.made_from.get(value)
        return [parent] if parent else []
    if isinstance(value, dict):
        return [p for item in value.values() for p in _known(ctx, item)]
    if isinstance(value, list):
        return [p for item in value for p in _known(ctx, item)]
    return []


async def host_media(ctx: ClientContext, data: bytes, made_from: str | None = None) -> str:
    """A URL the service can fetch ``data`` from: the media host, else the emulator's uploads.

    Raises:
        ConfigurationError: Neither applies (the real service without a media host).
    """
    if ctx.media_host is None and not _emulator(ctx):
        raise ConfigurationError(f"no place the service can fetch this file from; {HOST_HINT}")
    url = await _upload(ctx, data)
    if made_from:
        ctx.note_url(url, made_from)
    return url


async def input_url(ctx: ClientContext, value: Any, field: str) -> str:
    """One Task / Path / bytes as a URL the service can fetch (an asset upload's ``url``).

    Raises:
        RequestValidationError: It cannot be resolved (an unfinished task, an expired URL
            and no host, an unreadable file); the problem names ``field``.
    """
    item = _Input(field, value)
    can_host = ctx.media_host is not None or _emulator(ctx)
    task = value if isinstance(value, Task) else getattr(value, "task", None)
    if isinstance(task, Task):
        await _load_task(ctx, item, task, can_host)
    else:
        await _load_file(item, can_host)
    if item.problems:
        raise RequestValidationError(item.problems)
    url = item.url or await _upload(ctx, item.data)
    for parent in item.parents[:1]:
        ctx.note_url(url, parent)
    return url
