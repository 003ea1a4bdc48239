""" "Copy as code": the client call equivalent to a form's body, ready to paste (teaching).

The snippet is for a notebook cell (top-level ``await``). Families whose model names the
catalog does not know need ``family=`` (the client cannot infer the endpoint from the name).
"""

from __future__ import annotations

import json
import keyword
from typing import Any

from mediagen_nb import _env
from mediagen_nb.catalog import Kind, family_for_model

INDENT = "    "
CLIENT_LINES = (
    "from mediagen_nb import AsyncClient",
    "",
    f"# AsyncClient() reads {_env.API_KEY}, {_env.BASE_URL} and {_env.TEXT_BASE_URL} from",
    "# the environment. Without a key it starts the built-in emulator (demo mode).",
    "client = AsyncClient()",
)
"""The opening of every snippet: the client, and where its settings come from."""


def py_literal(value: Any, depth: int = 1) -> str:
    """A JSON value as Python source (``true`` -> ``True``), nested lists/dicts indented."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        items = [py_literal(v, depth + 1) for v in value]
        return _bracketed("[]", items, depth)
    if isinstance(value, dict):
        items = [f"{json.dumps(str(k))}: {py_literal(v, depth + 1)}" for k, v in value.items()]
        return _bracketed("{}", items, depth)
    return repr(value)


def _bracketed(brackets: str, items: list[str], depth: int) -> str:
    """Items in brackets: on one line when short, else one per line, indented."""
    opening, closing = brackets[0], brackets[1]
    flat = opening + ", ".join(items) + closing
    if len(flat) <= 60 and "\n" not in flat:
        return flat
    inner = INDENT * (depth + 1)
    return opening + "\n" + "".join(f"{inner}{i},\n" for i in items) + INDENT * depth + closing


def code_for(kind: Kind, body: dict[str, Any], family: str | None = None) -> str:
    """The ``client.images.create(...)`` / ``client.videos.create(...)`` call for ``body``."""
    model = str(body.get("model", ""))
    lines = [
        *CLIENT_LINES,
        f"task = await client.{kind}s.create(",
        f"{INDENT}model={py_literal(model)},",
    ]
    if family is not None and family_for_model(model) is None:
        lines.append(f"{INDENT}family={py_literal(family)},")
    odd: dict[str, Any] = {}
    for name, value in body.items():
        if name == "model":
            continue
        if name.isidentifier() and not keyword.iskeyword(name) and name != "family":
            lines.append(f"{INDENT}{name}={py_literal(value)},")
        else:
            odd[name] = value
    if odd:
        lines.append(f"{INDENT}**{py_literal(odd)},")
    lines += [
        ")",
        "await task.wait()  # Polls at the family's pace; a failed task raises TaskFailedError.",
        "data = await task.read_bytes()",
    ]
    return "\n".join(lines)
