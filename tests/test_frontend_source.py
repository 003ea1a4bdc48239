"""The hand-written front end's source rules that Biome (scripts/test) does not check.

Biome lints ``widgets/static`` at its recommended rules plus "no function over 120 lines"
(``biome.jsonc``). Here: no line over 120 characters, and no dead kit component (Biome cannot
see that a kit function is used, because the panel modules are composed after the kit in Python,
so its unused-variable rule is off for the kit files).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mediagen_nb.widgets._frontend import KIT_JS, STATIC, esm

MAX_LINE = 120
SOURCES = sorted(STATIC.glob("*.js")) + sorted(STATIC.glob("*.css"))
LIBRARIES = (*KIT_JS, "chat_transcript.js", "classroom_parts.js", "classroom_queue.js")
"""Modules whose functions other modules use (Biome's unused rule is off for them)."""
FUNCTION = re.compile(r"^(?:async )?function (\w+)\(", re.MULTILINE)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_line_over_120_characters(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    long = [n for n, line in enumerate(lines, start=1) if len(line) > MAX_LINE]
    assert long == [], f"{path.name}: lines over {MAX_LINE} characters: {long}"


def functions(files: tuple[str, ...]) -> dict[str, str]:
    """Each top-level function the files define, by name, with the file that defines it."""
    return {
        name: file
        for file in files
        for name in FUNCTION.findall((STATIC / file).read_text(encoding="utf-8"))
    }


def test_the_kit_has_its_components() -> None:
    names = functions(KIT_JS)
    for name in ("mgField", "mgSegmented", "mgCompose", "mgTabs", "mgLightbox", "mgTable"):
        assert name in names
    assert "mgCard" not in names  # the old card nobody used is gone


def test_every_library_function_is_used() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js")))
    unused = [
        name
        for name in functions(LIBRARIES)
        if len(re.findall(rf"\b{name}\b", source)) < 2  # its definition and at least one use
    ]
    assert unused == []


NODE = shutil.which("node")
PANELS = (
    "generate.js",
    "history.js",
    "assets.js",
    "studio.js",
    ("chat_markdown.js", "chat_transcript.js", "chat.js"),
    ("classroom_parts.js", "classroom_queue.js", "classroom.js"),
)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("names", PANELS, ids=str)
def test_each_composed_module_parses(names: str | tuple[str, ...], tmp_path: Path) -> None:
    """The kit and a panel, as anywidget loads them, are one valid ES module (no name defined
    twice across the files, no syntax error)."""
    module = esm(*((names,) if isinstance(names, str) else names))
    path = tmp_path / "panel.mjs"
    path.write_text(module, encoding="utf-8")
    done = subprocess.run(
        [str(NODE), "--check", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
