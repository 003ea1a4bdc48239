"""Chat-completions and messages rules, both ways, for every text model of the catalog."""

from __future__ import annotations

from typing import Any

import pytest

from mediagen_nb.catalog import TEXT_MODELS
from mediagen_nb.types import validate_request
from tests._validation_helpers import assert_clean, assert_error, errors_of

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"

GEMINI = sorted(n for n, m in TEXT_MODELS.items() if m.vendor == "gemini")
NOT_GEMINI = sorted(n for n, m in TEXT_MODELS.items() if m.vendor != "gemini")
GPT = sorted(n for n, m in TEXT_MODELS.items() if m.vendor == "gpt")
CLAUDE = sorted(n for n, m in TEXT_MODELS.items() if m.vendor == "claude")

IMAGE_PART = {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}
VIDEO_PART = {"type": "video_url", "video_url": {"url": "https://example.com/cat.mp4"}}
CLAUDE_IMAGE = {"type": "image", "source": {"type": "url", "url": "https://example.com/c.png"}}


def chat(model: str = "gpt-5.4", **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hello"}], **extra}


def msgs(model: str = "claude-sonnet-4-6", **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "hello"}],
        **extra,
    }


def user(*parts: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": [{"type": "text", "text": "look"}, *parts]}]


# --- chat-completions ---------------------------------------------------------------------


@pytest.mark.parametrize("model", sorted(TEXT_MODELS))
def test_chat_every_catalog_model_with_image_input(model: str) -> None:
    assert_clean(CHAT, chat(model))
    assert_clean(CHAT, chat(model, messages=user(IMAGE_PART)))


@pytest.mark.parametrize("model", GEMINI)
def test_chat_video_input_on_gemini(model: str) -> None:
    assert_clean(CHAT, chat(model, messages=user(VIDEO_PART)))


@pytest.mark.parametrize("model", NOT_GEMINI)
def test_chat_video_input_rejected_for_gpt_and_claude(model: str) -> None:
    body = chat(model, messages=user(VIDEO_PART))
    assert_error(CHAT, body, "messages[0].content[1]", "video", "Gemini")


@pytest.mark.parametrize(
    "model",
    ["claude-opus-4-7-low", "gemini-2.5-flash-lite-low", "gemini-2.5-pro-hc", "gpt-5.6", "llama-3"],
)
def test_chat_unknown_models(model: str) -> None:
    problem = assert_error(CHAT, chat(model), "model", "unknown", model)
    assert "allow_unknown_models" in problem.rule


@pytest.mark.parametrize("model", ["gpt-6", "claude-opus-5", "gemini-4-pro"])
def test_chat_unknown_models_opt_out(model: str) -> None:
    assert_clean(CHAT, chat(model), allow_unknown_models=True)


def test_chat_opt_out_still_needs_a_known_vendor() -> None:
    assert_error(CHAT, chat("llama-3"), "model", "unknown", allow_unknown_models=True)


def test_chat_opt_out_keeps_capability_rules() -> None:
    body = chat("gpt-6", messages=user(VIDEO_PART))
    assert_error(CHAT, body, "messages[0].content[1]", "Gemini", allow_unknown_models=True)


@pytest.mark.parametrize("temperature", [0, 0.0, 0.7, 1, 2, 2.0])
def test_chat_temperature_zero_to_two(temperature: float) -> None:
    assert_clean(CHAT, chat(temperature=temperature))


@pytest.mark.parametrize("temperature", [-0.01, -1, 2.01, 3])
def test_chat_temperature_out_of_range(temperature: float) -> None:
    assert_error(CHAT, chat(temperature=temperature), "temperature", "0", "2")


@pytest.mark.parametrize("top_p", [0, 0.5, 1])
def test_chat_top_p(top_p: float) -> None:
    assert_clean(CHAT, chat(top_p=top_p))


@pytest.mark.parametrize("top_p", [-0.1, 1.5])
def test_chat_top_p_out_of_range(top_p: float) -> None:
    assert_error(CHAT, chat(top_p=top_p), "top_p", "0", "1")


def test_chat_temperature_and_top_p_together_is_a_warning() -> None:
    problems = validate_request(CHAT, chat(temperature=0.5, top_p=0.9))
    assert [(p.field, p.severity) for p in problems] == [("top_p", "warning")]
    assert "not both" in problems[0].rule


@pytest.mark.parametrize("stop", ["END", "", [], ["a"], ["a", "b", "c", "d"]])
def test_chat_stop_one_string_or_up_to_four(stop: Any) -> None:
    assert_clean(CHAT, chat(stop=stop))


@pytest.mark.parametrize(
    ("stop", "words"),
    [
        (["a", "b", "c", "d", "e"], ("at most 4", "5")),
        (5, ("string",)),
        (["a", 1], ("string",)),
        ({"a": 1}, ("string",)),
        ([None], ("string",)),
    ],
)
def test_chat_stop_rules(stop: Any, words: tuple[str, ...]) -> None:
    assert_error(CHAT, chat(stop=stop), "stop", *words)


@pytest.mark.parametrize("role", ["system", "developer", "user", "assistant"])
def test_chat_roles(role: str) -> None:
    body = chat(messages=[{"role": role, "content": "hi"}, {"role": "user", "content": "go"}])
    assert_clean(CHAT, body)


@pytest.mark.parametrize("role", ["function", "User", "", None])
def test_chat_other_roles(role: Any) -> None:
    body = chat(messages=[{"role": role, "content": "hi"}])
    assert_error(CHAT, body, "messages[0].role", "system", "developer", "user", "tool")


@pytest.mark.parametrize(
    ("messages", "field", "words"),
    [
        ([], "messages", ("at least one",)),
        ("hello", "messages", ("list",)),
        (["hello"], "messages[0]", ("object",)),
        ([{"role": "user"}], "messages[0].content", ("required",)),
        ([{"content": "hi"}], "messages[0].role", ("required",)),
        ([{"role": "user", "content": None}], "messages[0].content", ("string", "array")),
        ([{"role": "user", "content": 7}], "messages[0].content", ("string", "array")),
        ([{"role": "user", "content": [{"text": "x"}]}], "messages[0].content[0]", ("type",)),
        ([{"role": "user", "content": ["x"]}], "messages[0].content[0]", ("type",)),
    ],
)
def test_chat_messages_shape(messages: Any, field: str, words: tuple[str, ...]) -> None:
    assert_error(CHAT, chat(messages=messages), field, *words)


def test_chat_problem_names_the_right_message() -> None:
    body = chat(
        "claude-opus-4-6",
        messages=[
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
            {"role": "user", "content": [IMAGE_PART, VIDEO_PART]},
        ],
    )
    assert [p.field for p in errors_of(CHAT, body)] == ["messages[2].content[1]"]


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("temperature", "1", ("number",)),
        ("temperature", True, ("number",)),
        ("top_p", "0.5", ("number",)),
        ("stream", "true", ("true or false",)),
        ("stream", 1, ("true or false",)),
        ("max_completion_tokens", "5", ("integer",)),
        ("max_completion_tokens", True, ("integer",)),
        ("max_completion_tokens", 5.0, ("integer",)),
        ("max_completion_tokens", 0, ("at least 1",)),
        ("model", 5, ("string",)),
        ("model", "", ("empty",)),
    ],
)
def test_chat_json_types(field: str, value: Any, words: tuple[str, ...]) -> None:
    assert_error(CHAT, chat(**{field: value}), field, *words)


