""" "Export this session": one self-contained HTML page of a session's results.

Pictures and videos inline (``data:`` URLs), each with its prompt, parameters and
Copy-as-code snippet; nothing refers to another file or host, so it opens offline.
"""

from __future__ import annotations

import base64
import html
import json
import mimetypes
from datetime import datetime
from pathlib import Path
from typing import Any

from mediagen_nb.catalog import FAMILIES
from mediagen_nb.widgets._codegen import code_for

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem;
  color: #1f1f1f; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e8e8e8; background: #141414; }
  pre, details { background: #222 !important; } }
article { border: 1px solid #8884; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
img, video { max-width: 100%; border-radius: 6px; display: block; }
pre { background: #f4f4f4; padding: 0.6rem; overflow-x: auto; border-radius: 6px; }
.meta { color: #777; font-size: 0.9em; }
button { font: inherit; cursor: pointer; }
"""
SCRIPT = """
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; }
    catch (_err) { button.textContent = "Select the code and copy it"; }
  });
}
"""


def _media(path: Any) -> tuple[str, str] | None:
    """``(mime, data URL)`` of a cached file, or None when there is none."""
    if not isinstance(path, str) or not path or not Path(path).is_file():
        return None
    mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return mime, f"data:{mime};base64,{data}"


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if isinstance(value, datetime) else ""


def _task(index: int, row: dict[str, Any]) -> str:
    request = row.get("request") if isinstance(row.get("request"), dict) else {}
    family = row.get("family") if isinstance(row.get("family"), str) else None
    kind = FAMILIES[family].kind if family in FAMILIES else "image"
    media = _media(row.get("local_file"))
    if media is None:
        shown = f"<p class='meta'>No file kept ({html.escape(str(row.get('status') or ''))}).</p>"
    elif media[0].startswith("video/"):
        shown = f"<video controls src='{media[1]}'></video>"
    else:
        shown = f"<img alt='{html.escape(str(row.get('prompt') or ''))}' src='{media[1]}'>"
    code = code_for(kind, dict(request), family)  # type: ignore[arg-type]
    return (
        f"<article><h2>{html.escape(str(row.get('model') or ''))}</h2>"
        f"<p class='meta'>{_when(row.get('time'))} · {html.escape(str(row.get('task_id')))}</p>"
        f"{shown}<p>{html.escape(str(row.get('prompt') or ''))}</p>"
        f"<details><summary>Parameters</summary><pre>"
        f"{html.escape(json.dumps(request, indent=1, ensure_ascii=False))}</pre></details>"
        f"<p><button type='button' data-copy='code-{index}'>Copy as code</button></p>"
        f"<pre id='code-{index}'>{html.escape(code)}</pre></article>"
    )


def _chat(row: dict[str, Any]) -> str:
    return (
        f"<article><h2>{html.escape(str(row.get('model') or ''))}</h2>"
        f"<p class='meta'>{_when(row.get('time'))} · chat</p>"
        f"<p><strong>You:</strong> {html.escape(str(row.get('prompt') or ''))}</p>"
        f"<p><strong>Reply:</strong> {html.escape(str(row.get('text') or ''))}</p></article>"
    )


def session_page(records: list[dict[str, Any]], title: str = "mediagen_nb session") -> str:
    """The page of ``records`` (history records, newest first: shown oldest first)."""
    parts = []
    for index, row in enumerate(reversed(records)):
        if row.get("kind") == "task":
            parts.append(_task(index, row))
        elif row.get("kind") == "chat":
            parts.append(_chat(row))
    body = "".join(parts) or "<p>Nothing was made in this session.</p>"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p class='meta'>{len(parts)} results; "
        "pictures and videos are inside this file.</p>"
        f"{body}<script>{SCRIPT}</script></body></html>\n"
    )
