"""One control per request parameter: label, input, and the message shown next to it.

Each ``Field`` turns its input into body entries (``items()``), takes them back from a past
body (``load()``) and shows the problems that name it (``show()``). Inputs the user typed
that do not parse (``"abc"`` as a duration) go into the body as they are, so the request
validator names the field and the rule in the same words everywhere.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from mediagen_nb.catalog import REFERENCE_FIELDS, Param
from mediagen_nb.types import Problem
from mediagen_nb.widgets._session import Session

UNSET_LABEL = "— not set —"
LABEL_WIDTH = "11em"
ASSET_TYPE_FOR = {"referenceVideos": "Video", "referenceAudios": "Audio"}
"""Which kind of Active asset a reference field offers (Image for the rest)."""

Callback = Callable[[], None]


def problem_html(problems: Sequence[Problem]) -> str:
    """Problems in words: errors in red, warnings softer (grey italics)."""
    parts = []
    for p in problems:
        text = html.escape(str(p))
        if p.is_error:
            parts.append(f'<div class="mediagen-error" style="color:#b3261e">⚠ {text}</div>')
        else:
            parts.append(f'<div class="mediagen-warning" style="color:#777"><i>{text}</i></div>')
    return "".join(parts)


def labelled(label: str, control: widgets.Widget, help_text: str = "") -> widgets.HBox:
    """A row: fixed-width label (help as tooltip) then the control."""
    lab = widgets.Label(label, layout=widgets.Layout(width=LABEL_WIDTH), tooltip=help_text)
    return widgets.HBox([lab, control])


class Field:
    """Base: a box (row + message) for parameter ``key`` that may emit several body names."""

    def __init__(self, key: str, names: Sequence[str], row: widgets.Widget) -> None:
        self.key = key
        self.names = tuple(names)
        self.message = widgets.HTML("")
        self.message.add_class("mediagen-field-message")
        self.box = widgets.VBox([row, self.message])
        self.box.add_class(f"mediagen-field-{key}")
        self.problems: list[Problem] = []

    @property
    def visible(self) -> bool:
        """Shown in the form (and so part of the body)."""
        return bool(self.box.layout.display != "none")

    @visible.setter
    def visible(self, value: bool) -> None:
        self.box.layout.display = None if value else "none"

    def items(self) -> dict[str, Any]:
        """Body entries for the current input ({} when not set)."""
        raise NotImplementedError

    def load(self, body: dict[str, Any]) -> None:
        """Take this field's values from ``body`` (missing names mean not set)."""
        raise NotImplementedError

    def observe(self, callback: Callback) -> None:
        """Call ``callback()`` when the user changes the input."""
        raise NotImplementedError

    def show(self, problems: Sequence[Problem]) -> None:
        """Show the problems that name this field next to it."""
        self.problems = list(problems)
        self.message.value = problem_html(problems)

    def owns(self, problem_field: str) -> bool:
        """True when a problem's JSON path belongs to this field."""
        top = problem_field.split(".", maxsplit=1)[0].split("[", maxsplit=1)[0]
        return top in self.names


def _on_value(widget: widgets.Widget, callback: Callback) -> None:
    widget.observe(lambda _change: callback(), names="value")


class TextField(Field):
    """Free text (prompt, size, model name); empty is not set."""

    def __init__(self, param: Param, *, multiline: bool = False, placeholder: str = "") -> None:
        kind = widgets.Textarea if multiline else widgets.Text
        self.input = kind(
            value="",
            placeholder=placeholder or param.help,
            continuous_update=True,
            layout=widgets.Layout(width="100%" if multiline else "22em"),
        )
        if multiline:
            self.input.layout.height = "5em"
        super().__init__(param.name, [param.name], labelled(param.name, self.input, param.help))
        self.required = param.required

    def items(self) -> dict[str, Any]:
        text = self.input.value
        if not text and not self.required:
            return {}
        return {self.key: text}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        self.input.value = "" if value is None else str(value)

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


