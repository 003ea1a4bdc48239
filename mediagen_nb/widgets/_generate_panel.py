"""``ImagePanel`` and ``VideoPanel``: one anywidget each, a form drawn from data and a gallery.

The form is the catalog's ``form_spec``; Python owns the values and checks them on every
change, and each Generate runs as an asyncio task, so the button returns at once."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import traitlets as t

from mediagen_nb.catalog import Family, Kind, families, family, family_for_model
from mediagen_nb.catalog._controls import form_spec
from mediagen_nb.widgets._base import Throttle, WidgetPanel
from mediagen_nb.widgets._class_models import allowed, class_default, form_families
from mediagen_nb.widgets._codegen import code_for
from mediagen_nb.widgets._compare import CompareMixin
from mediagen_nb.widgets._form_state import (
    FormProblem,
    carry,
    check,
    defaults,
    from_body,
    hint,
    normalize,
    offered,
    to_body,
)
from mediagen_nb.widgets._frame_drawer import FrameDrawer
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._gallery import GalleryMixin, Result
from mediagen_nb.widgets._session import Session

if TYPE_CHECKING:
    from mediagen_nb.client import SavedRequest

SubmitCallback = Callable[["GeneratePanel", dict[str, Any]], None]
_FORMS: weakref.WeakKeyDictionary[Session, dict[str, dict[str, Any]]] = weakref.WeakKeyDictionary()
"""Per session: each family's form as last left or sent (a new panel finds them too)."""
_LAST: weakref.WeakKeyDictionary[Session, dict[str, dict[str, Any]]] = weakref.WeakKeyDictionary()
"""Per session: the last request sent from each family."""


