""" "Copy as code" for the chat panel: the client call that sends the next message.

The snippet is for a notebook cell (top-level ``await``) and carries everything the form
sends: system prompt, sampling, limits, attachments, tools and tool choice, thinking. A file
attachment is not pasted as base64 (it can be megabytes): the snippet reads it from disk
with a small ``data_url`` / ``b64`` helper, under the name the user attached.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mediagen_nb.widgets._codegen import CLIENT_LINES, INDENT, py_literal

_FILE_MARK = re.compile(r'"@@file:(\w+):([\w/.+-]*)@@"')


def _mark_files(value: Any) -> Any:
    """Replace inline file data by markers that become helper calls in the code."""
    if isinstance(value, list):
        return [_mark_files(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "base64" and "data" in value:
        return {**value, "data": f"@@file:b64:{value.get('media_type')}@@"}
    url = value.get("url")
    if isinstance(url, str) and url.startswith("data:"):
        media_type = url.removeprefix("data:").split(";")[0]
        return {**value, "url": f"@@file:data_url:{media_type}@@"}
    return {k: _mark_files(v) for k, v in value.items()}


def chat_code(path: str, body: dict[str, Any], file_names: list[str] | None = None) -> str:
    """The ``client.chat.completions.create`` / ``client.messages.create`` call for ``body``."""
    names = list(file_names or [])
    chat = path.endswith("/completions")
    final = "get_final_completion" if chat else "get_final_message"
    marked = _mark_files(body)
    lines = list(CLIENT_LINES)
    call = (
        "client.chat.completions.create"
        if path.endswith("/completions")
        else "client.messages.create"
    )
    args = [f"{INDENT}{name}={py_literal(value)}," for name, value in marked.items()]
    source = "\n".join([f"stream = await {call}(", *args, f"{INDENT}stream=True,", ")"])
    count = 0

    def helper(match: re.Match[str]) -> str:
        nonlocal count
        name = names[count] if count < len(names) else f"image{count + 1}"
        count += 1
        return f"{match[1]}({json.dumps(name)}, {json.dumps(match[2])})"

    source, uses_files = _FILE_MARK.subn(helper, source)
    if uses_files:
        lines += [
            "",
            "import base64, pathlib",
            "",
            "def b64(path, media_type):  # Reads a file attached in the panel from disk.",
            f"{INDENT}return base64.b64encode(pathlib.Path(path).read_bytes()).decode()",
            "",
            "def data_url(path, media_type):",
            f'{INDENT}return f"data:{{media_type}};base64," + b64(path, media_type)',
        ]
    lines += [
        "",
        source,
        "async for text in stream.text_stream:  # Prints the answer as it arrives.",
        f'{INDENT}print(text, end="", flush=True)',
        "# The whole reply holds the text, thinking, tool calls and usage.",
        f"reply = await stream.{final}()",
    ]
    return "\n".join(lines)