class IntField(Field):
    """A whole number typed as text (so bad input reaches the validator); empty is not set."""

    def __init__(self, param: Param) -> None:
        bounds = f"{param.minimum} to {param.maximum}" if param.minimum is not None else ""
        hint = f"{bounds}, default {param.default}" if param.default is not None else bounds
        self.input = widgets.Text(
            value="" if param.default is None else str(param.default),
            placeholder=hint or param.help,
            continuous_update=True,
            layout=widgets.Layout(width="12em"),
        )
        super().__init__(param.name, [param.name], labelled(param.name, self.input, param.help))

    def items(self) -> dict[str, Any]:
        text = self.input.value.strip()
        if not text:
            return {}
        try:
            return {self.key: int(text)}
        except ValueError:
            return {self.key: text}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        self.input.value = "" if value is None else str(value)

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


class BoolField(Field):
    """A checkbox; always sent (its default is the spec's)."""

    def __init__(self, param: Param) -> None:
        self.input = widgets.Checkbox(value=bool(param.default), indent=False)
        super().__init__(param.name, [param.name], labelled(param.name, self.input, param.help))
        self.default = bool(param.default)

    def items(self) -> dict[str, Any]:
        return {self.key: bool(self.input.value)}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        self.input.value = self.default if value is None else bool(value)

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


class EnumField(Field):
    """A dropdown whose offered options the form narrows to the valid ones.

    "Not set" is the empty string inside the widget (a Dropdown shows ``None`` as a blank
    box) and ``None`` in this class's API.
    """

    def __init__(self, param: Param) -> None:
        self.param = param
        self.all_options: tuple[Any, ...] = (None, *param.options)
        self.input = widgets.Dropdown(
            options=self._labels(self.all_options), value=_unset(param.default)
        )
        super().__init__(param.name, [param.name], labelled(param.name, self.input, param.help))

    @staticmethod
    def _labels(values: Sequence[Any]) -> list[tuple[str, Any]]:
        return [(UNSET_LABEL, "") if v is None else (str(v), v) for v in values]

    @property
    def value(self) -> Any:
        """The chosen option, None when not set."""
        return None if self.input.value == "" else self.input.value

    @value.setter
    def value(self, value: Any) -> None:
        self.input.value = _unset(value)

    @property
    def offered(self) -> tuple[Any, ...]:
        """The option values currently offered (None means not set)."""
        return tuple(None if value == "" else value for _label, value in self.input.options)

    def set_offered(self, values: Sequence[Any], prefer: Any = None) -> None:
        """Offer only ``values``; keep the current value if still offered, else ``prefer``
        (the spec's default) if offered, else the first."""
        current = self.value
        if current in values:
            keep = current
        elif prefer is not None and prefer in values:
            keep = prefer
        else:
            keep = values[0] if values else None
        if tuple(values) != self.offered:
            self.input.options = self._labels(values or [None])
        self.value = keep

    def items(self) -> dict[str, Any]:
        value = self.value
        return {} if value is None else {self.key: value}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        if value not in self.offered:
            self.input.options = self._labels(self.all_options)
        self.value = value if value in self.all_options else None

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


def _unset(value: Any) -> Any:
    return "" if value is None else value


class AssetPicker:
    """A dropdown of Active assets of one type; picking one inserts its ``asset://id``."""

    def __init__(self, session: Session, asset_type: str, insert: Callable[[str], None]) -> None:
        self.session = session
        self.asset_type = asset_type
        self._insert = insert
        self.input = widgets.Dropdown(
            options=[("insert asset…", "")], value="", layout=widgets.Layout(width="14em")
        )
        self.input.observe(self._picked, names="value")
        self.refresh()

    def refresh(self, _session: Session | None = None) -> None:
        """Re-read the session's Active assets."""
        assets = [a for a in self.session.active_assets if a.asset_type == self.asset_type]
        self.input.options = [("insert asset…", ""), *[(a.label, a.uri) for a in assets]]
        self.input.value = ""
        self.input.disabled = not assets

    def _picked(self, change: dict[str, Any]) -> None:
        uri = change["new"]
        if uri:
            self._insert(uri)
            self.input.value = ""


