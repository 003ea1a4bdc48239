"""Deterministic text generation: tokens, wording, limits, stop sequences, stream deltas."""

from __future__ import annotations

from typing import Any

from mediagen_nb.emulator._text_routes import STREAM_DELTA_S
from mediagen_nb.emulator._textgen import (
    MEDIA_TOKENS,
    MESSAGE_OVERHEAD,
    chat_conversation,
    count_tokens,
    generate,
    messages_conversation,
    split_deltas,
    tokenize,
)

QUESTION = "How do volcanoes form and why do some erupt explosively?"


def _chat(question: str = QUESTION, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-5.4", "messages": [{"role": "user", "content": question}], **extra}


def test_tokenize_words_punctuation_and_cjk() -> None:
    assert tokenize("Hello, world! It's 3.5") == [
        "Hello",
        ",",
        "world",
        "!",
        "It",
        "'",
        "s",
        "3",
        ".",
        "5",
    ]
    assert tokenize("量子计算 ok") == ["量", "子", "计", "算", "ok"]
    assert count_tokens("  ") == 0


def test_answer_reacts_to_prompt_and_is_deterministic() -> None:
    conv = chat_conversation(_chat())
    first = generate("gpt-5.4", conv, {})
    assert first == generate("gpt-5.4", conv, {})
    assert "volcanoes" in first.text
    assert "gpt-5.4" in first.text
    assert first.finish == "end"
    assert first.completion_tokens == count_tokens(first.text)
    other = generate("gpt-5.4", chat_conversation(_chat("Explain photosynthesis in plants")), {})
    assert "photosynthesis" in other.text
    assert other.text != first.text


def test_seed_varies_wording_with_temperature() -> None:
    conv = chat_conversation(_chat())
    texts = {generate("gpt-5.4", conv, {"temperature": t / 10}).text for t in range(10)}
    assert len(texts) > 1


def test_max_tokens_truncates_to_a_prefix() -> None:
    conv = chat_conversation(_chat())
    full = generate("gpt-5.4", conv, {})
    cut = generate("gpt-5.4", conv, {}, max_tokens=7)
    assert cut.finish == "length"
    assert cut.completion_tokens == 7
    assert full.text.startswith(cut.text)
    roomy = generate("gpt-5.4", conv, {}, max_tokens=full.completion_tokens)
    assert roomy.finish == "end"
    assert roomy.text == full.text


def test_stop_sequence_cuts_before_first_occurrence() -> None:
    conv = chat_conversation(_chat())
    full = generate("gpt-5.4", conv, {}).text
    cut = generate("gpt-5.4", conv, {}, stop=["zzz-never", "volcanoes"])
    assert cut.finish == "stop"
    assert cut.stop_sequence == "volcanoes"
    assert cut.text == full[: full.index("volcanoes")]
    # max tokens still applies after the cut
    short = generate("gpt-5.4", conv, {}, stop=["volcanoes"], max_tokens=2)
    assert (short.finish, short.completion_tokens, short.stop_sequence) == ("length", 2, None)


def test_prompt_tokens_count_text_framing_and_media() -> None:
    body = {
        "model": "gpt-5.4",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this picture?"},
                    {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                ],
            },
        ],
    }
    conv = chat_conversation(body)
    assert conv.system == "Be brief."
    assert conv.media == ("image",)
    expected = count_tokens("Be brief.") + count_tokens("What is in this picture?")
    assert conv.prompt_tokens == expected + 2 * MESSAGE_OVERHEAD + MEDIA_TOKENS
    assert "1 image part" in generate("gpt-5.4", conv, body).text


def test_messages_conversation_reads_system_blocks() -> None:
    conv = messages_conversation(
        {
            "system": [{"type": "text", "text": "You teach geology."}],
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
            ],
        }
    )
    assert conv.system == "You teach geology."
    assert conv.question == QUESTION
    text = generate("claude-opus-4-6", conv, {}).text
    assert "turn 2" in text
    assert "You teach geology." in text


def test_split_deltas_join_back_and_keep_token_counts() -> None:
    text = generate("gpt-5.4", chat_conversation(_chat()), {}).text
    deltas = split_deltas(text, 42)
    assert "".join(deltas) == text
    assert all(2 <= count_tokens(d) <= 4 for d in deltas[:-1])
    assert sum(count_tokens(d) for d in deltas) == count_tokens(text)
    assert split_deltas("") == []


def test_typical_answer_streams_in_one_to_three_seconds_at_speed_one() -> None:
    text = generate("gpt-5.4", chat_conversation(_chat()), {}).text
    assert 1.0 <= len(split_deltas(text, 7)) * STREAM_DELTA_S <= 3.0
