""" "Copy as code": the client call equivalent to a form's body, ready to paste (teaching).

The snippet is for a notebook cell (top-level ``await``). Every value of the body becomes a
syntax-tree node (``ast``) first, printed by :func:`source_of`, so no text a user or a service
wrote can become code. Families whose model names the catalog does not know need ``family=``.
"""

from __future__ import annotations

import ast
import json
import keyword
from dataclasses import dataclass
from typing import Any, Literal

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


@dataclass(frozen=True)
class FileRead:
    """A value the snippet reads from disk: ``helper(name, media_type)`` (``b64``/``data_url``).

    Put in a body in place of inline file data; it is a Python object, not a marker in the
    text, so nothing a user types can turn into this call.
    """

    helper: Literal["b64", "data_url"]
    name: str
    media_type: str


def node_of(value: Any) -> ast.expr:
    """A JSON value (with :class:`FileRead` leaves) as a syntax-tree expression.

    Args:
        value: None, a bool, number, string, list, dict (keys become strings) or FileRead.

    Returns:
        The expression; strings stay string constants whatever they hold.

    Raises:
        TypeError: ``value`` holds anything else.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return ast.Constant(value)
    if isinstance(value, FileRead):
        args: list[ast.expr] = [ast.Constant(value.name), ast.Constant(value.media_type)]
        return ast.Call(ast.Name(value.helper, ast.Load()), args, [])
    if isinstance(value, list | tuple):
        return ast.List([node_of(v) for v in value], ast.Load())
    if isinstance(value, dict):
        keys: list[ast.expr | None] = [ast.Constant(str(k)) for k in value]
        return ast.Dict(keys, [node_of(v) for v in value.values()])
    raise TypeError(f"copy as code: {type(value).__name__} is not a JSON value")


def quoted(text: str) -> str:
    """``text`` as a double-quoted Python string literal (every odd character escaped)."""
    if text.isascii() and text.isprintable():
        return json.dumps(text)  # for printable ASCII, JSON's escapes are Python's
    return '"' + "".join('\\"' if c == '"' else repr(c)[1:-1] for c in text) + '"'


def source_of(node: ast.expr, depth: int = 1) -> str:
    """Python source of ``node``; nested lists and dicts indented when long.

    Args:
        node: An expression built by :func:`node_of` (anything else goes to ``ast.unparse``).
        depth: Indentation level of the line the expression starts on.

    Returns:
        Source that parses back to the same tree.
    """
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return quoted(node.value)
    if isinstance(node, ast.List):
        return _bracketed("[]", [source_of(v, depth + 1) for v in node.elts], depth)
    if isinstance(node, ast.Dict):
        items = [
            f"{source_of(k, depth + 1)}: {source_of(v, depth + 1)}"
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        ]
        return _bracketed("{}", items, depth)
    if isinstance(node, ast.Call):
        args = [source_of(a, depth + 1) for a in node.args]
        return f"{ast.unparse(node.func)}({', '.join(args)})"
    return ast.unparse(node)


def py_literal(value: Any, depth: int = 1) -> str:
    """A JSON value as Python source (``true`` -> ``True``), nested lists/dicts indented."""
    return source_of(node_of(value), depth)


def _bracketed(brackets: str, items: list[str], depth: int) -> str:
    """Items in brackets: on one line when short, else one per line, indented."""
    opening, closing = brackets[0], brackets[1]
    flat = opening + ", ".join(items) + closing
    if len(flat) <= 60 and "\n" not in flat:
        return flat
    inner = INDENT * (depth + 1)
    return opening + "\n" + "".join(f"{inner}{i},\n" for i in items) + INDENT * depth + closing


def _is_keyword_name(name: str, taken: tuple[str, ...]) -> bool:
    """Whether ``name`` can be written as ``name=`` (ASCII: no NFKC surprises)."""
    plain = name.isascii() and name.isidentifier() and not keyword.iskeyword(name)
    return plain and name != "__debug__" and name not in taken


def call_arguments(fields: dict[str, Any], taken: tuple[str, ...] = ()) -> list[str]:
    """The argument lines (``name=value,``) of a call taking ``fields``.

    Args:
        fields: Argument names and JSON values; names that cannot be keywords go in ``**{}``.
        taken: Names the call already passes (they go in ``**{}`` too).

    Returns:
        One indented source line per argument.
    """
    lines: list[str] = []
    odd: dict[str, Any] = {}
    for name, value in fields.items():
        if _is_keyword_name(name, taken):
            lines.append(f"{INDENT}{name}={py_literal(value)},")
        else:
            odd[name] = value
    if odd:
        lines.append(f"{INDENT}**{py_literal(odd)},")
    return lines


def code_for(kind: Kind, body: dict[str, Any], family: str | None = None) -> str:
    """The ``client.images.create(...)`` / ``client.videos.create(...)`` call for ``body``."""
    model = str(body.get("model", ""))
    lines = [
        *CLIENT_LINES,
        f"task = await client.{kind}s.create(",
        f"{INDENT}model={py_literal(model)},",
    ]
    taken: tuple[str, ...] = ("model",)
    if family is not None and family_for_model(model) is None:
        lines.append(f"{INDENT}family={py_literal(family)},")
        taken = ("model", "family")
    rest = {name: value for name, value in body.items() if name != "model"}
    lines += call_arguments(rest, ("family", *taken))
    lines += [
        ")",
        "await task.wait()  # Polls at the family's pace; a failed task raises TaskFailedError.",
        "data = await task.read_bytes()",
    ]
    return "\n".join(lines)
