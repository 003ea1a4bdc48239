"""Issue 15, client side: images for GPT on messages anywhere, and malformed parts.

For each kind, ``validate_request`` names the field as the user sees it and the rule, and the
``AsyncClient`` raises ``RequestValidationError`` with that problem while its transport
sees nothing. (The emulator's side of each kind is ``test_emulator_edges.py``.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from mediagen_nb.client import AsyncClient, RequestValidationError
from mediagen_nb.types import validate_request
from mediagen_nb.types._problem import errors_only
from tests._validation_helpers import (
    CHAT,
    IMG,
    MESSAGES,
    NoNetwork,
    refused,
    send,
    silent_client,
)


@pytest.fixture
def wire() -> NoNetwork:
    return NoNetwork()


@pytest.fixture
async def client(wire: NoNetwork) -> AsyncIterator[AsyncClient]:
    async with silent_client(wire) as c:
        yield c


# --- 2. messages + GPT: no image anywhere in the message ------------------------------------

GPT_MSG = {"model": "gpt-5.4", "max_tokens": 32}
IMAGE_BLOCK = {"type": "image", "source": {"type": "url", "url": IMG}}


def tool_result(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": "toolu_1", "content": list(content)}


def tool_turns(*content: dict[str, Any]) -> list[dict[str, Any]]:
    """A protocol-shaped tool round: the user asks, the assistant calls, the user answers."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "chart", "input": {}}
    return [
        {"role": "user", "content": "plot it"},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": list(content)},
    ]


NESTED_IMAGES = {
    "in tool_result": (
        [tool_result(IMAGE_BLOCK)],
        "messages[2].content[0].content[0]",
    ),
    "after text in tool_result": (
        [tool_result({"type": "text", "text": "chart:"}, IMAGE_BLOCK)],
        "messages[2].content[0].content[1]",
    ),
    "openai part in tool_result": (
        [tool_result({"type": "image_url", "image_url": {"url": IMG}})],
        "messages[2].content[0].content[0]",
    ),
    "two levels down": (
        [{"type": "text", "text": "see"}, tool_result(tool_result(IMAGE_BLOCK))],
        "messages[2].content[1].content[0].content[0]",
    ),
}


@pytest.mark.parametrize("case", sorted(NESTED_IMAGES))
async def test_gpt_on_messages_refuses_an_image_wherever_it_sits(
    case: str, client: AsyncClient, wire: NoNetwork
) -> None:
    """The image is named however the rest of the tool_result shape is judged."""
    content, field = NESTED_IMAGES[case]
    body = {**GPT_MSG, "messages": tool_turns(*content)}
    hits = [p for p in errors_only(validate_request(MESSAGES, body)) if p.field == field]
    assert len(hits) == 1, validate_request(MESSAGES, body)
    assert "GPT" in hits[0].rule
    assert "chat-completions" in hits[0].rule
    with pytest.raises(RequestValidationError) as info:
        await send(client, MESSAGES, body)
    assert hits[0] in info.value.problems
    assert wire.sent == []


def test_claude_on_messages_takes_the_same_nested_image() -> None:
    content = [tool_result({"type": "text", "text": "chart:"}, IMAGE_BLOCK)]
    body = {**GPT_MSG, "model": "claude-sonnet-4-6", "messages": tool_turns(*content)}
    assert errors_only(validate_request(MESSAGES, body)) == []
    text_only = {**GPT_MSG, "messages": tool_turns(tool_result({"type": "text", "text": "42"}))}
    assert errors_only(validate_request(MESSAGES, text_only)) == []


# --- 5. malformed multimodal parts ------------------------------------------------------------


def claude_tools(*content: dict[str, Any]) -> dict[str, Any]:
    return {**GPT_MSG, "model": "claude-sonnet-4-6", "messages": tool_turns(*content)}


def chat_parts(*parts: Any, model: str = "gpt-5.4") -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": list(parts)}]}


def message_blocks(*blocks: Any) -> dict[str, Any]:
    return {
        **GPT_MSG,
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": list(blocks)}],
    }


