"""Shapes of multimodal content parts, as the two compatible protocols require them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from mediagen_nb.types._problem import Problem

IMAGE_PART_TYPES: Final = frozenset({"image_url", "image", "input_image"})
"""Part types that carry an image, in either protocol."""
_DETAIL: Final = ("auto", "low", "high")
_MEDIA_TYPES: Final = ("image/jpeg", "image/png", "image/gif", "image/webp")
_MAX_NESTING: Final = 8


def _object(part: dict[str, Any], key: str, field: str) -> Iterator[Problem]:
    value = part.get(key)
    if value is None:
        yield Problem(f"{field}.{key}", "is required")
    elif not isinstance(value, dict):
        yield Problem(f"{field}.{key}", "must be an object")


def _string(
    part: dict[str, Any], key: str, field: str, *, non_empty: bool = False
) -> Iterator[Problem]:
    value = part.get(key)
    if value is None:
        yield Problem(f"{field}.{key}", "is required")
    elif not isinstance(value, str):
        yield Problem(f"{field}.{key}", "must be a string")
    elif non_empty and not value.strip():
        yield Problem(f"{field}.{key}", "must not be empty")


def _url_object(part: dict[str, Any], key: str, field: str) -> Iterator[Problem]:
    inner = part.get(key)
    if not isinstance(inner, dict):
        yield from _object(part, key, field)
        return
    yield from _string(inner, "url", f"{field}.{key}", non_empty=True)
    detail = inner.get("detail")
    if key == "image_url" and detail is not None and detail not in _DETAIL:
        yield Problem(f"{field}.{key}.detail", "must be one of 'auto', 'low', 'high'")


def openai_part_problems(part: Any, field: str) -> Iterator[Problem]:
    """What the chat-completions protocol requires of one content part (design page)."""
    if not isinstance(part, dict):
        return  # the content check reports parts that are not objects
    kind = part.get("type")
    if kind == "text":
        yield from _string(part, "text", field)
    elif kind in ("image_url", "video_url"):
        yield from _url_object(part, kind, field)
    elif kind == "input_audio":
        audio = part.get("input_audio")
        if not isinstance(audio, dict):
            yield from _object(part, "input_audio", field)
        else:
            yield from _string(audio, "data", f"{field}.input_audio", non_empty=True)
            yield from _string(audio, "format", f"{field}.input_audio", non_empty=True)
    elif kind == "file":
        file = part.get("file")
        if not isinstance(file, dict):
            yield from _object(part, "file", field)
        elif not any(isinstance(file.get(k), str) for k in ("file_data", "file_id")):
            yield Problem(f"{field}.file", "needs a string file_data or file_id")
    elif kind == "refusal":
        yield from _string(part, "refusal", field)


def _source_problems(block: dict[str, Any], field: str) -> Iterator[Problem]:
    source = block["source"]
    where = f"{field}.source"
    kind = source.get("type")
    if kind == "base64":
        media_type = source.get("media_type")
        if media_type not in _MEDIA_TYPES:
            yield Problem(f"{where}.media_type", f"must be one of {', '.join(_MEDIA_TYPES)}")
        yield from _string(source, "data", where, non_empty=True)
    elif kind == "url":
        yield from _string(source, "url", where, non_empty=True)
    elif kind == "file":
        yield from _string(source, "file_id", where, non_empty=True)
    else:
        yield Problem(f"{where}.type", "must be 'base64', 'url' or 'file'")


def anthropic_block_problems(block: Any, field: str) -> Iterator[Problem]:
    """What the messages protocol requires of one content block (design page)."""
    if not isinstance(block, dict):
        return  # the content check reports blocks that are not objects
    kind = block.get("type")
    if kind == "text":
        yield from _string(block, "text", field, non_empty=True)
    elif kind in ("image", "document"):
        if not isinstance(block.get("source"), dict):
            yield from _object(block, "source", field)
        elif kind == "image":
            yield from _source_problems(block, field)
    elif kind == "tool_result":
        yield from _tool_result_content(block.get("content"), f"{field}.content")


def _tool_result_content(content: Any, field: str) -> Iterator[Problem]:
    """A ``tool_result``'s content: absent, a string, or an array of typed blocks."""
    if content is None or isinstance(content, str):
        return
    if not isinstance(content, list):
        yield Problem(field, "must be a string or an array of content blocks")
        return
    for index, block in enumerate(content):
        where = f"{field}[{index}]"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            yield Problem(where, "must be an object with a string 'type'")
        elif block["type"] != "tool_result":  # no tool_result inside a tool_result
            yield from anthropic_block_problems(block, where)
        else:
            yield Problem(where, "a tool_result cannot hold another tool_result")


def content_part_problems(content: Any, field: str, *, anthropic: bool) -> Iterator[Problem]:
    """Shape problems of every part of a message's content array (none for plain text)."""
    if not isinstance(content, list):
        return
    check = anthropic_block_problems if anthropic else openai_part_problems
    for index, part in enumerate(content):
        yield from check(part, f"{field}[{index}]")


def system_problems(system: Any) -> Iterator[Problem]:
    """A messages ``system`` array holds text blocks only (the protocol's system prompt)."""
    if not isinstance(system, list):
        return
    for index, block in enumerate(system):
        field = f"system[{index}]"
        if not isinstance(block, dict) or block.get("type") != "text":
            yield Problem(field, "must be a text block: {'type': 'text', 'text': ...}")
        else:
            yield from _string(block, "text", field, non_empty=True)


def image_parts(content: Any, field: str, depth: int = 0) -> Iterator[str]:
    """JSON path of every image part in ``content``, nested ``content`` arrays included."""
    if not isinstance(content, list) or depth > _MAX_NESTING:
        return
    for index, part in enumerate(content):
        if not isinstance(part, dict):
            continue
        path = f"{field}[{index}]"
        kind = part.get("type")
        if isinstance(kind, str) and kind in IMAGE_PART_TYPES:
            yield path
        yield from image_parts(part.get("content"), f"{path}.content", depth + 1)