class RefField(Field):
    """One reference: a URL or ``asset://id`` (typed, or picked from Active assets)."""

    def __init__(self, param: Param, session: Session, *, label: str | None = None) -> None:
        self.input = widgets.Text(
            value="",
            placeholder="https://… or asset://id",
            continuous_update=True,
            layout=widgets.Layout(width="26em"),
        )
        self.picker = AssetPicker(session, ASSET_TYPE_FOR.get(param.name, "Image"), self._set)
        if param.name not in REFERENCE_FIELDS:
            self.picker.input.layout.display = "none"
        row = labelled(label or param.name, widgets.HBox([self.input, self.picker.input]))
        super().__init__(param.name, [param.name], row)

    def _set(self, uri: str) -> None:
        self.input.value = uri

    def items(self) -> dict[str, Any]:
        text = self.input.value.strip()
        return {self.key: text} if text else {}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        self.input.value = "" if value is None else str(value)

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


class RefListField(Field):
    """Several references, one per line; Active assets can be appended from a picker."""

    def __init__(self, param: Param, session: Session) -> None:
        most = f"up to {param.max_items}, " if param.max_items else ""
        self.input = widgets.Textarea(
            value="",
            placeholder=f"{most}one URL or asset://id per line",
            continuous_update=True,
            layout=widgets.Layout(width="26em", height="4em"),
        )
        self.picker = AssetPicker(session, ASSET_TYPE_FOR.get(param.name, "Image"), self._add)
        if param.name not in REFERENCE_FIELDS:  # image_urls/input_reference: plain URLs only
            self.picker.input.layout.display = "none"
            self.input.placeholder = f"{most}one http(s) URL per line"
        row = labelled(param.name, widgets.HBox([self.input, self.picker.input]), param.help)
        super().__init__(param.name, [param.name], row)

    def _add(self, uri: str) -> None:
        lines = [line for line in self.input.value.splitlines() if line.strip()]
        self.input.value = "\n".join([*lines, uri])

    def urls(self) -> list[str]:
        """The non-empty lines."""
        return [line.strip() for line in self.input.value.splitlines() if line.strip()]

    def items(self) -> dict[str, Any]:
        urls = self.urls()
        return {self.key: urls} if urls else {}

    def load(self, body: dict[str, Any]) -> None:
        value = body.get(self.key)
        if isinstance(value, str):
            value = [value]
        self.input.value = "\n".join(str(v) for v in value or [])

    def observe(self, callback: Callback) -> None:
        _on_value(self.input, callback)


class PairField(Field):
    """Two mutually exclusive parameters as one control: a value plus "send as" which name.

    Sora's ``size``/``aspect_ratio``, ``duration``/``seconds`` and
    ``input_reference``/``image_urls``: the body can only ever hold one of each pair.
    """

    def __init__(self, label: str, first: Field, second: Field) -> None:
        self.fields = (first, second)
        self.choice = widgets.ToggleButtons(
            options=[first.key, second.key],
            value=first.key,
            style={"button_width": "auto"},
            tooltips=["send as " + first.key, "send as " + second.key],
        )
        for f in self.fields:
            f.box.children = (f.box.children[0],)  # the pair shows one message for both
        self.stack = widgets.VBox([first.box, second.box])
        row = widgets.VBox([labelled(label, self.choice, "which parameter to send"), self.stack])
        super().__init__(first.key, [first.key, second.key], row)
        self.choice.observe(lambda _c: self._switch(), names="value")
        self._switch()

    @property
    def active(self) -> Field:
        """The half that is sent."""
        return self.fields[0] if self.choice.value == self.fields[0].key else self.fields[1]

    def _switch(self) -> None:
        for f in self.fields:
            f.visible = f is self.active

    def items(self) -> dict[str, Any]:
        return self.active.items()

    def load(self, body: dict[str, Any]) -> None:
        second = self.fields[1]
        self.choice.value = second.key if body.get(second.key) is not None else self.fields[0].key
        self.active.load(body)

    def observe(self, callback: Callback) -> None:
        self.choice.observe(lambda _c: callback(), names="value")
        for f in self.fields:
            f.observe(callback)
