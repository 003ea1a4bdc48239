"""Links that share a request: ``?tab=images&model=...&prompt=...`` and its other fields.

``share_query`` writes a result's request as a query (never a key); ``parse_link`` reads one
back, naming each value it refuses. See the docs' Design page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from mediagen_nb.catalog import family_for_model

TABS = {
    "images": "Images",
    "videos": "Videos",
    "chat": "Chat",
    "assets": "Assets",
    "history": "History",
}
"""The ``tab`` values of a link, and the Studio tab each opens."""
KIND_TABS = {"image": "images", "video": "videos", "chat": "chat"}
PAGE_PARAMS = frozenset(
    {
        "theme", "kernel", "code", "execute", "toolbar", "showBanner", "hideCodeInput",
        "promptCellPosition", "clearCellsOnExecute", "clearCodeContentOnExecute", "path",
        "token", "voila", "reset", "clone", "file", "factory", "kernel_name", "access_token",
    }
)  # fmt: skip
"""Parameters of the page itself (the landing page, JupyterLite's REPL, Voila, JupyterLab)."""
SECRET = re.compile(r"key|token|secret|password|authori[sz]ation", re.IGNORECASE)
"""A field a link never carries or takes: the API key stays in the kernel."""
TEXT_FIELDS = frozenset({"model", "prompt"})
LINK_FIELDS = frozenset({"tab", "model", "prompt"})
"""A query is a link only with one of these (else it is some page's own address)."""


def share_query(kind: str, body: dict[str, Any]) -> str:
    """The query (without ``?``) that opens ``body`` (a ``kind`` request) in the Studio."""
    pairs = [("tab", KIND_TABS[kind])]
    for name, value in body.items():
        if SECRET.search(name) or value is None:
            continue
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        pairs.append((name, text))
    return urlencode(pairs)


@dataclass
class Link:
    """What a link asks for: the Studio tab, the request body, and what it refused."""

    tab: str
    body: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _value(name: str, text: str) -> Any:
    """A field's value: text for ``model`` and ``prompt``, else JSON when it parses."""
    if name in TEXT_FIELDS:
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_link(query: str) -> Link | None:
    """The request a page address's query asks for, or None when it asks for none."""
    pairs = [(k, v) for k, v in parse_qsl(query.lstrip("?"), keep_blank_values=True)]
    ours = [(k, v) for k, v in pairs if k not in PAGE_PARAMS]
    if not any(k in LINK_FIELDS for k, _v in ours):
        return None  # another page's address (marimo's ?file=, a tool's own options)
    link = Link(tab="")
    for name, text in ours:
        if name == "tab":
            tab = TABS.get(text.strip().lower())
            if tab is None:
                link.problems.append(f"tab: must be one of {', '.join(TABS)} (got {text!r})")
            else:
                link.tab = tab
        elif SECRET.search(name):
            link.problems.append(f"{name}: a link never carries a key (connect in the Studio)")
        else:
            link.body[name] = _value(name, text)
    if not link.tab:
        known = family_for_model(str(link.body.get("model", "")))
        link.tab = TABS[KIND_TABS[known.kind]] if known is not None else "Images"
    return link
