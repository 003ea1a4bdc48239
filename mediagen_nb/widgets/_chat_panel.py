"""``ChatPanel``: one anywidget for a multi-turn chat with streamed, Markdown-rendered replies.

Python owns the state (the ``values`` form, the transcript); the front end's buttons send
``{"action": ...}`` messages that call the methods tests call (design: docs/reference/design.md).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import traitlets

from mediagen_nb.types import Problem, RequestValidationError, validate_request
from mediagen_nb.types._problem import errors_only
from mediagen_nb.widgets._base import WidgetPanel
from mediagen_nb.widgets._chat_code import chat_code
from mediagen_nb.widgets._chat_compare import ChatCompareMixin
from mediagen_nb.widgets._chat_form import DEFAULT_MODEL, coerce, defaults, form_spec, settings_of
from mediagen_nb.widgets._chat_options import (
    FIELDS,
    Attachment,
    AttachmentKind,
    ChatSettings,
    attachment_kinds,
    field_of,
    human,
    model_groups,
)
from mediagen_nb.widgets._chat_request import (
    build_request,
    conversation,
    file_problem,
    form_problems,
    user_content,
    values_from_body,
)
from mediagen_nb.widgets._chat_runner import ChatRunner
from mediagen_nb.widgets._class_models import allowed, chat_groups, class_default
from mediagen_nb.widgets._frontend import css, esm
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

_KEYS = itertools.count(1)


class ChatPanel(ChatCompareMixin, ChatRunner, WidgetPanel):
    """Chat with any text model of the catalog over chat-completions or messages.

    Programmatic use: ``panel.set(message="hi")`` then ``panel.send()`` (or
    ``panel.send("hi")``) returns the streaming ``asyncio.Task``; ``panel.stop()`` cancels
    it; ``panel.retry()`` resends the last request; ``panel.transcript`` is the list of
    ``ChatTurn``.

    Args:
        session: The panels' shared client and connection; None: the kernel's default.
        model: The text model selected at first.
        show_mode: Show the line saying demo mode or the connected service.
    """

    _esm = esm("compare.js", "chat_markdown.js", "chat_transcript.js", "chat.js")
    _css = css("chat.css")
    title = "Chat"

    values = traitlets.Dict().tag(sync=True)
    """The form: model, protocol, system, sampling, temperature, top_p, max_tokens, stop
    (one per line), tools (JSON), tool_choice, thinking_budget, message (the draft)."""
    touched = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Fields the user changed (their problems show; the others stay quiet)."""
    spec = traitlets.Dict().tag(sync=True)
    """What the form offers now: model groups, protocols, sampling, attachment kinds, labels."""
    problems = traitlets.Dict().tag(sync=True)
    """``{field: message}`` for touched fields, in the user's words."""
    hint = traitlets.Unicode("").tag(sync=True)
    """Neutral line by the Send button: what is missing, or why it is disabled."""
    can_send = traitlets.Bool(False).tag(sync=True)
    """Send is enabled."""
    can_stop = traitlets.Bool(False).tag(sync=True)
    """A reply is streaming (Stop is enabled)."""
    can_retry = traitlets.Bool(False).tag(sync=True)
    """There is a last request to send again (Retry is enabled)."""
    attachments = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Attachments of the next message (files without their bytes)."""
    code = traitlets.Unicode("").tag(sync=True)
    """Copy-as-code snippet of the request Send would make."""
    turns = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Every turn as JSON (``ChatTurn.to_json``); the live turn's text is in ``live_text``."""
    live_index = traitlets.Int(-1).tag(sync=True)
    """Index of the turn being streamed, or -1."""
    live_text = traitlets.Unicode("").tag(sync=True)
    """Whole text of the live turn so far."""
    live_thinking = traitlets.Unicode("").tag(sync=True)
    """Whole thinking of the live turn so far."""
    live_seq = traitlets.Int(0).tag(sync=True)
    """Sequence number of the live text; the front end ignores older values."""

    def __init__(
        self, *, session: Session | None = None, model: str = DEFAULT_MODEL, show_mode: bool = True
    ) -> None:
        super().__init__(
            session=session, values={**defaults(), "model": model}, show_mode=show_mode
        )
        self.transcript_view = ChatTranscript(self, on_sync=self._sync_controls)
        self._task: asyncio.Task[None] | None = None
        self._last: tuple[ChatSettings, dict[str, Any]] | None = None
        self._pending: list[Attachment] = []
        self.observe(self._on_values, names=["values", "touched"])
        actions = {
            "send": self._send_action,
            "stop": lambda _m: self.stop(),
            "retry": lambda _m: self.retry(),
            "clear": lambda _m: self.clear(),
            "attach-file": lambda m: self.attach_file(
                str(m.get("name", "")), str(m.get("type", "")), str(m.get("data", ""))
            ),
            "attach-url": lambda m: self.attach_url(
                str(m.get("url", "")), "video" if m.get("kind") == "video" else "image"
            ),
            "remove-attachment": lambda m: self.remove_attachment(str(m.get("key", ""))),
            "tool-results": lambda m: self.submit_tool_results(
                m["results"] if isinstance(m.get("results"), dict) else {}
            ),
        }
        for name, handler in actions.items():
            self.on_action(name, self._plain(handler))
        self._setup_chat_compare()
        self._class_models: frozenset[str] | None = None
        self.session.on_classroom(self.guard(self._on_classroom))
        if self.session.classroom is not None:  # built after the class's answer came
            self._on_classroom(self.session)
        self._refresh()

    def _on_classroom(self, session: Session) -> None:
        """A classroom's models: offer only those, on the class's default when they change."""
        models = allowed(session.classroom)
        self.compare_allowed(models)
        if models != self._class_models:
            self._class_models = models
            default = class_default("chat", session.classroom)
            if default is not None:
                self.values = {**self.values, "model": default}
        self._refresh()

    # --- form -----------------------------------------------------------------------------

    def set(self, **changes: Any) -> None:
        """Change form fields as a user would (they count as touched)."""
        known = defaults()
        unknown = sorted(set(changes) - set(known))
        if unknown:
            raise TypeError(f"unknown chat field(s) {unknown}; fields: {sorted(known)}")
        with self.hold_sync():
            self.touched = sorted({*self.touched, *changes})
            self.values = {**self.values, **changes}

    def settings(self) -> ChatSettings:
        """The form's current choices."""
        return settings_of(self.values, self._pending)

    def _on_values(self, _change: object = None) -> None:
        try:
            self._refresh()
        except Exception as exc:
            self.show_error(exc)

    def _refresh(self) -> None:
        """Offer only valid combinations for the model and protocol, then revalidate."""
        coerced = coerce(self.values)
        with self.hold_sync():
            if coerced != self.values:
                self.values = coerced
            spec = form_spec(self.settings())
            self.spec = {**spec, "models": chat_groups(spec["models"], self.session.classroom)}
            self._revalidate()

    def all_problems(self) -> list[Problem]:
        """Problems of the request Send would make now (a draft is needed to send)."""
        settings = self.settings()
        draft = str(self.values.get("message", "")).strip()
        found = validate_request(settings.path, self._body(settings, draft or "…"))
        found = [replace(p, field=field_of(p.field)) for p in found] + form_problems(settings)
        if not draft:
            found.append(Problem("message", "type a message"))
        return found

    def _body(self, settings: ChatSettings, draft: str) -> dict[str, Any]:
        messages = conversation(settings, self.transcript_view.items)
        content = user_content(settings, draft, settings.attachments)
        return build_request(settings, [*messages, {"role": "user", "content": content}])

    def _revalidate(self) -> None:
        problems = errors_only(self.all_problems())
        shown: dict[str, str] = {}
        for problem in problems:
            if problem.field in self.touched and problem.field != "message":
                shown.setdefault(problem.field, human(problem.field, problem.rule))
        last = self.transcript_view.items[-1] if self.transcript_view.items else None
        waiting = last is not None and last.waiting_for_tools
        settings = self.settings()
        draft = str(self.values.get("message", "")).strip()
        with self.hold_sync():
            self.problems = shown
            busy = self.busy or self.comparing
            self.can_send = not problems and not busy and not waiting
            self.can_stop = busy
            self.can_retry = self._last is not None and not busy
            self.attachments = [a.to_json() for a in self._pending]
            if busy:
                self.hint = "A reply is streaming: Stop it or wait."
            elif waiting:
                self.hint = "Type the tool's result above to continue."
            elif not draft:
                self.hint = "Type a message to send (Ctrl+Enter sends)."
            elif problems:
                self.hint = "; ".join(human(p.field, p.rule) for p in problems[:2])
            else:
                self.hint = ""
            names = [a.label for a in settings.sent_attachments if a.is_file]
            self.code = chat_code(settings.path, self._body(settings, draft or "Hello!"), names)

    def load(self, body: dict[str, Any]) -> None:
        """Fill the form from a recorded request (HistoryPanel "open in form")."""
        values, attachments, text = values_from_body(body)
        if values["model"] not in {o["value"] for g in model_groups() for o in g["options"]}:
            raise ValueError(f"Model: {values['model']!r} is not in the catalog")
        self._pending = [replace(a, key=f"a{next(_KEYS)}") for a in attachments]
        self.values = {**defaults(), **values, "message": text}

    # --- attachments ----------------------------------------------------------------------

    def attach_url(self, url: str, kind: AttachmentKind = "image") -> None:
        """Attach an image (or video) by URL to the next message."""
        url = url.strip()
        settings = self.settings()
        if kind not in attachment_kinds(settings.model, settings.protocol):
            raise ValueError(f"Attachments: {kind}s cannot be sent to this model here")
        found = form_problems(replace(settings, attachments=(Attachment(kind, url),), tools=""))
        if found:
            raise ValueError(human("attachments", found[0].rule))
        self._pending.append(Attachment(kind, url, key=f"a{next(_KEYS)}"))
        self._revalidate()

    def attach_file(self, name: str, media_type: str, data: bytes | str) -> None:
        """Attach an image file (bytes, or base64 text) to the next message, as a data URL."""
        if isinstance(data, str):
            try:
                data = base64.b64decode(
                    data.partition(",")[2] if data.startswith("data:") else data
                )
            except (binascii.Error, ValueError):
                raise ValueError(f"Attachments: {name} could not be read") from None
        problem = file_problem(name, media_type, len(data))
        if problem is not None:
            raise ValueError(human("attachments", problem))
        url = f"data:{media_type};base64," + base64.b64encode(data).decode("ascii")
        key = f"a{next(_KEYS)}"
        self._pending.append(Attachment("image", url, name, media_type, len(data), key))
        self._revalidate()

    def remove_attachment(self, key: str) -> None:
        """Drop an attachment of the next message."""
        self._pending = [a for a in self._pending if a.key != key]
        self._revalidate()

    # --- conversation ---------------------------------------------------------------------

    @property
    def transcript(self) -> list[ChatTurn]:
        """The conversation so far, oldest first (the streaming turn with its text so far)."""
        return self.transcript_view.items

    def send(self, text: str | None = None) -> asyncio.Task[None]:
        """Send ``text`` (or the draft) with the form's settings; returns the stream task.

        Raises ``RequestValidationError`` (nothing is sent) when the request breaks a rule.
        """
        if self.busy:
            raise RuntimeError("a reply is still streaming: stop it or wait")
        with self.hold_sync():  # the whole send is one comm message
            return self._send_now(text)

    def _send_now(self, text: str | None) -> asyncio.Task[None]:
        if text is not None:
            self.values = {**self.values, "message": text}
        errors = errors_only(self.all_problems())
        last = self.transcript[-1] if self.transcript else None
        if last is not None and last.waiting_for_tools:
            errors.append(Problem("message", "answer the tool call first"))
        if errors:
            self.touched = sorted({*self.touched, *(p.field for p in errors)})
            raise RequestValidationError(
                [
                    replace(p, field=FIELDS[p.field].label if p.field in FIELDS else p.field)
                    for p in errors
                ],
                self.settings().path,
            )
        settings = self.settings()
        draft = str(self.values["message"]).strip()
        body = self._body(settings, draft)
        turn = ChatTurn(role="user", text=draft, attachments=settings.sent_attachments)
        self.transcript_view.add(turn)
        self._pending = [a for a in self._pending if a not in settings.sent_attachments]
        self.values = {**self.values, "message": ""}
        return self._start(settings, body)

    def submit_tool_results(self, results: dict[str, str]) -> asyncio.Task[None]:
        """Give the results of the last reply's tool calls; the model continues the turn."""
        if self.busy:
            raise RuntimeError("a reply is still streaming: stop it or wait")
        items = self.transcript
        if not items or not items[-1].tool_calls:
            raise ValueError("Tool result: the last reply called no tool")
        last = items[-1]
        missing = [
            c.name
            for c in last.tool_calls
            if c.result is None and not str(results.get(c.id, "")).strip()
        ]
        if missing:
            raise ValueError(f"Tool result: type a result for {', '.join(missing)}")
        calls = tuple(
            replace(c, result=str(results[c.id])) if c.result is None else c
            for c in last.tool_calls
        )
        with self.hold_sync():
            self.transcript_view.finish(len(items) - 1, tool_calls=calls)
            settings = replace(self.settings(), attachments=())
            body = build_request(settings, conversation(settings, self.transcript))
            return self._start(settings, body)

    def retry(self) -> asyncio.Task[None]:
        """Resend the last request (a failed or stopped reply is replaced)."""
        if self.busy or self._last is None:
            raise RuntimeError("Retry: there is no request to send again yet")
        items = self.transcript
        with self.hold_sync():
            if items and items[-1].role == "assistant":
                self.transcript_view.truncate(len(items) - 1)
            settings, body = self._last
            return self._start(settings, body)

    def clear(self) -> None:
        """Start a new conversation (stops a streaming reply first)."""
        self.stop()
        with self.hold_sync():
            self.transcript_view.truncate(0)
            self._last = None
            self._revalidate()

    def text_summary(self) -> str:
        """Model, protocol and the conversation as plain text."""
        head = f"{self.title} ({self.session.mode_text})"
        lines = [head, *(f"error: {line}" for line in self.errors[-3:])]
        v = self.values
        lines.append(f"model {v['model']} via {v['protocol']}")
        return "\n".join(lines) + "\n" + self.transcript_view.plain_text()

    def _plain(self, handler: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
        """A refused input (``ValueError``: it names the field) shows as its message alone."""

        def run(message: dict[str, Any]) -> None:
            try:
                handler(message)
            except RequestValidationError:
                raise
            except ValueError as exc:
                self.show_error(str(exc))

        return run

    def _send_action(self, message: dict[str, Any]) -> None:
        """Send from the front end (with the draft as typed there): a refused request marks
        its fields touched and shows their problems, not an error box."""
        draft = message.get("message")
        if self.compare:
            self.send_compare(draft if isinstance(draft, str) else str(self.values["message"]))
            return
        try:
            self.send(draft if isinstance(draft, str) else None)
        except RequestValidationError:
            self._revalidate()  # the problems now show next to their fields
