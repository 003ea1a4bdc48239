"""A small button that copies a text (an ``asset://id``) to the browser clipboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from mediagen_nb.widgets._transcript import STATIC

CopyCallback = Callable[["CopyButton"], None]


class CopyButton(anywidget.AnyWidget):
    """Copies ``text`` in the browser (``static/copy.js``); ``click()`` is the test trigger."""

    _esm = STATIC / "copy.js"

    text = traitlets.Unicode("").tag(sync=True)
    """What the button copies."""
    label = traitlets.Unicode("Copy").tag(sync=True)
    """Button text."""

    def __init__(self, text: str = "", label: str = "Copy", **kwargs: Any) -> None:
        super().__init__(text=text, label=label, **kwargs)
        self._callbacks: list[CopyCallback] = []
        self.on_msg(self._on_custom_msg)

    def on_copy(self, callback: CopyCallback, remove: bool = False) -> None:
        """Call ``callback(button)`` after the front end copied the text."""
        if remove:
            if callback in self._callbacks:
                self._callbacks.remove(callback)
        elif callback not in self._callbacks:
            self._callbacks.append(callback)

    def click(self) -> str:
        """What a click does on the kernel side (tests); returns the copied text."""
        for callback in list(self._callbacks):
            callback(self)
        return str(self.text)

    def _on_custom_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        # not `_handle_msg`: that name is ipywidgets' own comm dispatcher
        if isinstance(content, dict) and content.get("event") == "copied":
            self.click()
