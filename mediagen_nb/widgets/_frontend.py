"""Compose a panel's front end from the shared kit and the panel's own files (no build step).

anywidget loads ``_esm`` as one module string, so a relative ``import`` between files cannot
resolve: ``esm()`` and ``css()`` return the kit's files followed by the panel's own."""

from __future__ import annotations

import functools
from pathlib import Path

STATIC = Path(__file__).parent / "static"
KIT_JS = ("kit.js", "kit_media.js", "kit_table.js")
KIT_CSS = ("kit.css",)


@functools.cache
def _read(name: str) -> str:
    path = STATIC / name
    if path.parent != STATIC or not path.is_file():
        raise FileNotFoundError(f"no front-end file {name!r} in {STATIC}")
    return path.read_text(encoding="utf-8")


def _compose(kit: tuple[str, ...], names: tuple[str, ...]) -> str:
    parts = [*kit, *(name for name in names if name not in kit)]
    return "\n".join(f"/* --- {name} --- */\n{_read(name)}" for name in parts)


@functools.cache
def esm(*names: str) -> str:
    """The kit's modules then each named file of ``static/``, as one ES module string."""
    return _compose(KIT_JS, names)


@functools.cache
def css(*names: str) -> str:
    """``kit.css`` then each named stylesheet of ``static/``, as one string."""
    return _compose(KIT_CSS, names)