def test_chat_required_fields() -> None:
    assert_error(CHAT, {"messages": chat()["messages"]}, "model", "required")
    assert_error(CHAT, {"model": "gpt-5.4"}, "messages", "required")


def test_chat_protocol_extras_pass_through() -> None:
    body = chat(stream=True, max_completion_tokens=64, tools=[], response_format={"type": "text"})
    assert_clean(CHAT, body)


# --- messages -----------------------------------------------------------------------------


@pytest.mark.parametrize("model", GPT + CLAUDE)
def test_messages_accepts_claude_and_gpt(model: str) -> None:
    assert_clean(MESSAGES, msgs(model))


@pytest.mark.parametrize("model", GEMINI)
def test_messages_rejects_gemini(model: str) -> None:
    assert_error(MESSAGES, msgs(model), "model", "Claude", "GPT")


@pytest.mark.parametrize("model", CLAUDE)
@pytest.mark.parametrize("part", [CLAUDE_IMAGE, IMAGE_PART])
def test_messages_image_input_for_claude(model: str, part: dict[str, Any]) -> None:
    assert_clean(MESSAGES, msgs(model, messages=user(part)))


@pytest.mark.parametrize("model", GPT)
@pytest.mark.parametrize("part", [CLAUDE_IMAGE, IMAGE_PART])
def test_messages_no_image_input_for_gpt(model: str, part: dict[str, Any]) -> None:
    body = msgs(model, messages=user(part))
    assert_error(MESSAGES, body, "messages[0].content[1]", "GPT", "chat-completions")


