"""SSE parsing edge cases and the chat/messages stream objects built on it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import httpx2
import pytest

from mediagen_nb.client import (
    AsyncClient,
    ChatCompletionStream,
    MessageStream,
    StreamInterruptedError,
)
from mediagen_nb.client._sse import ServerSentEvent, SSEDecoder, aiter_sse
from tests._support import KEY
from tests.client_fakes import BASE, TEXT, MemoryRecorder


def parse(chunks: Iterable[bytes]) -> tuple[list[ServerSentEvent], SSEDecoder]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return events, decoder


def test_multi_line_data_is_joined_with_newlines() -> None:
    events, _ = parse([b"data: first\ndata: second\ndata:third\n\n"])
    assert events == [ServerSentEvent(data="first\nsecond\nthird")]


def test_event_id_retry_and_comments() -> None:
    stream = b": keep-alive\nevent: ping\nid: 7\nretry: 1500\ndata: {}\n\n:another\n\n"
    events, decoder = parse([stream])
    assert events == [ServerSentEvent(event="ping", data="{}", id="7", retry=1500)]
    assert decoder.comments == 2


def test_crlf_cr_and_lf_line_endings_even_split_across_chunks() -> None:
    raw = b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r"
    whole, _ = parse([raw])
    assert [e.data for e in whole] == ["a\nb\nc", "d"]
    for split in range(1, len(raw)):
        pieces, _ = parse([raw[:split], raw[split:]])
        assert [e.data for e in pieces] == ["a\nb\nc", "d"], split
    single, _ = parse([bytes([b]) for b in raw])
    assert [e.data for e in single] == ["a\nb\nc", "d"]


def test_utf8_split_inside_a_character_and_bom() -> None:
    raw = "\ufeffdata: héllo ✓\n\n".encode()
    events, _ = parse([raw[:10], raw[10:11], raw[11:]])
    assert events[0].data == "héllo ✓"


def test_field_rules() -> None:
    raw = (
        b"data\n\ndata:  two spaces\n\nid: a\x00b\ndata: x\n\nretry: soon\ndata: y\n\nfoo: bar\n\n"
    )
    events, _ = parse([raw])
    assert events[0].data == ""  # a bare "data" line is a field with an empty value
    assert events[1].data == " two spaces"  # only one space is stripped
    assert events[2].id == ""  # ids containing NUL are ignored
    assert events[3].retry is None
    assert len(events) == 4  # unknown field alone dispatches nothing


def test_blank_lines_and_keepalives_dispatch_nothing() -> None:
    events, decoder = parse([b"\n\n: ping\n\n\r\n"])
    assert events == []
    assert decoder.comments == 1
    assert decoder.pending is False


def test_unterminated_event_is_discarded_and_flagged() -> None:
    events, decoder = parse([b"data: whole\n\ndata: half"])
    assert [e.data for e in events] == ["whole"]
    assert decoder.pending is True


@pytest.mark.parametrize("tail", [b"data: b", b"data: b\n", b"data: b\r", b"data: b\r\n"])
def test_event_whose_last_line_ended_but_no_blank_line_came_is_pending(tail: bytes) -> None:
    """A line ending at EOF closes the line, not the event (httpx2.EventSource sends it)."""
    events, decoder = parse([b"data: a\r\n\r\n", b"data: x\r" + tail])
    assert [e.data for e in events] == ["a"]
    assert decoder.pending is True


async def test_aiter_sse_over_async_bytes() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield b"data: 1\n"
        yield b"\ndata: 2\n\n"

    assert [e.data async for e in aiter_sse(source())] == ["1", "2"]


def chunk(text: str, finish: str | None = None, usage: dict[str, int] | None = None) -> bytes:
    data: dict[str, object] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "gpt-5.4",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}],
    }
    if usage is not None:
        data["usage"] = usage
    return f"data: {json.dumps(data)}\n\n".encode()


class CutStream(httpx2.AsyncByteStream):
    """A body that yields some chunks, then (optionally) breaks like a dropped connection."""

    def __init__(self, parts: list[bytes], error: Exception | None = None) -> None:
        self.parts = parts
        self.error = error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part
        if self.error is not None:
            raise self.error


def stream_client(
    parts: list[bytes], tmp_path: Path, error: Exception | None = None
) -> tuple[AsyncClient, MemoryRecorder]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, stream=CutStream(parts, error)
        )

    recorder = MemoryRecorder(tmp_path)
    client = AsyncClient(KEY, BASE, TEXT, httpx2.MockTransport(handler), recorder=recorder)
    return client, recorder


MESSAGES = [{"role": "user", "content": "hi"}]


async def test_chat_stream_assembles_text_and_ends_at_done(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    parts = [
        b": keep-alive\n\n",
        chunk("Hel"),
        chunk("lo", "stop"),
        chunk("", usage=usage),
        b"data: [DONE]\n\n",
        chunk("ignored after done"),
    ]
    client, recorder = stream_client(parts, tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    assert isinstance(stream, ChatCompletionStream)
    texts = [c.text async for c in stream]
    assert texts == ["Hel", "lo", ""]
    assert stream.text == "Hello"
    assert stream.done
    assert stream.finish_reason == "stop"
    assert stream.usage is not None
    assert stream.usage.total_tokens == 5
    assert stream.keepalives == 1
    final = await stream.get_final_completion()
    assert final.text == "Hello"
    assert final.choices[0].finish_reason == "stop"
    assert recorder.actions("chat") == ["started", "completed"]
    assert recorder.events[-1].data["text"] == "Hello"
    await client.aclose()


async def test_chat_stream_without_done_raises_with_partial_text(tmp_path: Path) -> None:
    client, recorder = stream_client([chunk("Hel"), chunk("lo wor")], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    received: list[str] = []

    async def consume() -> None:
        async for item in stream:
            received.append(item.text)

    with pytest.raises(StreamInterruptedError) as info:
        await consume()
    assert received == ["Hel", "lo wor"]
    assert info.value.partial_text == "Hello wor"
    assert "terminator" in str(info.value)
    assert recorder.actions("chat") == ["started", "incomplete"]
    assert recorder.events[-1].data["text"] == "Hello wor"
    await client.aclose()


async def test_chat_stream_cut_by_the_network_keeps_partial_text(tmp_path: Path) -> None:
    client, _ = stream_client(
        [chunk("abc"), b'data: {"choi'],
        tmp_path,
        error=httpx2.RemoteProtocolError("peer closed connection"),
    )
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    with pytest.raises(StreamInterruptedError, match="connection broke") as info:
        await stream.get_final_completion()
    assert info.value.partial_text == "abc"
    assert stream.text == "abc"
    await client.aclose()


SPLIT_RAW = (
    "\ufeff: keep-alive\r\n\r\n"
    + chunk("h\u00e9").decode()
    + chunk("llo \u2713").decode().replace("\n", "\r\n")
    + chunk("!", "stop").decode().replace("\n", "\r")
    + "data: [DONE]\n\n"
).encode()


async def test_chat_stream_bytes_split_anywhere_give_the_same_text(tmp_path: Path) -> None:
    """LF, CRLF and CR endings, a comment and UTF-8 characters, split at every byte."""
    for split in range(1, len(SPLIT_RAW)):
        client, _ = stream_client([SPLIT_RAW[:split], SPLIT_RAW[split:]], tmp_path)
        stream = await client.chat.completions.create(
            model="gpt-5.4", messages=MESSAGES, stream=True
        )
        final = await stream.get_final_completion()
        assert (final.text, stream.done, stream.finish_reason) == (
            "h\u00e9llo \u2713!",
            True,
            "stop",
        )
        await client.aclose()
    client, _ = stream_client([bytes([b]) for b in SPLIT_RAW], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    assert [c.text async for c in stream] == ["h\u00e9", "llo \u2713", "!"]
    await client.aclose()


@pytest.mark.parametrize("tail", [b"data: [DONE]", b"data: [DONE]\n", b"data: [DONE]\r"])
async def test_terminator_without_its_blank_line_is_a_cut_stream(
    tmp_path: Path, tail: bytes
) -> None:
    """An event not closed by a blank line at EOF was never dispatched: the stream was cut."""
    client, recorder = stream_client([chunk("abc"), tail], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    with pytest.raises(StreamInterruptedError, match="terminator") as info:
        await stream.get_final_completion()
    assert info.value.partial_text == "abc"
    assert not stream.done
    assert recorder.actions("chat") == ["started", "incomplete"]
    await client.aclose()


async def test_last_chunk_without_its_blank_line_is_not_counted(tmp_path: Path) -> None:
    client, _ = stream_client([chunk("abc"), chunk("def")[:-1]], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    with pytest.raises(StreamInterruptedError, match="terminator") as info:
        await stream.until_done()
    assert info.value.partial_text == "abc"
    await client.aclose()


async def test_error_event_in_stream(tmp_path: Path) -> None:
    error = b'data: {"error": {"message": "overloaded", "type": "server_error"}}\n\n'
    client, _ = stream_client([chunk("a"), error], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)
    with pytest.raises(StreamInterruptedError, match="overloaded"):
        await stream.until_done()
    await client.aclose()


def claude(event: str, data: dict[str, object]) -> bytes:
    return f"event: {event}\ndata: {json.dumps({'type': event, **data})}\n\n".encode()


CLAUDE_EVENTS = [
    claude(
        "message_start",
        {
            "message": {
                "id": "msg_1",
                "model": "claude-opus-4-6",
                "usage": {"input_tokens": 9, "output_tokens": 1},
            }
        },
    ),
    claude("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
    claude("ping", {}),
    claude("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Hi "}}),
    claude("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "there"}}),
    claude("content_block_stop", {"index": 0}),
    claude("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 4}}),
    claude("message_stop", {}),
]


async def test_messages_stream_events_and_final_message(tmp_path: Path) -> None:
    client, recorder = stream_client(CLAUDE_EVENTS, tmp_path)
    stream = await client.messages.create(
        model="claude-opus-4-6", max_tokens=64, messages=MESSAGES, stream=True
    )
    assert isinstance(stream, MessageStream)
    kinds = [event.type async for event in stream]
    assert kinds == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert stream.text == "Hi there"
    assert stream.stop_reason == "end_turn"
    assert (stream.usage.input_tokens, stream.usage.output_tokens) == (9, 4)
    final = await stream.get_final_message()
    assert final.text == "Hi there"
    assert final.id == "msg_1"
    assert recorder.actions("chat") == ["started", "completed"]
    await client.aclose()


async def test_messages_stream_cut_before_message_stop(tmp_path: Path) -> None:
    client, recorder = stream_client(CLAUDE_EVENTS[:4], tmp_path)
    stream = await client.messages.create(
        model="claude-opus-4-6", max_tokens=64, messages=MESSAGES, stream=True
    )
    with pytest.raises(StreamInterruptedError) as info:
        await stream.get_final_message()
    assert info.value.partial_text == "Hi "
    assert recorder.actions("chat")[-1] == "incomplete"
    await client.aclose()


async def test_stopping_right_after_message_stop_records_completed(tmp_path: Path) -> None:
    client, recorder = stream_client(CLAUDE_EVENTS, tmp_path)
    stream = await client.messages.create(
        model="claude-opus-4-6", max_tokens=64, messages=MESSAGES, stream=True
    )
    async for event in stream:
        if event.type == "message_stop":
            break
    await stream.aclose()
    assert stream.done
    assert recorder.actions("chat") == ["started", "completed"]
    await client.aclose()


async def test_closing_a_stream_early_records_incomplete(tmp_path: Path) -> None:
    client, recorder = stream_client([chunk("a"), chunk("b"), b"data: [DONE]\n\n"], tmp_path)
    async with await client.chat.completions.create(
        model="gpt-5.4", messages=MESSAGES, stream=True
    ) as stream:
        async for _item in stream:
            break
    assert stream.text == "a"
    assert recorder.actions("chat") == ["started", "incomplete"]
    await client.aclose()


# -- bounded work: one huge line costs linear time and ends the stream clearly -----------------


def in_chunks(data: bytes, size: int) -> Iterable[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


@pytest.mark.timeout(120)
def test_a_long_line_in_small_chunks_is_parsed_once() -> None:
    """6 MB in 1 KB chunks: each chunk is scanned once (re-scanning the line costs hours)."""
    line = b"data: " + b"x" * (6 * 1024 * 1024)
    events, decoder = parse([*in_chunks(line, 1024), b"\n\n"])
    assert [len(e.data) for e in events] == [6 * 1024 * 1024]
    assert not decoder.pending


@pytest.mark.timeout(120)
def test_a_line_over_the_limit_fails_clearly() -> None:
    pieces = in_chunks(b"data: " + b"y" * (32 * 1024 * 1024), 64 * 1024)
    with pytest.raises(StreamInterruptedError, match="longer than"):
        parse(pieces)


@pytest.mark.timeout(120)
def test_an_event_over_the_limit_fails_clearly() -> None:
    lines = [b"data: " + b"z" * (1024 * 1024) + b"\n"] * 40
    with pytest.raises(StreamInterruptedError, match="more than"):
        parse(lines)


@pytest.mark.timeout(120)
async def test_a_chat_stream_with_a_huge_line_is_interrupted(tmp_path: Path) -> None:
    huge = list(in_chunks(b'data: {"x": "' + b"w" * (20 * 1024 * 1024), 256 * 1024))
    client, recorder = stream_client([chunk("Hi"), *huge], tmp_path)
    stream = await client.chat.completions.create(model="gpt-5.4", messages=MESSAGES, stream=True)

    async def consume() -> None:
        async for _item in stream:
            pass

    with pytest.raises(StreamInterruptedError, match="longer than") as info:
        await consume()
    assert info.value.partial_text == "Hi"
    assert recorder.actions("chat") == ["started", "incomplete"]
    await client.aclose()
