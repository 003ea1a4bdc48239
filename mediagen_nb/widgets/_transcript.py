"""The chat conversation: turns (text, thinking, tool calls) and their throttled sync.

``ChatTranscript`` keeps the turns in Python and pushes them to its synced traits at most
``STREAM_UPDATES_PER_S`` times a second, the turn being streamed as its whole text so far."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from mediagen_nb.widgets._base import Throttle
from mediagen_nb.widgets._chat_options import Attachment, model_title
from mediagen_nb.widgets._frontend import STATIC

__all__ = ["STATIC", "STREAM_UPDATES_PER_S", "ChatTranscript", "ChatTurn", "ToolCall"]

STREAM_UPDATES_PER_S = 20.0
"""Comm messages per second at most (DESIGN: streamed text batched to <= 20/s)."""

Role = Literal["user", "assistant"]
TurnState = Literal["streaming", "complete", "stopped", "error"]


@dataclass(frozen=True)
class ToolCall:
    """A tool the model asked to call; ``result`` is what the user typed back (None: not yet)."""

    id: str
    name: str
    arguments: str = "{}"
    """The arguments as the JSON text the model sent."""
    result: str | None = None

    @property
    def input(self) -> Any:
        """The arguments parsed (``{}`` when they are not valid JSON)."""
        try:
            return json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return {}

    def to_json(self) -> dict[str, Any]:
        """The synced form: arguments pretty-printed when they are JSON."""
        try:
            pretty = json.dumps(json.loads(self.arguments or "{}"), indent=2, ensure_ascii=False)
        except json.JSONDecodeError:
            pretty = self.arguments
        return {"id": self.id, "name": self.name, "arguments": pretty, "result": self.result}


@dataclass(frozen=True)
class ChatTurn:
    """One turn of the conversation, as the panel and the front end see it.

    Attributes:
        role: ``user`` or ``assistant``.
        text: The message, or the reply's text so far.
        state: ``streaming`` while text arrives, ``complete`` when the service ended the
            reply, ``stopped`` when the user pressed Stop (partial text kept), ``error``
            when the request failed or the stream was cut (partial text kept).
        model: The model that answered (assistant turns).
        protocol: The chat protocol the turn went over.
        attachments: Media sent with a user message.
        usage: Token counts the service reported, if any.
        error: Why the reply failed or was cut (None otherwise).
        turn_id: Ledger key of the turn (assistant turns the client recorded).
        thinking: The reply's thinking text (messages protocol).
        signature: The thinking block's signature, sent back with the turn in a tool loop.
        tool_calls: Tools the reply asked to call, with the results typed so far.
    """

    role: Role
    text: str = ""
    state: TurnState = "complete"
    model: str = ""
    protocol: str = ""
    attachments: tuple[Attachment, ...] = ()
    usage: dict[str, int] | None = None
    error: str | None = None
    turn_id: str | None = None
    """Ledger key of the turn (assistant turns the client recorded)."""
    thinking: str = ""
    signature: str = ""
    """The thinking block's signature (messages), sent back with the turn in a tool loop."""
    tool_calls: tuple[ToolCall, ...] = ()

    @property
    def done(self) -> bool:
        """True once no more text will arrive (whatever the outcome)."""
        return self.state != "streaming"

    @property
    def waiting_for_tools(self) -> bool:
        """A finished reply that asked for tools whose results are not all typed in yet."""
        return self.state == "complete" and any(c.result is None for c in self.tool_calls)

    def to_json(self) -> dict[str, Any]:
        """The synced form (JSON types only; file attachments without their bytes)."""
        return {
            "role": self.role,
            "text": self.text,
            "state": self.state,
            "model": self.model,
            "title": model_title(self.model) if self.model else "",
            "protocol": self.protocol,
            "attachments": [a.to_json() for a in self.attachments],
            "usage": self.usage,
            "error": self.error,
            "turn_id": self.turn_id,
            "thinking": self.thinking,
            "tool_calls": [c.to_json() for c in self.tool_calls],
            "waiting": self.waiting_for_tools,
        }


