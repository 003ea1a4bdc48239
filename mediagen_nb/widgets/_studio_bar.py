"""``StudioBar``: the Studio's top line (one anywidget): mode, connect form, resume status.

It says "demo mode (built-in emulator)" or "connected to <host>", offers "Connect to the
real service" (API key, base URLs) and "Back to demo mode", and says how many unfinished
tasks of an earlier kernel were re-attached. The API key never becomes a trait: the front
end sends it once in a ``{"action": "connect", "key": ...}`` custom message (custom messages
are not part of the saved widget state) and empties its field; the Studio hands it to the
session, which keeps it in memory only. Its stylesheet also gives the Studio's tab titles
the theme's main text colour (inactive ipywidgets tabs are 4.2:1 otherwise).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import traitlets as t

from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._session import Session

ConnectCallback = Callable[[str | None, str | None, str | None], None]


class StudioBar(WidgetPanel):
    """The Studio's mode line and connect form; see the module docstring."""

    _esm = esm("studio.js")
    _css = css("studio.css")

    resume_text = t.Unicode("").tag(sync=True)
    """One line about re-attached tasks ("" when there is nothing to say)."""
    base_url_hint = t.Unicode("").tag(sync=True)
    """Placeholder of the base URL field (``MEDIAGEN_BASE_URL``)."""
    text_url_hint = t.Unicode("").tag(sync=True)
    """Placeholder of the text base URL field (``MEDIAGEN_TEXT_BASE_URL``)."""

    def __init__(self, *, session: Session | None = None, on_connect: ConnectCallback) -> None:
        super().__init__(
            session=session,
            base_url_hint=os.environ.get("MEDIAGEN_BASE_URL", ""),
            text_url_hint=os.environ.get("MEDIAGEN_TEXT_BASE_URL", ""),
        )
        self.title = "mediagen Studio"
        self._connect = on_connect
        self.on_action("connect", self._connect_action)
        self.on_action("demo", self._demo_action)

    def _connect_action(self, message: dict[str, Any]) -> None:
        def text(name: str) -> str | None:
            value = message.get(name)
            return value.strip() or None if isinstance(value, str) else None

        self.clear_errors()
        self._connect(text("key"), text("base_url"), text("text_base_url"))

    def _demo_action(self, _message: dict[str, Any]) -> None:
        self.clear_errors()
        self._connect(None, None, None)
