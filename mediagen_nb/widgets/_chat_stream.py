"""A streamed reply assembled as it arrives: text, thinking (and its signature), tool calls.

``Reply.feed`` takes the client's protocol-neutral stream updates, so both chat protocols
share this code (design: docs/reference/design.md, "The chat form").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mediagen_nb.types import (
    ChatCompletion,
    Message,
    StreamUpdate,
    ThinkingBlock,
)
from mediagen_nb.widgets._transcript import ToolCall


def _dumps(value: Any) -> str:
    return json.dumps(value if value is not None else {}, ensure_ascii=False)


@dataclass
class Reply:
    """What a streamed reply has said so far."""

    text: str = ""
    thinking: str = ""
    signature: str = ""
    usage: dict[str, int] | None = None
    calls: list[ToolCall] = field(default_factory=list)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls, in the order the model made them."""
        return tuple(self.calls)

    def feed(self, update: StreamUpdate) -> None:
        """Take one update of ``stream.events()`` (choice 0 only: the panel asks for one)."""
        if update.type == "done":
            self._final(update.final)
            usage = update.usage
            if usage is not None:
                data = usage.model_dump()
                self.usage = {k: v for k, v in data.items() if isinstance(v, int)}
        elif update.choice != 0:
            return
        elif update.type == "text":
            self.text = update.snapshot
        elif update.type == "thinking":
            self.thinking += update.thinking
        elif update.type == "tool_call":
            call = update.call
            self.calls.append(ToolCall(id=call.id, name=call.name, arguments=_dumps(call.input)))

    def _final(self, final: ChatCompletion | Message) -> None:
        if isinstance(final, Message):
            self.text = final.text
            blocks = [b for b in final.thinking_blocks if isinstance(b, ThinkingBlock)]
            self.thinking = "".join(b.thinking for b in blocks) or self.thinking
            self.signature = blocks[-1].signature if blocks else ""
            self.calls = [
                ToolCall(id=b.id, name=b.name, arguments=_dumps(b.input)) for b in final.tool_uses
            ]
            return
        self.text = final.text
        self.calls = [
            ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "{}")
            for c in final.tool_calls
        ]
