"""The transcript's hand-written Markdown renderer (static/chat.js), run under node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

MARKDOWN_JS = (
    Path(__file__).resolve().parent.parent
    / "mediagen_nb"
    / "widgets"
    / "static"
    / "chat_markdown.js"
)
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def render(text: str) -> str:
    script = (
        f"import {{ renderMarkdown }} from {json.dumps(MARKDOWN_JS.as_uri())};\n"
        "let input = '';\n"
        "process.stdin.on('data', (d) => (input += d));\n"
        "process.stdin.on('end', () => process.stdout.write(renderMarkdown(JSON.parse(input))));\n"
    )
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        input=json.dumps(text),
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout


def test_html_is_escaped_before_anything_else() -> None:
    html = render('<script>alert("x")</script> <img src=x onerror=y> **<b>**')
    assert "<script>" not in html
    assert "<img" not in html
    assert "<b>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "<strong>&lt;b&gt;</strong>" in html


def test_blocks_and_inline_markup() -> None:
    text = (
        "# Title\n\nSome **bold**, *italic* and `code_with_under*scores*`.\n\n"
        "- one\n- two\n\n1. first\n2. second\n\n```python\nx = 1 < 2\n```\n"
        "See [docs](https://example.com/a_b_c) or [bad](javascript:alert(1))."
    )
    html = render(text)
    assert "<h1>Title</h1>" in html
    assert "<strong>bold</strong>" in html
    assert "<em>italic</em>" in html
    assert "<code>code_with_under*scores*</code>" in html
    assert "<ul><li>one</li><li>two</li></ul>" in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert '<pre><code class="language-python">x = 1 &lt; 2</code></pre>' in html
    assert (
        '<a href="https://example.com/a_b_c" target="_blank" rel="noopener noreferrer">docs</a>'
        in html
    )
    assert 'href="javascript' not in html


def test_unclosed_fence_while_streaming_renders_as_code() -> None:
    html = render("Here:\n```\npartial <code")
    assert html.endswith("<pre><code>partial &lt;code</code></pre>")
