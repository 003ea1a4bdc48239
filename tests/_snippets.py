"""Shared helpers of the "copy as code" tests: the snippet's comments, and running it."""

from __future__ import annotations

import io
import re
import tokenize
from typing import Any

_SENTENCE = re.compile(r"^[A-Z].*[.!?]$")
_DANGLING = {"a", "an", "and", "from", "of", "or", "the", "to", "with", "without"}


def comments(code: str) -> list[str]:
    """The snippet's comments: a run of whole-line comments is one text, each inline one too."""
    found: list[tuple[int, bool, str]] = []
    lines = code.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            whole_line = not lines[row - 1][:col].strip()
            found.append((row, whole_line, token.string.lstrip("#").strip()))
    texts: list[str] = []
    previous = (-1, False)
    for row, whole_line, text in found:
        if whole_line and previous == (row - 1, True):
            texts[-1] += " " + text
        else:
            texts.append(text)
        previous = (row, whole_line)
    return texts


def unfinished(code: str) -> list[str]:
    """Comments that are not whole sentences (no capital, no full stop, or a dangling end)."""
    bad = []
    for text in comments(code):
        last = text.rstrip(".!?").split()[-1].lower() if text.split() else ""
        if not _SENTENCE.match(text) or last in _DANGLING:
            bad.append(text)
    return bad


async def run_snippet(code: str, result: str) -> Any:
    """Run a snippet as the body of an async cell and return the value of ``result``."""
    source = "async def snippet():\n" + "".join(f"    {line}\n" for line in code.splitlines())
    namespace: dict[str, Any] = {}
    exec(source + f"    return {result}\n", namespace)  # the panel's own snippet
    return await namespace["snippet"]()
