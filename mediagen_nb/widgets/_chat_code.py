""" "Copy as code" for the chat panel: the client call that sends the next message.

A file attachment is read from disk by a small helper in the snippet, not pasted as base64
(design: docs/reference/design.md, "The chat form").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mediagen_nb.widgets._codegen import CLIENT_LINES, INDENT, FileRead, call_arguments

_HELPERS = (
    "",
    "import base64, pathlib",
    "",
    "def b64(path, media_type):  # Reads a file attached in the panel from disk.",
    f"{INDENT}return base64.b64encode(pathlib.Path(path).read_bytes()).decode()",
    "",
    "def data_url(path, media_type):",
    f'{INDENT}return f"data:{{media_type}};base64," + b64(path, media_type)',
)


def _file_reads(value: Any, names: Iterator[str], found: list[FileRead]) -> Any:
    """``value`` with inline file data replaced by :class:`FileRead` objects (in ``found``)."""
    if isinstance(value, list):
        return [_file_reads(v, names, found) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "base64" and "data" in value:
        read = FileRead("b64", next(names), str(value.get("media_type")))
        found.append(read)
        return {**value, "data": read}
    url = value.get("url")
    if isinstance(url, str) and url.startswith("data:"):
        read = FileRead("data_url", next(names), url.removeprefix("data:").split(";")[0])
        found.append(read)
        return {**value, "url": read}
    return {k: _file_reads(v, names, found) for k, v in value.items()}


def _names(file_names: list[str]) -> Iterator[str]:
    """The attached files' names in order, then ``image<N>`` for any data without one."""
    yield from file_names
    count = len(file_names)
    while True:
        count += 1
        yield f"image{count}"


def chat_code(path: str, body: dict[str, Any], file_names: list[str] | None = None) -> str:
    """The ``client.chat.completions.create`` / ``client.messages.create`` call for ``body``."""
    chat = path.endswith("/completions")
    final = "get_final_completion" if chat else "get_final_message"
    call = "client.chat.completions.create" if chat else "client.messages.create"
    reads: list[FileRead] = []
    fields = {k: v for k, v in body.items() if k != "stream"}  # the snippet always streams
    fields = _file_reads(fields, _names(list(file_names or [])), reads)
    lines = [*CLIENT_LINES, *(_HELPERS if reads else ())]
    lines += [
        "",
        f"stream = await {call}(",
        *call_arguments(fields, ("stream",)),
        f"{INDENT}stream=True,",
        ")",
        "async for text in stream.text_stream:  # Prints the answer as it arrives.",
        f'{INDENT}print(text, end="", flush=True)',
        "# The whole reply holds the text, thinking, tool calls and usage.",
        f"reply = await stream.{final}()",
    ]
    return "\n".join(lines)