class GeneratePanel(CompareMixin, GalleryMixin, WidgetPanel):
    """Shared body of the image and video panels; use ``ImagePanel`` or ``VideoPanel``.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        model: The model selected at first ("": the catalog's first).
        show_banner: Show the line saying demo mode or the connected service.
    """

    _esm = esm("compare.js", "generate.js")
    _css = css("generate.css")

    kind: Kind = "image"
    panel_name = t.Unicode("images").tag(sync=True)
    spec = t.Dict().tag(sync=True)
    """The form as data: families, models with titles, controls (see ``catalog.form_spec``)."""
    values = t.Dict().tag(sync=True)
    """The form's values: ``family``, ``model``, one entry per control, ``extra``."""
    offered = t.Dict().tag(sync=True)
    """For option controls: the option values valid with the rest of the form."""
    problems: t.List[Any] = t.List().tag(sync=True)
    """Every problem of the current request: ``{"key", "message", "error"}``."""
    touched = t.List(t.Unicode()).tag(sync=True)
    """Controls the user changed: only their errors are shown (quiet until touched)."""
    attempted = t.Bool(False).tag(sync=True)
    """Generate was pressed on an invalid form: every error is shown."""
    hint = t.Unicode("").tag(sync=True)
    """Why Generate is disabled, in neutral words ("Add a prompt to generate")."""
    can_generate = t.Bool(False).tag(sync=True)
    code = t.Unicode("").tag(sync=True)
    """The client call equivalent to the form (copy as code)."""
    results: t.List[Any] = t.List().tag(sync=True)
    """The gallery, newest first (``Result.to_json()``), throttled."""
    media = t.Dict().tag(sync=True)
    """Preview bytes by result id: ``{"data": bytes, "mime": str}``."""
    assets: t.List[Any] = t.List().tag(sync=True)
    """Active assets reference fields may offer: ``{"uri", "label", "type"}``."""
    sending = t.Int(0).tag(sync=True)
    """Requests being sent (before their task exists); sent with the gallery's batches."""
    save_note = t.Unicode("").tag(sync=True)
    """Where the last Save went, in the user's terms (shown as a polite status line)."""
    save_path = t.Unicode("").tag(sync=True)
    """The full path of the last saved result's original (the status line's tooltip)."""
    can_use = t.Bool(False).tag(sync=True)
    """Cards offer Animate / Use as ... / Continue (set by the Studio, which carries them out)."""
    suggestions = t.Dict().tag(sync=True)
    """Model names typed for families whose names the catalog does not list, by family."""

    def __init__(
        self, *, session: Session | None = None, model: str = "", show_banner: bool = True
    ) -> None:
        name = "images" if self.kind == "image" else "videos"
        super().__init__(session=session, panel_name=name, show_mode=show_banner)
        self.title = "Image panel" if self.kind == "image" else "Video panel"
        self.spec = form_spec(self.kind)
        self._results: list[Result] = []
        self._handles: dict[str, Any] = {}
        """Client task handle of each result still followed, by result id."""
        self._memory = _FORMS.setdefault(self.session, {})
        self.last_requests = _LAST.setdefault(self.session, {})
        """The last request sent from each family (by family id), for the session."""
        self._submit_callbacks: list[SubmitCallback] = []
        self.use_handler: Callable[..., Any] | None = None
        """Set by the Studio: carries out a card action (``use``)."""
        self._problems: list[FormProblem] = []
        self._syncing = False
        self._media_dirty = False
        self._sending = 0
        self._throttle = Throttle(self, self._push)
        self.frames = FrameDrawer(self)
        first = families(self.kind)[0]
        self._set_values(self._memory.get(first.id) or defaults(first.id))
        if model:
            self.select(model)
        self.observe(self._values_observed, names="values")
        self._setup_compare()
        self.session.on_assets_change(self._on_session_assets)
        self._on_session_assets(self.session)
        self._class_models: frozenset[str] | None = None
        self.session.on_classroom(self.guard(self._on_classroom))
        if self.session.classroom is not None:  # built after the class's answer came
            self._on_classroom(self.session)
        for action, handler in {
            "generate": lambda _m: self.generate(),
            "family": lambda m: self.select_family(str(m.get("family", ""))),
            "rerun": lambda m: self.rerun(str(m.get("id", ""))),
            "remove": lambda m: self.remove(str(m.get("id", ""))),
            "cancel": lambda m: self.cancel(str(m.get("id", ""))),
            "full": lambda m: self.send_full(str(m.get("id", "")), str(m.get("purpose", "view"))),
            "saved": lambda m: self.saved(str(m.get("id", ""))),
            "open_file": lambda m: self.load_saved(bytes((m.get("buffers") or [b""])[0])),
            "use": lambda m: self.use(
                str(m.get("id", "")), str(m.get("use", "")), m.get("family") or None
            ),
        }.items():
            self.on_action(action, handler)

    # --- the form ---------------------------------------------------------------------------

    @property
    def family(self) -> Family:
        """The chosen family."""
        return family(str(self.values.get("family")))

    @property
    def model(self) -> str:
        """The chosen (or typed) model name."""
        return str(self.values.get("model") or "").strip()

    def body(self) -> dict[str, Any]:
        """The JSON body of the request the form describes now."""
        return to_body(self.family.id, self.values)[0]

    @property
    def form_problems(self) -> list[FormProblem]:
        """Errors and warnings of the current request, in the user's words."""
        return list(self._problems)

    @property
    def valid(self) -> bool:
        """True when no problem is an error."""
        return not any(p.error for p in self._problems)

    @property
    def visible_errors(self) -> list[str]:
        """The error messages the front end shows now (touched fields, or all after a try)."""
        return [
            p.message
            for p in self._problems
            if p.error and (self.attempted or p.key in self.touched)
        ]

    def set(self, **changes: Any) -> None:
        """Change form values as the user would (the changed fields count as touched)."""
        if "family" in changes:
            self.select_family(str(changes.pop("family")))
        self.touched = sorted({*self.touched, *changes})
        self.values = {**self.values, **changes}

    def select_family(self, family_id: str) -> None:
        """Switch family; the prompt, ratio and references carry over where they mean the same."""
        target = family(family_id)
        if target.kind != self.kind:
            raise ValueError(f"{target.title} makes {target.kind}s, not {self.kind}s")
        current = dict(self.values)
        if target.id == current.get("family"):
            return
        self._memory[str(current.get("family"))] = current
        self._set_values(carry(current, target.id, self._memory.get(target.id)))

    def select(self, model: str, family_id: str | None = None) -> None:
        """Choose a model (a known name, or ``family_id`` plus a free name)."""
        fam = family_for_model(model) if family_id is None else family(family_id)
        if fam is None or fam.kind != self.kind:
            raise ValueError(f"{model!r} is not a {self.kind} model of the catalog")
        if fam.models and model not in fam.models:
            raise ValueError(f"{fam.title} has no model {model!r}; known: {', '.join(fam.models)}")
        self.select_family(fam.id)
        self._set_values({**self.values, "model": model})

    def load(self, body: dict[str, Any], family_id: str | None = None) -> None:
        """Fill the form from a past request (History "open", or a card's Run again)."""
        model = str(body.get("model", ""))
        fam = family_for_model(model) if family_id is None else family(family_id)
        if fam is None or fam.kind != self.kind:
            raise ValueError(f"{model!r} is not a {self.kind} model of the catalog")
        if self.values.get("family") != fam.id:
            self._memory[str(self.values.get("family"))] = dict(self.values)
        self.attempted = False
        self.touched = []
        self._set_values(from_body(fam.id, body))

    def use(self, result_id: str, action: str, family_id: str | None = None) -> Any:
        """A card action (Animate, Use as reference, Continue from last frame, ...): the
        Studio puts the result into the right form (``_card_use``); a lone panel cannot."""
        if self.use_handler is None:
            raise RuntimeError("card actions open other panels: use them in the Studio")
        return self.use_handler(self, result_id, action, family_id)

    def load_saved(self, source: str | Path | bytes) -> SavedRequest:
        """Fill the form from a file Save wrote (its request is inside, or in a sidecar).

        Args:
            source: The file's path or bytes (a file dropped on the panel arrives as bytes).

        Returns:
            The request read back; the notice says which parameters the catalog no longer
            knows (they are left out of the form).

        Raises:
            ValueError: The file carries no request, or one for the other panel.
        """
        from mediagen_nb.client import read_request

        saved = read_request(source)
        if saved.family is None or saved.kind != self.kind:
            where = f"a {saved.kind} request" if saved.kind else "a request no family takes"
            raise ValueError(f"this file holds {where}; open it in the {saved.kind} panel")
        self.load(saved.body, saved.family)
        made = f" of task {saved.task_id}" if saved.task_id else ""
        self.show_info("; ".join([f"Filled from the saved request{made}", *saved.notes]))
        return saved

    def _values_observed(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        new = dict(change["new"])
        old = change["old"] or {}
        if new.get("family") != old.get("family") and new.get("family"):
            try:  # the front end switched family by value: carry from the old values
                target = family(str(new["family"]))
            except KeyError as exc:
                self.show_error(exc)
                return
            self._memory[str(old.get("family"))] = dict(old)
            new = carry(old, target.id, self._memory.get(target.id))
        self._set_values(new)

    def _set_values(self, values: dict[str, Any]) -> None:
        """Normalize, validate and publish (one comm message for all of it)."""
        fam_id = str(values.get("family"))
        base = defaults(fam_id)
        values = normalize(fam_id, {**base, **{k: v for k, v in values.items() if k in base}})
        self._problems = check(fam_id, values)
        with self.hold_sync():
            self._syncing = True
            try:
                self.values = values
            finally:
                self._syncing = False
            self.offered = offered(fam_id, values)
            self.problems = [p.to_json() for p in self._problems]
            if not self.compare:  # with Compare on, the union form's check says these
                self.hint = hint(self._problems)
                self.can_generate = self.valid
            self.code = code_for(self.kind, to_body(fam_id, values)[0], fam_id)

    def _on_classroom(self, session: Session) -> None:
        """A classroom's models: offer only those, on the class's default when they change."""
        self.spec = form_families(form_spec(self.kind), session.classroom)
        models = allowed(session.classroom)
        self.compare_allowed(models)
        if models == self._class_models:
            return
        self._class_models = models
        self._throttle.request()  # the cards' actions offer only the class's families
        default = class_default(self.kind, session.classroom)
        if default is not None:
            self.select(default)

    def _on_session_assets(self, session: Session) -> None:
        self.assets = [
            {"uri": a.uri, "label": a.label, "type": a.asset_type} for a in session.active_assets
        ]

    # --- generate ---------------------------------------------------------------------------

    def on_submit(self, callback: SubmitCallback, remove: bool = False) -> None:
        """Call ``callback(panel, body)`` for each submission, before it is sent."""
        if remove:
            if callback in self._submit_callbacks:
                self._submit_callbacks.remove(callback)
        elif callback not in self._submit_callbacks:
            self._submit_callbacks.append(callback)

    def generate(self) -> asyncio.Task[Any] | None:
        """Submit the form (like the button); returns the background task, None if invalid.

        With Compare on, it is the row's sweep (``generate_compare``): one card per model.
        """
        if self.compare:
            row = self.generate_compare()
            return None if row is None else row.run
        if not self.valid:
            self.attempted = True  # now every error shows next to its field
            return None
        self.attempted = False
        fam, body = self.family, self.body()
        if not fam.models and self.model:
            known = list(self.suggestions.get(fam.id, []))
            if self.model not in known:
                self.suggestions = {**self.suggestions, fam.id: [self.model, *known][:10]}
        return self.submit(body, fam.id)

    def submit(self, body: dict[str, Any], family_id: str) -> asyncio.Task[Result | None]:
        """Send ``body`` to ``family_id``'s endpoint in the background (Run again, Generate)."""
        self.last_requests[family_id] = dict(body)
        if self.values.get("family") == family_id:
            self._memory[family_id] = dict(self.values)
        for callback in list(self._submit_callbacks):
            callback(self, dict(body))
        return self.spawn(self.run(body, family_id), name=f"{family(family_id).title} request")

    def rerun(self, result_id: str) -> asyncio.Task[Result | None]:
        """Send a card's request again (a new card)."""
        result = self._find(result_id)
        return self.submit(dict(result.body), result.family)

    async def run(self, body: dict[str, Any], family_id: str) -> Result | None:
        """Create the task, follow it on a new card until it ends; return the card."""
        fam = family(family_id)
        params = dict(body)
        model = str(params.pop("model", ""))
        client = self.session.client
        resource = client.images if self.kind == "image" else client.videos
        self._sending += 1
        self._throttle.request()
        try:
            task = await resource.create(model, family=fam.id, **params)
        finally:
            self._sending -= 1
            self._throttle.request()
            self.session.used()  # a classroom's "left" line follows each task
        duration = body.get("duration", body.get("seconds"))
        seconds = float(duration) if isinstance(duration, int | float) and duration > 0 else None
        result = Result(
            kind=self.kind,
            family=fam.id,
            family_title=fam.title,
            body=dict(body),
            eta=(
                fam.eta(model, seconds)[0] / task.speed,  # the emulator's clock
                fam.eta(model, seconds)[1] / task.speed,
            ),
        )
        result.follow(task)
        self._add(result, task)
        await self._follow(task, result)
        return result

    # --- life -------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop background tasks and let go of the session's callbacks."""
        self.session.on_assets_change(self._on_session_assets, remove=True)
        self.frames.close()
        super().close()

    def text_summary(self) -> str:
        lines = [super().text_summary(), f"model: {self.model or '(none)'}"]
        if self.hint:
            lines.append(f"Generate disabled: {self.hint}")
        for r in self._results[:10]:
            extra = f" · error: {r.error}" if r.error else ""
            lines.append(f"{r.title} · {r.task_id or '(no id yet)'} · {r.status}{extra}")
        return "\n".join(lines)


class ImagePanel(GeneratePanel):
    """Image generation: a form per image family of the catalog, and a gallery of results.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        model: The model selected at first ("": the catalog's first).
        show_banner: Show the line saying demo mode or the connected service.
    """

    kind: Kind = "image"


class VideoPanel(GeneratePanel):
    """Video generation: a form per video family of the catalog, and a gallery of results.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        model: The model selected at first ("": the catalog's first).
        show_banner: Show the line saying demo mode or the connected service.
    """

    kind: Kind = "video"
