"""Chat markdown renders in linear time and never lets markup through (issue 32, row 7).

Run under node: the renderer counts the characters its inline scanner looks at
(``markdownWork.steps``). For runs of ``[``, ``![``, backticks, ``*``, ``_``, unfinished and
nested links, four times the input costs about four times the steps (the old regular
expressions took 6.5 s on 60,000 ``[``, 23 times their time on 15,000). Timings are printed,
never asserted. Hostile texts (the review's injection attempts, and 3,000 random mixes of
their pieces) only ever produce the renderer's own tags and attributes.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

MARKDOWN_JS = Path(__file__).resolve().parents[1] / "mediagen_nb/widgets/static/chat_markdown.js"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

SHAPES: dict[str, Callable[[int], str]] = {
    "[ run": lambda n: "[" * n,
    "[ run, then ]": lambda n: "[" * n + "]",
    "![ run": lambda n: "![" * (n // 2),
    "backticks": lambda n: "`" * n,
    "stars": lambda n: "*" * n,
    "underscores": lambda n: "_" * n,
    "unclosed bold": lambda n: "**a" * (n // 3),
    "unclosed em": lambda n: " _a" * (n // 3),
    "nested link openers": lambda n: "[a](" * (n // 4),
    "unfinished links": lambda n: "[a](https://x" * (n // 13),
    "nested labels": lambda n: "[" * (n // 2) + "a](https://x.y)" + "]" * (n // 2),
    "labels, no target": lambda n: "[x]" * (n // 3),
    "long label": lambda n: "[" + "a" * n + "]b",
    "lines of [": lambda n: "[[[[[[[[[\n" * (n // 10),
}
N = 20_000
STEPS_PER_CHAR = 16
"""Characters the scanner may look at per input character: six passes (code, links, four
emphases), each looking at a character at most about twice (measured: 12 at most)."""


def _node(script: str, payload: Any) -> Any:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(done.stdout)


def _work(texts: list[str]) -> list[tuple[int, float]]:
    """(scanner steps, milliseconds) of rendering each text."""
    script = (
        f"import {{ renderMarkdown, markdownWork }} from {json.dumps(MARKDOWN_JS.as_uri())};\n"
        "let input = '';\n"
        "process.stdin.on('data', (d) => (input += d));\n"
        "process.stdin.on('end', () => {\n"
        "  const out = JSON.parse(input).map((text) => {\n"
        "    const before = markdownWork.steps;\n"
        "    const start = performance.now();\n"
        "    renderMarkdown(text);\n"
        "    return [markdownWork.steps - before, performance.now() - start];\n"
        "  });\n"
        "  process.stdout.write(JSON.stringify(out));\n"
        "});\n"
    )
    return [(int(s), float(ms)) for s, ms in _node(script, texts)]


def _render_all(texts: list[str]) -> list[str]:
    script = (
        f"import {{ renderMarkdown }} from {json.dumps(MARKDOWN_JS.as_uri())};\n"
        "let input = '';\n"
        "process.stdin.on('data', (d) => (input += d));\n"
        "process.stdin.on('end', () =>\n"
        "  process.stdout.write(JSON.stringify(JSON.parse(input).map(renderMarkdown))));\n"
    )
    out: list[str] = _node(script, texts)
    return out


def test_rendering_pathological_runs_is_linear() -> None:
    texts = [make(size) for make in SHAPES.values() for size in (N, 4 * N)]
    work = _work(texts)
    for index, name in enumerate(SHAPES):
        (small, small_ms), (large, large_ms) = work[2 * index], work[2 * index + 1]
        size_small, size_large = len(texts[2 * index]), len(texts[2 * index + 1])
        print(f"{name}: {small} -> {large} steps, {small_ms:.1f} -> {large_ms:.1f} ms")
        assert large <= STEPS_PER_CHAR * size_large, name
        assert large / size_large <= 1.2 * small / size_small + 0.01, name  # 4x text, ~4x work


INJECTIONS = [
    '<img src=x onerror="alert(1)">',
    "</script><script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "[click](JavaScript:alert(1))",
    '[x](https://a.b/" onmouseover="alert(1))',
    "[x](https://a.b/'onmouseover='alert(1))",
    "[x](https://a.b/<script>)",
    "```\n<script>alert(1)</script>\n```",
    "```html onload=alert(1)\n<b>x</b>\n```",
    "`<img src=x onerror=alert(1)>`",
    "**<svg onload=alert(1)>**",
    "[<img src=x onerror=alert(1)>](https://a.b)",
    "data:text/html,<script>alert(1)</script>",
    "&lt;script&gt; \u0000 0 \u0000 [x](https://a.b) \u00000\u0000",
]
TAG = re.compile(r"<(/?)([a-zA-Z0-9]+)([^>]*)>")
ALLOWED = {"p", "br", "strong", "em", "code", "pre", "a", "ul", "ol", "li"} | {
    f"h{i}" for i in range(1, 7)
}
ATTRIBUTE = re.compile(
    r'^(?: href="(?:https?://|mailto:)[^"<>\s]*" target="_blank" rel="noopener noreferrer"'
    r'| class="language-[\w+-]+")?$'
)
PIECES = [
    *("<", ">", '"', "'", "&", "[", "]", "(", ")", "`", "```\n", "*", "_", "\n", " ", "a"),
    *("https://e.x/", "javascript:", "mailto:", "onerror=", "<img ", "</", "\u0000", "1"),
]


def _only_own_markup(html: str) -> None:
    for _close, tag, attributes in TAG.findall(html):
        assert tag in ALLOWED, html
        assert ATTRIBUTE.match(attributes), html


@pytest.mark.parametrize("text", INJECTIONS)
def test_markup_injections_come_out_as_text(text: str) -> None:
    _only_own_markup(_render_all([text])[0])


def test_random_hostile_mixes_only_produce_the_renderers_own_markup() -> None:
    rng = random.Random(32)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    for html in _render_all(texts):
        _only_own_markup(html)
