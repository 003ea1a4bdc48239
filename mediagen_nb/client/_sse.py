"""Incremental Server-Sent Events parser (WHATWG "event stream interpretation").

Linear time, bounded memory, cut streams detected; why not ``httpx2.EventSource``: the
design page, "Parsing Server-Sent Events ourselves".
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator
from typing import Final

from httpx2 import ServerSentEvent

from ._exceptions import StreamInterruptedError

__all__ = ["MAX_EVENT_CHARS", "MAX_LINE_CHARS", "SSEDecoder", "ServerSentEvent", "aiter_sse"]

_EOL = re.compile(r"\r\n|\r|\n")
MAX_LINE_CHARS: Final = 8 * 1024 * 1024
"""Longest line of an event stream (a chat delta is a few hundred characters)."""
MAX_EVENT_CHARS: Final = 16 * 1024 * 1024
"""Most data one event may carry."""


class SSEDecoder:
    """Feed bytes with ``feed``, get complete events back; call ``close`` at EOF."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._parts: list[str] = []
        """Pieces of the line not finished yet."""
        self._partial = 0
        self._skip_lf = False
        """The last chunk ended with CR: an LF starting the next belongs to it."""
        self._at_start = True
        self._data: list[str] = []
        self._data_size = 0
        self._event = ""
        self._last_id = ""
        self._retry: int | None = None
        self.comments = 0
        """Number of comment lines seen (keep-alives)."""
        self.pending = False
        """After ``close``: True when input ended inside an event (it was discarded)."""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Parse one chunk; return the events it completed."""
        return self._feed_text(self._decoder.decode(chunk))

    def close(self) -> list[ServerSentEvent]:
        """Finish the input: a trailing lone CR still ends its line; any open event is dropped."""
        events = self._feed_text(self._decoder.decode(b"", final=True))
        self.pending = bool(self._parts or self._data or self._event)
        self._parts = []
        self._partial = 0
        self._data = []
        self._data_size = 0
        self._event = ""
        return events

    def _feed_text(self, text: str) -> list[ServerSentEvent]:
        if self._at_start and text:
            self._at_start = False
            text = text.removeprefix("\ufeff")
        if self._skip_lf and text:
            self._skip_lf = False
            text = text.removeprefix("\n")
        events: list[ServerSentEvent] = []
        start = 0
        for match in _EOL.finditer(text):
            piece = text[start : match.start()]
            line = "".join([*self._parts, piece]) if self._parts else piece
            self._parts = []
            self._partial = 0
            event = self._line(line)
            if event is not None:
                events.append(event)
            start = match.end()
        if text.endswith("\r"):
            self._skip_lf = True  # the CR ended its line; an LF next is its other half
        rest = text[start:]
        if rest:
            self._parts.append(rest)
            self._partial += len(rest)
            if self._partial > MAX_LINE_CHARS:
                raise StreamInterruptedError(
                    "", f"a line of the event stream is longer than {MAX_LINE_CHARS} characters"
                )
        return events

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_size += len(value) + 1
            if self._data_size > MAX_EVENT_CHARS:
                raise StreamInterruptedError(
                    "", f"an event of the stream carries more than {MAX_EVENT_CHARS} characters"
                )
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> ServerSentEvent | None:
        if not self._data:
            self._event = ""
            return None
        event = ServerSentEvent(
            event=self._event or "message",
            data="\n".join(self._data),
            id=self._last_id,
            retry=self._retry,
        )
        self._data = []
        self._data_size = 0
        self._event = ""
        return event


async def aiter_sse(
    chunks: AsyncIterable[bytes], decoder: SSEDecoder | None = None
) -> AsyncIterator[ServerSentEvent]:
    """Events from a byte stream. Pass your own ``decoder`` to inspect ``pending`` afterwards."""
    parser = decoder if decoder is not None else SSEDecoder()
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    for event in parser.close():
        yield event
