"""``ImagePanel`` and ``VideoPanel``: form, Generate, and one live ``TaskCard`` per task.

Generate returns at once: each submission runs as an asyncio task on the kernel's loop
(``Panel.spawn``), so several tasks run together and Cancel stays clickable. The client
records every step in the history ledger before it returns or calls ``on_update``, so a card
never shows a state the ledger does not have: a card appears only once the create response
(and its ledger row) exists, and its status follows the task handle after each poll.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from mediagen_nb.catalog import Family, Kind, family
from mediagen_nb.widgets._base import Panel
from mediagen_nb.widgets._codegen import CodeView
from mediagen_nb.widgets._form import GenerationForm
from mediagen_nb.widgets._preview import sniff_mime
from mediagen_nb.widgets._session import Session
from mediagen_nb.widgets._task_card import TaskCard

SubmitCallback = Callable[["GeneratePanel", dict[str, Any]], None]
_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "video/mp4": ".mp4"}


def _prompt_of(body: dict[str, Any]) -> str:
    prompt = body.get("prompt")
    if isinstance(prompt, str):
        return prompt
    for item in body.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text":
            return str(item.get("text", ""))
    return ""


class GeneratePanel(Panel):
    """Shared body of the image and video panels; use ``ImagePanel`` or ``VideoPanel``."""

    kind: Kind = "image"

    def __init__(
        self, *, session: Session | None = None, model: str = "", show_banner: bool = True
    ) -> None:
        super().__init__(session=session)
        self.add_class("mediagen-generate-panel")
        self.form = GenerationForm(self.kind, session=self.session, model=model)
        self.banner = widgets.HTML("")
        self.banner.add_class("mediagen-mode-banner")
        self.banner.layout.display = None if show_banner else "none"
        self.generate_button = widgets.Button(
            description="Generate", button_style="primary", icon="play"
        )
        self.generate_button.add_class("mediagen-generate")
        self.reason = widgets.HTML("")
        self.activity = widgets.Label("")
        self.code = CodeView()
        self.cards: list[TaskCard] = []
        self.cards_box = widgets.VBox([])
        self._submit_callbacks: list[SubmitCallback] = []
        self._sending = 0
        self.children = [
            self.banner,
            self.form,
            widgets.HBox([self.generate_button, self.reason, self.activity]),
            self.code,
            self.error_area,
            self.cards_box,
        ]
        self.generate_button.on_click(self.guard(lambda _b: self.generate()))
        self.form.on_change(self.guard(self._form_changed))
        self._on_session = self.guard(self._session_changed)
        self.session.on_change(self._on_session)
        self._session_changed(self.session)
        self._form_changed(self.form)

    # --- reacting -----------------------------------------------------------------------------

    def _session_changed(self, session: Session) -> None:
        self.banner.value = f'<b style="color:#555">{session.mode_text}</b>'

    def _form_changed(self, form: GenerationForm) -> None:
        self.generate_button.disabled = not form.valid
        self.generate_button.tooltip = form.reason or "send the request"
        self.reason.value = (
            f'<span style="color:#b3261e">{form.reason}</span>' if form.reason else ""
        )
        self.code.show(self.kind, form.body(), form.family.id)

    def _set_activity(self) -> None:
        self.activity.value = f"sending {self._sending} request(s)…" if self._sending else ""

    # --- public -------------------------------------------------------------------------------

    def on_submit(self, callback: SubmitCallback, remove: bool = False) -> None:
        """Call ``callback(panel, body)`` for each submission, before it is sent."""
        if remove:
            if callback in self._submit_callbacks:
                self._submit_callbacks.remove(callback)
        elif callback not in self._submit_callbacks:
            self._submit_callbacks.append(callback)

    def load(self, body: dict[str, Any], family: str | None = None) -> None:
        """Fill the form from a past request (HistoryPanel "open in form")."""
        self.form.load(body, family)

    def generate(self) -> asyncio.Task[TaskCard | None] | None:
        """Submit the form (like the button); returns the background task, None if invalid."""
        if not self.form.valid:
            self.show_error(f"not sent: {self.form.reason}")
            return None
        body = self.form.body()
        fam = self.form.family
        for callback in list(self._submit_callbacks):
            callback(self, dict(body))
        return self.spawn(self.run(body, fam.id), name=f"{fam.title} task")

    async def run(self, body: dict[str, Any], family_id: str) -> TaskCard | None:
        """Create the task, follow it on a new card until it ends; return the card."""
        from mediagen_nb.client import (
            TaskCancelledError,
            TaskFailedError,
            TaskTimeoutError,
        )

        fam = family(family_id)
        params = dict(body)
        model = str(params.pop("model", ""))
        resource = (
            self.session.client.images if self.kind == "image" else self.session.client.videos
        )
        self._sending += 1
        self._set_activity()
        try:
            task = await resource.create(model, family=fam.id, **params)
        finally:
            self._sending -= 1
            self._set_activity()
        card = self._new_card(fam, model, body, task)
        card.on_cancel(lambda c: self._cancel(task, c))
        try:
            await task.wait(on_update=card.update_from)
        except (TaskFailedError, TaskCancelledError):
            card.update_from(task)
        except TaskTimeoutError as exc:
            card.update_from(task)
            card.update(error=f"stopped waiting: {exc}")
        except Exception as exc:
            card.update(error=f"{type(exc).__name__}: {exc}")
            card.update_from(task)
            await card.drain()
            raise
        else:
            data = await task.read_bytes()
            suffix = _SUFFIX.get(sniff_mime(data), ".bin")
            await card.set_media_async(
                data, file_name=f"{task.id}{suffix}", local_path=task.local_path
            )
            card.update_from(task)
        await card.drain()
        return card

    def _new_card(self, fam: Family, model: str, body: dict[str, Any], task: Any) -> TaskCard:
        """A card already holding the task's recorded state, then shown (newest first)."""
        duration = body.get("duration", body.get("seconds"))
        seconds = float(duration) if isinstance(duration, int | float) and duration > 0 else None
        card = TaskCard(
            label=f"{fam.title} · {model}",
            kind=fam.kind,
            prompt=_prompt_of(body)[:300],
            eta=tuple(t / task.speed for t in fam.eta(model, seconds)),  # emulator clock
            task_id=task.id,
            status=task.status,
            error=task.error or "",
        )
        self.cards.insert(0, card)
        self.cards_box.children = tuple(self.cards)
        return card

    def _cancel(self, task: Any, card: TaskCard) -> None:
        if task.cancel():  # records "cancelled" in the ledger before the card shows it
            card.update_from(task)

    def close(self) -> None:
        """Stop background tasks and let go of the session's callbacks."""
        self.session.on_change(self._on_session, remove=True)
        self.form.close()
        super().close()

    def text_summary(self) -> str:
        lines = [super().text_summary(), f"model: {self.form.model or '(none)'}"]
        if self.form.reason:
            lines.append(f"Generate disabled: {self.form.reason}")
        lines += [repr(card) for card in self.cards[:10]]
        return "\n".join(lines)


class ImagePanel(GeneratePanel):
    """Image generation: banana and image2 families."""

    kind: Kind = "image"
    title = "Image panel"


class VideoPanel(GeneratePanel):
    """Video generation: every video family of the catalog."""

    kind: Kind = "video"
    title = "Video panel"