MALFORMED = {
    "chat image_url without url": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {}}),
        "messages[0].content[0].image_url.url",
        "required",
    ),
    "chat image_url missing": (
        CHAT,
        chat_parts({"type": "image_url"}),
        "messages[0].content[0].image_url",
        "required",
    ),
    "chat image_url as a string": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": IMG}),
        "messages[0].content[0].image_url",
        "object",
    ),
    "chat image_url empty url": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {"url": " "}}),
        "messages[0].content[0].image_url.url",
        "empty",
    ),
    "chat image detail": (
        CHAT,
        chat_parts({"type": "image_url", "image_url": {"url": IMG, "detail": "max"}}),
        "messages[0].content[0].image_url.detail",
        "auto",
    ),
    "chat text without text": (
        CHAT,
        chat_parts({"type": "text"}),
        "messages[0].content[0].text",
        "required",
    ),
    "chat text not a string": (
        CHAT,
        chat_parts({"type": "text", "text": 5}),
        "messages[0].content[0].text",
        "string",
    ),
    "chat input_audio without data": (
        CHAT,
        chat_parts({"type": "input_audio", "input_audio": {"format": "wav"}}),
        "messages[0].content[0].input_audio.data",
        "required",
    ),
    "chat video_url without url (gemini)": (
        CHAT,
        chat_parts({"type": "video_url", "video_url": {}}, model="gemini-2.5-pro"),
        "messages[0].content[0].video_url.url",
        "required",
    ),
    "messages image without source": (
        MESSAGES,
        message_blocks({"type": "image"}),
        "messages[0].content[0].source",
        "required",
    ),
    "messages url source without url": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "url"}}),
        "messages[0].content[0].source.url",
        "required",
    ),
    "messages base64 without data": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "base64", "media_type": "image/png"}}),
        "messages[0].content[0].source.data",
        "required",
    ),
    "messages base64 media type": (
        MESSAGES,
        message_blocks(
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/bmp", "data": "AA=="},
            }
        ),
        "messages[0].content[0].source.media_type",
        "image/png",
    ),
    "messages unknown source type": (
        MESSAGES,
        message_blocks({"type": "image", "source": {"type": "ftp", "url": IMG}}),
        "messages[0].content[0].source.type",
        "base64",
    ),
    "messages text without text": (
        MESSAGES,
        message_blocks({"type": "text"}),
        "messages[0].content[0].text",
        "required",
    ),
    "messages blank text block": (
        MESSAGES,
        message_blocks({"type": "text", "text": "  "}),
        "messages[0].content[0].text",
        "empty",
    ),
    "messages document without source": (
        MESSAGES,
        message_blocks({"type": "document"}),
        "messages[0].content[0].source",
        "required",
    ),
    "messages block type a list": (
        MESSAGES,
        message_blocks({"type": [], "text": "a red fox"}),
        "messages[0].content[0]",
        "string 'type'",
    ),
    "messages nested block type an object": (
        MESSAGES,
        claude_tools(tool_result({"type": {"a": 1}})),
        "messages[2].content[0].content[0]",
        "string 'type'",
    ),
    "chat part type a list": (
        CHAT,
        chat_parts({"type": ["image_url"], "image_url": {"url": IMG}}),
        "messages[0].content[0]",
        "string 'type'",
    ),
    "messages tool_result content a number": (
        MESSAGES,
        claude_tools({**tool_result(), "content": 5}),
        "messages[2].content[0].content",
        "array of content blocks",
    ),
    "messages tool_result text block without text": (
        MESSAGES,
        claude_tools(tool_result({"type": "text"})),
        "messages[2].content[0].content[0].text",
        "required",
    ),
    "messages image in system": (
        MESSAGES,
        {**message_blocks({"type": "text", "text": "hi"}), "system": [IMAGE_BLOCK]},
        "system[0]",
        "text block",
    ),
    "messages system block without text": (
        MESSAGES,
        {**message_blocks({"type": "text", "text": "hi"}), "system": [{"type": "text"}]},
        "system[0].text",
        "required",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
async def test_malformed_parts_are_refused(case: str, client: AsyncClient, wire: NoNetwork) -> None:
    path, body, field, word = MALFORMED[case]
    await refused(client, wire, path, body, field, word)


def test_well_formed_parts_of_both_protocols_pass() -> None:
    chat = chat_parts(
        {"type": "text", "text": ""},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA==", "detail": "low"}},
        {"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}},
        {"type": "file", "file": {"file_id": "file-1"}},
        {"type": "some_future_part", "anything": 1},
    )
    assert validate_request(CHAT, chat) == []
    blocks = message_blocks(
        {"type": "text", "text": "look"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
        {"type": "image", "source": {"type": "url", "url": IMG}},
        {"type": "image", "source": {"type": "file", "file_id": "file-1"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
    )
    assert (
        validate_request(MESSAGES, {**blocks, "system": [{"type": "text", "text": "be brief"}]})
        == []
    )