class TranscriptWidget(Protocol):
    """The synced traits a transcript writes (the ChatPanel has them)."""

    turns: list[dict[str, Any]]
    live_index: int
    live_text: str
    live_thinking: str
    live_seq: int

    def hold_sync(self) -> Any:
        """Context manager batching trait changes into one message."""
        ...


class ChatTranscript:
    """The turns of a conversation, pushed to ``widget`` at most ``rate`` times per second.

    Args:
        widget: The panel whose ``turns`` / ``live_*`` traits show the conversation.
        rate: Most comm messages per second while a reply streams.
        on_sync: Called inside each push (the panel refreshes its buttons there).
    """

    def __init__(
        self,
        widget: TranscriptWidget,
        *,
        rate: float = STREAM_UPDATES_PER_S,
        on_sync: Callable[[], None] | None = None,
    ) -> None:
        self._widget = widget
        self._on_sync = on_sync
        self._turns: list[ChatTurn] = []
        self._live = -1
        self._throttle = Throttle(widget, self._sync, rate=rate)

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

    def stream(
        self, text: str, thinking: str = "", tool_calls: tuple[ToolCall, ...] | None = None
    ) -> None:
        """Set the live turn's text, thinking and finished tool calls (the reply so far).

        Text and thinking travel in ``live_text`` / ``live_thinking``; a new tool call
        changes the turn itself, so it shows as a card while the reply still streams.
        """
        if not 0 <= self._live < len(self._turns):
            return
        turn = self._turns[self._live]
        calls = turn.tool_calls if tool_calls is None else tool_calls
        if (turn.text, turn.thinking, turn.tool_calls) != (text, thinking, calls):
            self._turns[self._live] = replace(turn, text=text, thinking=thinking, tool_calls=calls)
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

    def flush(self) -> None:
        """Push the current state now."""
        self._throttle.flush()

    async def drain(self) -> None:
        """Wait until the front end has been sent the current state."""
        await self._throttle.drain()

    def _sync(self) -> None:
        """Push the Python state to the synced traits (called inside ``hold_sync``).

        Unchanged traits are not sent, so while streaming a message carries only the live
        text and its sequence number. ``on_sync`` (the panel's button states) runs inside
        the same message.
        """
        live = self._live
        widget = self._widget
        widget.turns = [
            t.to_json() if i != live else replace(t, text="", thinking="").to_json()
            for i, t in enumerate(self._turns)
        ]
        widget.live_index = live
        text = self._turns[live].text if live >= 0 else ""
        thinking = self._turns[live].thinking if live >= 0 else ""
        if text != widget.live_text or thinking != widget.live_thinking:
            widget.live_text = text
            widget.live_thinking = thinking
            widget.live_seq += 1
        if self._on_sync is not None:
            self._on_sync()

    def plain_text(self) -> str:
        """The conversation as readable plain text (fallback where widgets cannot load)."""
        lines: list[str] = []
        for turn in self.items:
            who = "You" if turn.role == "user" else (model_title(turn.model) or "assistant")
            note = "" if turn.state == "complete" else f" [{turn.state}]"
            if turn.thinking:
                lines.append(f"{who} (thinking): {turn.thinking}")
            lines.append(f"{who}{note}: {turn.text}")
            lines += [f"  attachment: {a.label}" for a in turn.attachments]
            for call in turn.tool_calls:
                lines.append(f"  tool call {call.name}({call.arguments})")
                if call.result is not None:
                    lines.append(f"  tool result: {call.result}")
            if turn.error:
                lines.append(f"  error: {turn.error}")
            if turn.usage:
                lines.append("  usage: " + ", ".join(f"{k} {v}" for k, v in turn.usage.items()))
        return "\n".join(lines) if lines else "(empty conversation)"
