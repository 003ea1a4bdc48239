"""``ChatPanel``: a multi-turn chat with streamed, Markdown-rendered replies.

The form offers only what the chosen model can do on the chosen protocol (``_chat_options``)
and validates the request body as the user types (``validate_request``); Send is disabled
with the reason. A reply streams into ``ChatTranscript``, which coalesces its updates
to at most ``STREAM_UPDATES_PER_S`` (20) comm messages per second; the last one carries the
exact full text. Stop cancels the asyncio task (the partial text is kept; the
client records the turn as incomplete); a cut stream shows its error and a Retry button.

Decision: attachments belong to one message, so the URL boxes are emptied after Send; an
earlier turn's attachments are re-sent with the conversation only where the current model
and protocol accept that kind of media.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from mediagen_nb.types import Problem, RequestValidationError, errors_only, validate_request
from mediagen_nb.widgets._base import Panel, describe_error
from mediagen_nb.widgets._chat_options import (
    MAX_STOP,
    PROTOCOLS,
    ChatSettings,
    attachment_kinds,
    attachment_problems,
    build_request,
    capability_hint,
    field_of,
    model_options,
    protocols_for,
    sampling_for,
    settings_from_body,
    split_lines,
    user_content,
)
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._transcript import ChatTranscript, ChatTurn

DEFAULT_MODEL = "claude-sonnet-4-6"
_FIELDS = ("model", "system", "temperature", "top_p", "max_tokens", "stop", "attachments")
_EMPTY_DRAFT = "type a message"


def _wide() -> widgets.Layout:
    # one Layout per widget: a shared Layout would hide them all together
    return widgets.Layout(width="98%")


def _show(widget: widgets.Widget, visible: bool) -> None:
    widget.layout.display = "" if visible else "none"


def _usage(stream: Any) -> dict[str, int] | None:
    usage = getattr(stream, "usage", None)
    if usage is None:
        return None
    data = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)
    return {k: v for k, v in data.items() if isinstance(v, int)}


class ChatPanel(Panel):
    """Chat with any text model of the catalog over chat-completions or messages.

    Programmatic use: ``panel.send(text)`` returns the streaming ``asyncio.Task``;
    ``panel.stop()`` cancels it; ``panel.retry()`` resends after an error;
    ``panel.transcript`` is the list of ``ChatTurn``.
    """

    title = "Chat"

    def __init__(self, *, session: Session | None = None, model: str = DEFAULT_MODEL) -> None:
        super().__init__(session=session)
        self.add_class("mediagen-chat-panel")
        self.model = widgets.Dropdown(options=model_options(), value=model, description="Model")
        self.hint = widgets.HTML()
        self.protocol = widgets.ToggleButtons(options=PROTOCOLS, description="Protocol")
        self.system = widgets.Textarea(placeholder="system prompt (optional)", layout=_wide())
        self.sampling = widgets.ToggleButtons(description="Sampling")
        self.temperature = widgets.FloatSlider(value=1.0, min=0.0, max=2.0, step=0.05)
        self.top_p = widgets.FloatSlider(value=1.0, min=0.0, max=1.0, step=0.01)
        self.max_tokens = widgets.BoundedIntText(
            value=0, min=0, max=1_000_000, description="Max tokens"
        )
        self.stop_sequences = widgets.Textarea(
            placeholder=f"stop sequences, one per line (at most {MAX_STOP})", layout=_wide()
        )
        self.image_urls = widgets.Textarea(placeholder="image URLs, one per line", layout=_wide())
        self.video_urls = widgets.Textarea(placeholder="video URLs, one per line", layout=_wide())
        self.input = widgets.Textarea(placeholder="Message", layout=_wide(), rows=3)
        self.send_button = widgets.Button(description="Send", button_style="primary")
        self.stop_button = widgets.Button(description="Stop", icon="stop", disabled=True)
        self.retry_button = widgets.Button(description="Retry", icon="redo")
        self.clear_button = widgets.Button(description="New conversation")
        self.status = widgets.HTML()
        self.field_problems = {name: widgets.HTML() for name in (*_FIELDS, "message")}
        self.transcript_view = ChatTranscript()
        for name, box in self.field_problems.items():
            box.add_class(f"mediagen-problem-{name}")
        self.input.add_class("mediagen-chat-input")
        self.send_button.add_class("mediagen-send")
        self.stop_button.add_class("mediagen-stop")
        self.retry_button.add_class("mediagen-retry")

        self._task: asyncio.Task[None] | None = None
        self._last_body: tuple[ChatSettings, dict[str, Any]] | None = None

        settings = widgets.VBox(
            [
                self.system,
                self.field_problems["system"],
                widgets.HBox([self.sampling]),
                self.temperature,
                self.field_problems["temperature"],
                self.top_p,
                self.field_problems["top_p"],
                self.max_tokens,
                self.field_problems["max_tokens"],
                self.stop_sequences,
                self.field_problems["stop"],
            ]
        )
        self.settings_box = widgets.Accordion(children=[settings], titles=("Settings",))
        self.attachments_box = widgets.VBox(
            [self.image_urls, self.video_urls, self.field_problems["attachments"]]
        )
        self.children = [
            self.model,
            self.field_problems["model"],
            self.protocol,
            self.hint,
            self.settings_box,
            self.transcript_view,
            self.attachments_box,
            self.input,
            self.field_problems["message"],
            widgets.HBox(
                [self.send_button, self.stop_button, self.retry_button, self.clear_button]
            ),
            self.status,
            self.error_area,
        ]
        self.send_button.on_click(self.guard(lambda _b: self.send()))
        self.stop_button.on_click(self.guard(lambda _b: self.stop()))
        self.retry_button.on_click(self.guard(lambda _b: self.retry()))
        self.clear_button.on_click(self.guard(lambda _b: self.clear()))
        controls = (self.model, self.protocol, self.sampling, self.system, self.temperature)
        for control in (*controls, self.top_p, self.max_tokens, self.stop_sequences):
            control.observe(self.guard(self._refresh), names="value")
        for control in (self.image_urls, self.video_urls, self.input):
            control.observe(self.guard(self._revalidate), names="value")
        self._refresh()

    # --- form -----------------------------------------------------------------------------

    def settings(self) -> ChatSettings:
        """The form's current choices."""
        return ChatSettings(
            model=self.model.value,
            protocol=self.protocol.value,
            system=self.system.value,
            sampling=self.sampling.value or "default",
            temperature=self.temperature.value,
            top_p=self.top_p.value,
            max_tokens=self.max_tokens.value,
            stop=split_lines(self.stop_sequences.value),
            image_urls=split_lines(self.image_urls.value),
            video_urls=split_lines(self.video_urls.value),
        )

    def _refresh(self, _change: object = None) -> None:
        """Offer only valid combinations for the model and protocol, then revalidate."""
        model = self.model.value
        allowed = protocols_for(model)
        if self.protocol.value not in allowed:
            self.protocol.value = allowed[0]
        self.protocol.disabled = len(allowed) == 1
        self.protocol.tooltip = (
            "" if len(allowed) > 1 else "the messages protocol accepts Claude and GPT models only"
        )
        protocol = self.protocol.value
        self.hint.value = f"<small class='mediagen-hint'>{capability_hint(model, protocol)}</small>"
        sampling = sampling_for(protocol)
        if tuple(self.sampling.options) != sampling:
            keep = self.sampling.value if self.sampling.value in sampling else "default"
            self.sampling.options = sampling
            self.sampling.value = keep
        self.temperature.max = 2.0 if protocol == "chat-completions" else 1.0
        _show(self.temperature, self.sampling.value == "temperature")
        _show(self.top_p, self.sampling.value == "top_p")
        _show(self.stop_sequences, protocol == "chat-completions")
        self.max_tokens.description = (
            "Max tokens" if protocol == "messages" else "Max tokens (0: unset)"
        )
        kinds = attachment_kinds(model, protocol)
        _show(self.image_urls, "image" in kinds)
        _show(self.video_urls, "video" in kinds)
        _show(self.attachments_box, bool(kinds))
        self._revalidate()

    def problems(self) -> list[Problem]:
        """Problems of the request that Send would make now (a draft is needed to send)."""
        settings = self.settings()
        draft = self.input.value.strip()
        body = build_request(settings, self._history(settings), user_content(settings, draft))
        found = validate_request(settings.path, body) + attachment_problems(settings)
        if not draft:
            found.append(Problem("message", _EMPTY_DRAFT))
        return found

    def _revalidate(self, _change: object = None) -> None:
        by_field: dict[str, list[Problem]] = {name: [] for name in self.field_problems}
        problems = self.problems()
        for problem in problems:
            by_field.setdefault(field_of(problem.field), []).append(problem)
        for name, box in self.field_problems.items():
            shown = [
                f"<span class='mediagen-{p.severity}'>{_escape(str(p))}</span>"
                for p in by_field.get(name, [])
                if p.rule != _EMPTY_DRAFT
            ]
            box.value = "<br>".join(shown)
        errors = errors_only(problems)
        busy = self.busy
        self.send_button.disabled = bool(errors) or busy
        reason = "a reply is streaming" if busy else "; ".join(str(p) for p in errors)
        self.send_button.tooltip = reason
        self.status.value = f"<small class='mediagen-status'>{_escape(reason)}</small>"

    def load(self, body: dict[str, Any]) -> None:
        """Fill the form from a recorded request (HistoryPanel "open in form")."""
        settings, text = settings_from_body(body)
        if settings.model not in dict(model_options()).values():
            raise ValueError(f"model {settings.model!r} is not in the catalog")
        self.model.value = settings.model
        self.protocol.value = settings.protocol
        self.sampling.value = settings.sampling
        self.temperature.value = settings.temperature
        self.top_p.value = settings.top_p
        self.system.value = settings.system
        self.max_tokens.value = settings.max_tokens
        self.stop_sequences.value = "\n".join(settings.stop)
        self.image_urls.value = "\n".join(settings.image_urls)
        self.video_urls.value = "\n".join(settings.video_urls)
        self.input.value = text

    # --- conversation ---------------------------------------------------------------------

    @property
    def transcript(self) -> list[ChatTurn]:
        """The conversation so far, oldest first (the streaming turn with its text so far)."""
        return self.transcript_view.items

    @property
    def busy(self) -> bool:
        """True while a reply streams."""
        return self._task is not None and not self._task.done()

    def _history(self, settings: ChatSettings) -> list[tuple[str, Any]]:
        history: list[tuple[str, Any]] = []
        for turn in self.transcript_view.items:
            if turn.role == "user":
                media = replace(settings, image_urls=turn.images, video_urls=turn.videos)
                history.append(("user", user_content(media, turn.text)))
            elif turn.text:
                history.append(("assistant", turn.text))
        return history

    def send(self, text: str | None = None) -> asyncio.Task[None]:
        """Send ``text`` (or the input box) with the form's settings; returns the stream task.

        Raises ``RequestValidationError`` (nothing is sent) when the request breaks a rule.
        """
        if self.busy:
            raise RuntimeError("a reply is still streaming: stop it or wait")
        if text is not None:
            self.input.value = text
        errors = errors_only(self.problems())
        if errors:
            raise RequestValidationError(errors, self.settings().path)
        settings = self.settings()
        draft = self.input.value.strip()
        body = build_request(settings, self._history(settings), user_content(settings, draft))
        kinds = attachment_kinds(settings.model, settings.protocol)
        self.transcript_view.add(
            ChatTurn(
                role="user",
                text=draft,
                images=settings.image_urls if "image" in kinds else (),
                videos=settings.video_urls if "video" in kinds else (),
            )
        )
        with self.hold_sync():
            self.input.value = ""
            self.image_urls.value = ""
            self.video_urls.value = ""
        return self._start(settings, body)

    def retry(self) -> asyncio.Task[None]:
        """Resend the last request after a failed or cut reply (the failed turn is dropped)."""
        if self.busy or self._last_body is None:
            raise RuntimeError("nothing to retry")
        last = self.transcript_view.items[-1] if self.transcript_view.items else None
        if last is not None and last.role == "assistant":
            self.transcript_view.truncate(len(self.transcript_view.items) - 1)
        settings, body = self._last_body
        return self._start(settings, body)

    def stop(self) -> None:
        """Cancel the streaming reply; its partial text stays in the transcript."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def clear(self) -> None:
        """Start a new conversation (stops a streaming reply first)."""
        self.stop()
        self.transcript_view.truncate(0)
        self._last_body = None
        self._update_buttons()

    def _start(self, settings: ChatSettings, body: dict[str, Any]) -> asyncio.Task[None]:
        self._last_body = (settings, body)
        index = self.transcript_view.add(
            ChatTurn(
                role="assistant",
                state="streaming",
                model=settings.model,
                protocol=settings.protocol,
            )
        )
        self._task = self.spawn(self._run(settings, body, index), name="chat")
        self._task.add_done_callback(lambda _t: self._update_buttons())
        self._update_buttons()
        return self._task

    async def _run(self, settings: ChatSettings, body: dict[str, Any], index: int) -> None:
        from mediagen_nb.client import StreamInterruptedError

        view = self.transcript_view
        stream: Any = None
        try:
            client = self.session.client
            if settings.protocol == "chat-completions":
                stream = await client.chat.completions.create(
                    **body, stream=True, stream_options={"include_usage": True}
                )
            else:
                stream = await client.messages.create(**body, stream=True)
            async for _item in stream:
                view.stream(stream.text)
            view.finish(
                index, text=stream.text, state="complete", usage=_usage(stream),
                turn_id=stream.turn_id,
            )  # fmt: skip
        except asyncio.CancelledError:
            if stream is not None:
                await stream.aclose()
            view.finish(
                index,
                text=stream.text if stream is not None else "",
                state="stopped",
                turn_id=stream.turn_id if stream is not None else None,
            )
            await view.drain()
            raise
        except StreamInterruptedError as exc:
            view.finish(
                index,
                text=exc.partial_text,
                state="error",
                error=exc.reason,
                turn_id=stream.turn_id if stream is not None else None,
            )
        except Exception as exc:
            text = stream.text if stream is not None else ""
            view.finish(
                index,
                text=text,
                state="error",
                error=describe_error(exc),
                turn_id=stream.turn_id if stream is not None else None,
            )
            await view.drain()
            raise
        await view.drain()

    def _update_buttons(self) -> None:
        last = self.transcript_view.items[-1] if self.transcript_view.items else None
        self.stop_button.disabled = not self.busy
        _show(self.retry_button, not self.busy and last is not None and last.state == "error")
        self._revalidate()

    def text_summary(self) -> str:
        """Model, protocol and the conversation as plain text."""
        head = super().text_summary()
        return f"{head}\nmodel {self.model.value} via {self.protocol.value}\n" + (
            self.transcript_view.plain_text()
        )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
