"""Files the site's wheels leave out: what nothing in the browser reaches.

jedi's typeshed stubs of third-party packages (2.6 MB; jedi completes an installed package
from its source) and Pygments' lexers beyond ``LEXERS_KEPT`` (its table then lists only the
kept ones: another raises ``ClassNotFound``). ``RECORD`` is rewritten to match."""

from __future__ import annotations

import ast
import base64
import hashlib
import os
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name, parse_wheel_filename

JEDI_DROPPED = ("jedi/third_party/typeshed/stubs/", "jedi/third_party/django-stubs/")
"""Stubs of third-party packages; jedi keeps typeshed's ``stdlib`` stubs (builtins, ``os``...)."""
PYGMENTS_LEXERS = "pygments/lexers/"
PYGMENTS_MAPPING = PYGMENTS_LEXERS + "_mapping.py"
LEXERS_KEPT = frozenset(
    {"python", "special", "shell", "html", "javascript", "css", "markup", "data", "perl"}
    | {"ruby", "jvm", "lisp", "lilypond", "jsx", "textfmts", "sql"}
)
"""Lexer modules kept (with what they import): Python and what IPython's own lexers
(``ipython_pygments_lexers``: Bash, HTML, JavaScript, Ruby, Perl, TeX) build on, plus the
text formats a notebook shows (JSON, SQL, Markdown)."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def rewrite(
    path: Path, keep: Callable[[str], bool], replace: dict[str, bytes] | None = None
) -> int:
    """Rewrite the wheel at ``path`` with only the files ``keep`` accepts, ``replace``
    giving new contents for some; its ``RECORD`` lists exactly what is left, with new hashes
    for the replaced files. Returns the bytes saved on disk."""
    replace = replace or {}
    before = path.stat().st_size
    temporary = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(path) as old, zipfile.ZipFile(temporary, "w") as new:
        infos = [i for i in old.infolist() if keep(i.filename)]
        kept = {i.filename for i in infos}
        for info in infos:
            data = old.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                data = _record(data, kept, replace)
            new.writestr(info, replace.get(info.filename, data))
    os.replace(temporary, path)
    return before - path.stat().st_size


def _record(data: bytes, kept: set[str], replace: dict[str, bytes]) -> bytes:
    lines = []
    for line in data.decode().splitlines():
        name = line.rsplit(",", 2)[0]
        if name in replace:
            lines.append(_record_line(name, replace[name]))
        elif name in kept:
            lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def _imported_lexers(source: bytes, classes: dict[str, str]) -> set[str]:
    """Lexer modules a module imports: ``from pygments.lexers.X import ...``, or ``from
    pygments.lexers import X`` where X is a module or a lexer class (``classes``: its module)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        if node.module.startswith("pygments.lexers."):
            found.add(node.module.split(".")[2])
        elif node.module == "pygments.lexers":
            found |= {classes.get(alias.name, alias.name) for alias in node.names}
    return found


def lexer_modules(archive: zipfile.ZipFile, roots: frozenset[str]) -> set[str]:
    """``roots`` and every lexer module they import, transitively (names in
    ``pygments/lexers/``, without ``.py``)."""
    present = {
        n[len(PYGMENTS_LEXERS) : -3]
        for n in archive.namelist()
        if n.startswith(PYGMENTS_LEXERS) and n.endswith(".py") and n.count("/") == 2
    }
    classes = {
        name: entry[0].removeprefix("pygments.lexers.")
        for name, entry in _lexer_entries(archive.read(PYGMENTS_MAPPING).decode()).items()
    }
    found: set[str] = set()
    todo = [r for r in roots if r in present]
    while todo:
        module = todo.pop()
        if module in found:
            continue
        found.add(module)
        source = archive.read(f"{PYGMENTS_LEXERS}{module}.py")
        todo += [m for m in _imported_lexers(source, classes) if m in present]
    return found


def _lexer_entries(source: str) -> dict[str, tuple[Any, ...]]:
    """The ``LEXERS`` table of Pygments' ``lexers/_mapping.py``: class name -> entry whose
    first item is the module."""
    tree = ast.parse(source)
    table = next(
        (
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "LEXERS" for t in node.targets)
        ),
        None,
    )
    if table is None:
        raise RuntimeError(f"{PYGMENTS_MAPPING} has no LEXERS table: this Pygments cannot be cut")
    entries: dict[str, tuple[Any, ...]] = ast.literal_eval(table)
    return entries


def lexer_table(source: str, kept: set[str]) -> str:
    """Pygments' ``lexers/_mapping.py`` listing only the lexers of the ``kept`` modules."""
    lexers = _lexer_entries(source)
    lines = ["# Pygments' table, only the lexers this site ships (mediagen-nb lite build).", ""]
    lines.append("LEXERS = {")
    for name, entry in sorted(lexers.items()):
        if entry[0].removeprefix("pygments.lexers.") in kept:
            lines.append(f"    {name!r}: {entry!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def slim_pygments(path: Path) -> int:
    """Drop the lexers outside ``LEXERS_KEPT`` (and what they import) from Pygments' wheel."""
    with zipfile.ZipFile(path) as archive:
        kept = lexer_modules(archive, LEXERS_KEPT | {"__init__", "_mapping"})
        table = lexer_table(archive.read(PYGMENTS_MAPPING).decode(), kept)

    def keep(name: str) -> bool:
        if not name.startswith(PYGMENTS_LEXERS) or name.count("/") != 2:
            return True
        return name[len(PYGMENTS_LEXERS) :].removesuffix(".py") in kept

    return rewrite(path, keep, {PYGMENTS_MAPPING: table.encode()})


def slim_jedi(path: Path) -> int:
    """Drop the typeshed stubs of third-party packages (``JEDI_DROPPED``) from jedi's wheel."""
    return rewrite(path, lambda name: not name.startswith(JEDI_DROPPED))


SLIMMERS: dict[str, Callable[[Path], int]] = {"jedi": slim_jedi, "pygments": slim_pygments}


def slim(path: Path) -> int:
    """Cut the wheel at ``path`` in place when a cut is known for its package; the bytes
    saved (0 for any other wheel)."""
    name = canonicalize_name(parse_wheel_filename(path.name)[0])
    cut = SLIMMERS.get(name)
    return cut(path) if cut else 0
