"""The chat transcript: an anywidget whose front end (``static/chat.js``) renders Markdown.

Finished turns live in the synced ``turns`` list; the turn being streamed is sent as the
whole text so far in ``live_text`` with a growing ``live_seq`` (full text, not deltas, so
the last message always carries the exact answer and a view opened mid-stream is complete).
The kernel batches those updates (``ChatPanel`` uses ``Throttle`` at 20 per second), and the
final update moves the text into ``turns`` in the same comm message.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import anywidget
import traitlets

from mediagen_nb.widgets._base import Throttle

STATIC = Path(__file__).parent / "static"
STREAM_UPDATES_PER_S = 20.0
"""Comm messages per second at most (DESIGN: streamed text batched to <= 20/s)."""

Role = Literal["user", "assistant"]
TurnState = Literal["streaming", "complete", "stopped", "error"]


@dataclass(frozen=True)
class ChatTurn:
    """One turn of the conversation, as the panel and the front end see it.

    ``state``: ``streaming`` while text arrives, ``complete`` when the service ended the
    reply, ``stopped`` when the user pressed Stop (partial text kept), ``error`` when the
    request failed or the stream was cut (partial text kept, ``error`` says why).
    """

    role: Role
    text: str = ""
    state: TurnState = "complete"
    model: str = ""
    protocol: str = ""
    images: tuple[str, ...] = ()
    videos: tuple[str, ...] = ()
    usage: dict[str, int] | None = None
    error: str | None = None
    turn_id: str | None = None
    """Ledger key of the turn (assistant turns the client recorded)."""

    @property
    def attachments(self) -> tuple[str, ...]:
        """Image then video URLs attached to a user turn."""
        return self.images + self.videos

    @property
    def done(self) -> bool:
        """True once no more text will arrive (whatever the outcome)."""
        return self.state != "streaming"

    def to_json(self) -> dict[str, Any]:
        """The synced form (JSON types only)."""
        data = asdict(self)
        data["images"] = list(self.images)
        data["videos"] = list(self.videos)
        data["attachments"] = list(self.attachments)
        return data


class ChatTranscript(anywidget.AnyWidget):
    """Markdown transcript with a streamed last turn; DOM hooks ``.mediagen-chat`` and
    ``.mediagen-turn[data-role][data-done][data-state]``."""

    _esm = STATIC / "chat.js"
    _css = STATIC / "chat.css"

    turns = traitlets.List(traitlets.Dict()).tag(sync=True)
    """Every turn as JSON (``ChatTurn.to_json``); the live turn's text is in ``live_text``."""
    live_index = traitlets.Int(-1).tag(sync=True)
    """Index of the turn being streamed, or -1."""
    live_text = traitlets.Unicode("").tag(sync=True)
    """Whole text of the live turn so far."""
    live_seq = traitlets.Int(0).tag(sync=True)
    """Sequence number of ``live_text``; the front end ignores older values."""

    def __init__(self, *, rate: float = STREAM_UPDATES_PER_S, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._turns: list[ChatTurn] = []
        self._live = -1
        self._throttle = Throttle(self, self._sync, rate=rate)

    # --- Python-side state (always current); the front end follows at most `rate`/s ------

    @property
    def items(self) -> list[ChatTurn]:
        """The conversation, oldest first; a streaming turn holds all text received so far."""
        return list(self._turns)

    @property
    def updates(self) -> int:
        """Comm batches sent so far (each one message), for tests and diagnostics."""
        return self._throttle.applied

    def add(self, turn: ChatTurn) -> int:
        """Append a turn; a ``streaming`` turn becomes the live one. Returns its index."""
        self._turns.append(turn)
        if turn.state == "streaming":
            self._live = len(self._turns) - 1
        self._throttle.request()
        return len(self._turns) - 1

    def stream(self, text: str) -> None:
        """Set the live turn's text to ``text`` (the whole reply so far)."""
        if 0 <= self._live < len(self._turns) and self._turns[self._live].text != text:
            self._turns[self._live] = replace(self._turns[self._live], text=text)
            self._throttle.request()

    def finish(self, index: int, **changes: Any) -> ChatTurn:
        """Replace fields of turn ``index`` (text, state, usage, error...); ends its streaming."""
        turn = replace(self._turns[index], **changes)
        self._turns[index] = turn
        if self._live == index and turn.state != "streaming":
            self._live = -1
        self._throttle.request()
        return turn

    def truncate(self, length: int) -> None:
        """Drop turns from ``length`` on (a retry drops the failed reply; 0 clears)."""
        del self._turns[length:]
        if self._live >= length:
            self._live = -1
        self._throttle.request()

    async def drain(self) -> None:
        """Wait until the front end has been sent the current state."""
        await self._throttle.drain()

    def _sync(self) -> None:
        """Push the Python state to the synced traits (called inside ``hold_sync``).

        Unchanged traits are not sent, so while streaming a message carries only the live
        text and its sequence number.
        """
        live = self._live
        self.turns = [
            t.to_json() if i != live else replace(t, text="").to_json()
            for i, t in enumerate(self._turns)
        ]
        self.live_index = live
        text = self._turns[live].text if live >= 0 else ""
        if text != self.live_text:
            self.live_text = text
            self.live_seq += 1

    def plain_text(self) -> str:
        """The conversation as readable plain text (fallback where widgets cannot load)."""
        lines: list[str] = []
        for turn in self.items:
            who = "You" if turn.role == "user" else (turn.model or "assistant")
            note = "" if turn.state == "complete" else f" [{turn.state}]"
            lines.append(f"{who}{note}: {turn.text}")
            lines += [f"  attachment: {url}" for url in turn.attachments]
            if turn.error:
                lines.append(f"  error: {turn.error}")
            if turn.usage:
                lines.append("  usage: " + ", ".join(f"{k} {v}" for k, v in turn.usage.items()))
        return "\n".join(lines) if lines else "(empty conversation)"

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        return {**data, "text/plain": self.plain_text()}, metadata