@pytest.mark.parametrize("model", GPT)
def test_messages_gpt_text_blocks_are_fine(model: str) -> None:
    assert_clean(MESSAGES, msgs(model, messages=user()))


def test_messages_max_tokens_required() -> None:
    body = msgs()
    del body["max_tokens"]
    assert_error(MESSAGES, body, "max_tokens", "required")


@pytest.mark.parametrize(
    ("value", "words"),
    [(0, ("at least 1",)), (-5, ("at least 1",)), ("256", ("integer",)), (True, ("integer",))],
)
def test_messages_max_tokens_values(value: Any, words: tuple[str, ...]) -> None:
    assert_error(MESSAGES, msgs(max_tokens=value), "max_tokens", *words)


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_messages_roles(role: str) -> None:
    body = msgs(messages=[{"role": "user", "content": "a"}, {"role": role, "content": "b"}])
    assert_clean(MESSAGES, body)


@pytest.mark.parametrize("role", ["system", "tool", "Human"])
def test_messages_other_roles(role: str) -> None:
    body = msgs(messages=[{"role": role, "content": "a"}])
    assert_error(MESSAGES, body, "messages[0].role", "user", "assistant")


@pytest.mark.parametrize("system", ["be brief", [{"type": "text", "text": "be brief"}]])
def test_messages_system(system: Any) -> None:
    assert_clean(MESSAGES, msgs(system=system))


def test_messages_system_wrong_type() -> None:
    assert_error(MESSAGES, msgs(system=5), "system", "string")


@pytest.mark.parametrize("temperature", [0, 0.5, 1])
def test_messages_temperature(temperature: float) -> None:
    assert_clean(MESSAGES, msgs(temperature=temperature))


def test_messages_temperature_bounds() -> None:
    assert_error(MESSAGES, msgs(temperature=-0.1), "temperature", "0", "1")
    assert_error(MESSAGES, msgs(temperature=1.5), "temperature", "0", "1")


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([], "messages"),
        ([{"role": "user"}], "messages[0].content"),
        ([{"role": "user", "content": 3}], "messages[0].content"),
        ("hi", "messages"),
    ],
)
def test_messages_shape(messages: Any, field: str) -> None:
    assert_error(MESSAGES, msgs(messages=messages), field)


def test_messages_unknown_models_and_opt_out() -> None:
    assert_error(MESSAGES, msgs("claude-opus-9"), "model", "unknown")
    assert_clean(MESSAGES, msgs("claude-opus-9"), allow_unknown_models=True)
    assert_clean(MESSAGES, msgs("gpt-6"), allow_unknown_models=True)
    body = msgs("gemini-9")
    assert_error(MESSAGES, body, "model", "Claude", "GPT", allow_unknown_models=True)


def test_messages_protocol_extras_pass_through() -> None:
    body = msgs(stream=True, thinking={"type": "enabled", "budget_tokens": 1024}, tools=[])
    body["max_tokens"] = 2048
    assert_clean(MESSAGES, body)
