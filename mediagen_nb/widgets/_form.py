"""A request form derived from the catalog, validated as the user types.

``GenerationForm("image")`` / ``GenerationForm("video")``: a model picker grouped by family
with a one-line description, the chosen family's parameters (``catalog.params_for``), and
problems from ``types.validate_request`` shown next to the fields they name.

Option lists are derived, not hand-written: an option of a dropdown is offered when the
current body with that option yields no problem on that field and no new error elsewhere
(so ``2k``/``4k`` appear only for the pro banana models, image2 ``4k`` only with the wide
and tall ratios, "not set" disappears from ``ratio`` once ``resolution`` is set). A dropdown
with no option left besides "not set" is hidden (``quality`` on gpt-image-2-r only earns a
warning, so it is hidden). Decision: the "more parameters (JSON)" box is offered for every
family (open for the partly documented ones); its keys override the fields' values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from mediagen_nb.catalog import Family, Kind, families, family_for_model, params_for
from mediagen_nb.types import Problem, errors_only, validate_request
from mediagen_nb.widgets._form_content import ModeField
from mediagen_nb.widgets._form_fields import Field, PairField, problem_html
from mediagen_nb.widgets._form_layout import build_fields, leaf_enums, pickers
from mediagen_nb.widgets._session import Session, current_session

EXTRA_FIELD = "(more parameters)"
FormCallback = Callable[["GenerationForm"], None]


def model_options(kind: Kind) -> list[tuple[str, str]]:
    """Picker entries ``"Title · model"`` -> ``"family:model"``; unnamed families get one."""
    entries: list[tuple[str, str]] = []
    for fam in families(kind):
        if fam.models:
            entries += [(f"{fam.title} · {m}", f"{fam.id}:{m}") for m in fam.models]
        else:
            entries.append((f"{fam.title} · (type a model name)", f"{fam.id}:"))
    return entries


def describe_family(fam: Family) -> str:
    """One line: max resolution, durations and references of a family."""
    parts = [f"max {fam.max_resolution}"]
    if fam.id == "sora":
        parts.append("4, 8 or 12 s")
    elif fam.duration_range is not None:
        parts.append(f"{fam.duration_range[0]}-{fam.duration_range[1]} s")
    elif fam.kind == "video":
        parts.append("fixed duration")
    refs = [p.name for p in params_for(fam.id) if p.type in ("url", "url_list", "content")]
    if fam.id == "seedance":
        refs = ["first/last frame or 1-4 reference images"]
    if refs:
        parts.append("references: " + ", ".join(refs))
    return f"{fam.title}: " + "; ".join(parts) + f". {fam.description}"


class GenerationForm(widgets.VBox):  # type: ignore[misc]
    """Image or video request form; see the module docstring."""

    def __init__(self, kind: Kind, *, session: Session | None = None, model: str = "") -> None:
        self.kind = kind
        self.session = session if session is not None else current_session()
        self._callbacks: list[FormCallback] = []
        self._syncing = False
        self._fields: dict[str, list[Field]] = {}
        self._problems: list[Problem] = []
        self._hidden_by_mode: set[str] = set()
        self.picker = widgets.Dropdown(options=model_options(kind), description="model")
        self.picker.add_class("mediagen-model-picker")
        self.model_name = widgets.Text(placeholder="model name", continuous_update=True)
        self.model_message = widgets.HTML("")
        self.description = widgets.HTML("")
        self.fields_box = widgets.VBox([])
        self.extra = widgets.Textarea(
            placeholder='{"resolution": "1080p"}',
            continuous_update=True,
            layout=widgets.Layout(width="100%", height="4em"),
        )
        self.extra_message = widgets.HTML("")
        self.extra_box = widgets.Accordion([widgets.VBox([self.extra, self.extra_message])])
        self.extra_box.set_title(0, "more parameters (JSON)")
        self.summary = widgets.HTML("")
        super().__init__(
            [
                widgets.HBox([self.picker, self.model_name]),
                self.model_message,
                self.description,
                self.fields_box,
                self.extra_box,
                self.summary,
            ]
        )
        self.add_class("mediagen-form")
        self.picker.observe(lambda _c: self._model_changed(), names="value")
        for w in (self.model_name, self.extra):
            w.observe(lambda _c: self._changed(), names="value")
        self.session.on_assets_change(self._assets_changed)
        if model:
            self.select(model)
        self._model_changed()

    # --- what is chosen ---------------------------------------------------------------------

    @property
    def family(self) -> Family:
        """The chosen family."""
        fam_id = str(self.picker.value).split(":", 1)[0]
        return next(f for f in families(self.kind) if f.id == fam_id)

    @property
    def model(self) -> str:
        """The chosen (or typed) model name."""
        named = str(self.picker.value).split(":", 1)[1]
        return named or self.model_name.value.strip()

    @property
    def path(self) -> str:
        """Create endpoint path of the chosen family."""
        return self.family.create_path

    @property
    def fields(self) -> list[Field]:
        """Controls of the chosen family (visible or not)."""
        fam = self.family
        if fam.id not in self._fields:
            fields = build_fields(fam, self.session)
            for f in fields:
                f.observe(self._changed)
            self._fields[fam.id] = fields
        return self._fields[fam.id]

    def field(self, name: str) -> Field:
        """The control that sends parameter ``name`` (a pair's half for its second name)."""
        for f in self.fields:
            if isinstance(f, PairField):
                for half in f.fields:
                    if half.key == name:
                        return half
            elif f.key == name:
                return f
        raise KeyError(f"{self.family.title} has no parameter {name!r}")

    def visible_names(self) -> list[str]:
        """Keys of the controls shown now, in order (pairs by their first name)."""
        return [f.key for f in self.fields if f.visible]

    def select(self, model: str, family: str | None = None) -> None:
        """Choose a model (a known name, or ``family=`` plus a free name)."""
        fam = family_for_model(model) if family is None else None
        fam_id = fam.id if fam is not None else family
        values = [v for _label, v in model_options(self.kind)]
        if f"{fam_id}:{model}" in values:
            self.picker.value = f"{fam_id}:{model}"
        elif f"{fam_id}:" in values:
            self.picker.value = f"{fam_id}:"
            self.model_name.value = model
        else:
            raise ValueError(f"{model!r} is not a {self.kind} model of the catalog")

    # --- body, problems ----------------------------------------------------------------------

    def _extras(self) -> tuple[dict[str, Any], list[Problem]]:
        text = self.extra.value.strip()
        if not text:
            return {}, []
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return {}, [Problem(EXTRA_FIELD, f"is not valid JSON ({exc.msg}, line {exc.lineno})")]
        if not isinstance(value, dict):
            return {}, [Problem(EXTRA_FIELD, 'must be a JSON object, e.g. {"key": value}')]
        return value, []

    def _body_of(self, fields: list[Field]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model}
        for f in fields:
            if f.visible:
                body.update(f.items())
        return body

    def body(self) -> dict[str, Any]:
        """The JSON body of the request the form describes now."""
        body = self._body_of(self.fields)
        body.update(self._extras()[0])
        return body

    @property
    def problems(self) -> list[Problem]:
        """Errors and warnings of the current body (as last validated)."""
        return list(self._problems)

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return not errors_only(self._problems)

    @property
    def reason(self) -> str:
        """Why Generate is disabled ("" when it is not)."""
        errors = errors_only(self._problems)
        if not errors:
            return ""
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"fix {errors[0]}{more}"

    def on_change(self, callback: FormCallback, remove: bool = False) -> None:
        """Call ``callback(form)`` after every change has been validated."""
        if remove:
            if callback in self._callbacks:
                self._callbacks.remove(callback)
        elif callback not in self._callbacks:
            self._callbacks.append(callback)

    def load(self, body: dict[str, Any], family: str | None = None) -> None:
        """Fill the form from a past request body (e.g. HistoryPanel's "open in form")."""
        self._syncing = True
        try:
            self.select(str(body.get("model", "")), family)
            self.extra.value = ""
            fields = self.fields
            for f in fields:
                if isinstance(f, ModeField):
                    f.load(body)
            self._apply_visibility()
            for f in fields:
                if not isinstance(f, ModeField):
                    f.load(body)
            used = {"model"} | {n for f in fields if f.visible for n in f.names}
            rest = {k: v for k, v in body.items() if k not in used}
            self.extra.value = json.dumps(rest, indent=1) if rest else ""
        finally:
            self._syncing = False
        self._refresh()

    def close(self) -> None:
        """Close the widget and stop following the session's active assets."""
        self.session.on_assets_change(self._assets_changed, remove=True)
        super().close()

    # --- reacting ------------------------------------------------------------------------------

    def _assets_changed(self, _session: Session) -> None:
        for fields in self._fields.values():
            for f in fields:
                for picker in pickers(f):
                    picker.refresh()

    def _model_changed(self) -> None:
        fam = self.family
        self.model_name.layout.display = None if not fam.models else "none"
        self.description.value = f'<span style="color:#555">{describe_family(fam)}</span>'
        self.extra_box.selected_index = None if fam.documented else 0
        self.fields_box.children = [f.box for f in self.fields]
        if not self._syncing:
            self._refresh()

    def _changed(self) -> None:
        if not self._syncing:
            self._refresh()

    def _apply_visibility(self) -> None:
        mode = next((f for f in self.fields if isinstance(f, ModeField)), None)
        self._hidden_by_mode = set()
        for f in self.fields:
            if mode is not None and f.key not in ("prompt", "mode"):
                f.visible = f.key in mode.shown_fields
                if not f.visible:
                    self._hidden_by_mode.add(f.key)

    def _offer_options(self) -> None:
        """Narrow each dropdown to its valid options (a few passes until stable)."""
        path = self.path
        for _pass in range(3):
            changed = False
            for enum in leaf_enums(self.fields):
                if enum.key in self._hidden_by_mode:
                    continue
                base = {k: v for k, v in self._body_of(self.fields).items() if k != enum.key}
                known = {(p.field, p.rule) for p in errors_only(validate_request(path, base))}
                offered = []
                for value in enum.all_options:
                    trial = base if value is None else {**base, enum.key: value}
                    bad = [
                        p
                        for p in validate_request(path, trial)
                        if enum.owns(p.field) or (p.is_error and (p.field, p.rule) not in known)
                    ]
                    if not bad:
                        offered.append(value)
                before = (enum.offered, enum.value)
                if any(v is not None for v in offered):
                    enum.set_offered(offered, prefer=enum.param.default)
                enum.visible = any(v is not None for v in offered)
                changed |= (enum.offered, enum.value) != before
            if not changed:
                return

    def _refresh(self) -> None:
        self._syncing = True
        try:
            self._apply_visibility()
            self._offer_options()
        finally:
            self._syncing = False  # only called when not syncing (see load)
        extras, local = self._extras()
        body = self.body()
        problems = validate_request(self.path, body)
        for f in self.fields:
            if isinstance(f, ModeField):
                named = {p.field for p in problems}
                local += [p for p in f.missing(body) if p.field not in named]
        self._problems = local + problems
        self._show(extras)
        for callback in list(self._callbacks):
            callback(self)

    def _show(self, extras: dict[str, Any]) -> None:
        routed: dict[int, list[Problem]] = {id(f): [] for f in self.fields}
        model: list[Problem] = []
        extra: list[Problem] = []
        rest: list[Problem] = []
        for p in self._problems:
            owner = next((f for f in self.fields if f.visible and f.owns(p.field)), None)
            top = p.field.split(".")[0].split("[")[0]
            if p.field == "model":
                model.append(p)
            elif p.field == EXTRA_FIELD or top in extras:
                extra.append(p)
            elif owner is not None:
                routed[id(owner)].append(p)
            else:
                rest.append(p)
        for f in self.fields:
            f.show(routed[id(f)])
        self.model_message.value = problem_html(model)
        self.extra_message.value = problem_html(extra)
        self.summary.value = problem_html(rest)
