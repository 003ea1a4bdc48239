"""Each environment variable's name is spelled once, in ``mediagen_nb/_env.py``: code reads,
sets and names them (in messages too) through its constants. Docstrings and comments may
mention them; any other string literal of the package that holds one fails here."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

from mediagen_nb import _env

PACKAGE = Path(_env.__file__).resolve().parent
NAME = re.compile(r"MEDIAGEN_[A-Z_]+")


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue  # a lambda's or an if-expression's body is one expression
        if isinstance(body[0], ast.Expr):
            found.add(id(body[0].value))
        for before, after in itertools.pairwise(body):
            if isinstance(before, ast.Assign | ast.AnnAssign) and isinstance(after, ast.Expr):
                found.add(id(after.value))  # an attribute docstring
    return found


def spelled_names(source: str) -> list[str]:
    """Environment variable names in the string literals of ``source``, docstrings aside."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        for name in NAME.findall(node.value)
    ]


def test_names_are_spelled_only_in_the_env_module() -> None:
    spelled = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "_env.py" and (names := spelled_names(path.read_text(encoding="utf-8")))
    }
    assert spelled == {}


def test_the_env_module_names_each_variable_once() -> None:
    values = [v for k, v in vars(_env).items() if k.isupper()]
    assert len(values) == len(set(values)) == 12
    assert all(NAME.fullmatch(v) for v in values)


def test_the_scan_sees_literals_and_skips_docstrings() -> None:
    source = (
        '"""Reads MEDIAGEN_HOME."""\n'
        "X = 1\n"
        '"""An attribute docstring naming MEDIAGEN_DEMO."""\n'
        "def f():\n"
        '    """Uses MEDIAGEN_API_KEY."""\n'
        "    self.x = 1\n"
        '    """An instance attribute docstring: MEDIAGEN_TEXT_BASE_URL."""\n'
        '    return os.environ["MEDIAGEN_API_KEY"], f"set MEDIAGEN_BASE_URL={1}"\n'
    )
    assert spelled_names(source) == ["MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL"]
