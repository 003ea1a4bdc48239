"""One chat request cannot stall the emulator or ask it for megabytes (issue 32, row 4).

The work a request costs is asserted by counting, not timing: the prompt is read once
whatever ``n`` is (the reading functions are counted), and the answer's size stays within a
bound linear in ``n`` with a small constant, logprobs included (at most
``MAX_LOGPROB_ENTRIES``, else a 400 naming ``top_logprobs``). Hypothesis sends the shapes
that were slow or broke (runs of digits, braces, deep JSON, one huge word, many facts) with
any ``n`` and logprobs. The last test prints how long another client's tiny request waits
while the emulator answers the worst requests the limits allow (printed, never asserted).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mediagen_nb.emulator import (
    _chat_facts,
    _chat_plan,
    _chat_reply,
    _textgen,
    create_app,
    start_emulator,
)
from mediagen_nb.emulator._logprobs import MAX_LOGPROB_ENTRIES
from tests._support import FUZZ_RANDOM, KEY

APP = create_app(api_key=KEY, seed=3)
CHAT = "/gateway/v1/chat/completions"
MODEL = "gpt-5.4"
READERS = (
    (_chat_reply, "task_steps"),
    (_chat_reply, "without_json"),
    (_textgen, "_keywords"),
    (_chat_plan, "_words"),
    (_chat_facts, "proper_nouns"),
)
"""Functions that read the prompt (by module and name): each runs a fixed number of times
per request, whatever ``n``."""
PER_CHOICE_BYTES = 4_096
"""A plain choice's share of a response (its text is a few sentences, quotes capped)."""
PER_ENTRY_BYTES = 300
"""A logprobs entry at most: a token of at most 16 characters, its bytes and alternatives."""
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather of a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"enum": ["C", "F"]}},
                "required": ["city"],
            },
        },
    }
]


def post(body: dict[str, Any]) -> httpx2.Response:
    async def main() -> httpx2.Response:
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=APP),
            base_url="http://emu.test",
            headers={"Authorization": f"Bearer {KEY}"},
            timeout=60,
        ) as http:
            return await http.post(CHAT, json=body)

    return asyncio.run(main())


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts of the calls of each function in ``READERS``."""
    counts: Counter[str] = Counter()
    for module, name in READERS:
        original = getattr(module, name)

        def counted(*args: Any, _f: Callable[..., Any] = original, _n: str = name) -> Any:
            counts[_n] += 1
            return _f(*args)

        monkeypatch.setattr(module, name, counted)
    return counts


def _entries(answer: dict[str, Any]) -> int:
    """Logprobs entries (tokens and their alternatives) in a chat.completion."""
    total = 0
    for choice in answer["choices"]:
        for entry in (choice.get("logprobs") or {}).get("content") or []:
            total += 1 + len(entry["top_logprobs"])
    return total


def test_the_prompt_is_read_once_whatever_n(reads: Counter[str]) -> None:
    question = "What is the weather in Paris and Berlin? Temperature: 18 °C. " * 50
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": question}],
        "tools": TOOLS,
    }
    seen = []
    for n in (1, 16):
        reads.clear()
        response = post({**body, "n": n})
        assert response.status_code == 200
        assert len(response.json()["choices"]) == n
        seen.append(dict(reads))
    assert set(seen[0]) == {name for _, name in READERS}  # each reader is counted
    assert seen[1] == seen[0]


def test_logprobs_past_the_limit_are_refused_with_the_field_named() -> None:
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Explain tides, with a list of steps."}],
        "logprobs": True,
        "top_logprobs": 20,
    }
    one = post(body)
    assert one.status_code == 200
    assert 0 < _entries(one.json()) <= MAX_LOGPROB_ENTRIES
    many = post({**body, "n": 128})
    assert many.status_code == 400
    error = many.json()["error"]
    assert error["param"] == "top_logprobs"
    assert str(MAX_LOGPROB_ENTRIES) in error["message"]


def test_streamed_logprobs_are_the_whole_answers_logprobs() -> None:
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "Write a haiku about the sea"}],
        "logprobs": True,
        "top_logprobs": 3,
        "n": 2,
    }
    whole = post(body).json()
    streamed: dict[int, list[Any]] = {0: [], 1: []}
    for line in post({**body, "stream": True}).text.splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                streamed[choice["index"]] += (choice.get("logprobs") or {}).get("content") or []
    for choice in whole["choices"]:
        assert streamed[choice["index"]] == choice["logprobs"]["content"]


SHAPES: dict[str, Callable[[int], str]] = {
    "digits": lambda k: "1" * k,
    "braces": lambda k: "{" * k,
    "deep JSON": lambda k: '{"a":' * (k // 5),
    "one word": lambda k: "Q" + "x" * k,
    "facts": lambda k: "temp: 18 °C, " * (k // 13),
    "words": lambda k: " ".join(f"w{i:x}" for i in range(k // 6)),
    "JSON asked": lambda k: 'Respond in JSON like {"city": "Paris"}. ' * (k // 40),
    "numbers": lambda k: "-1.5.5°C 3-12 degrees " * (k // 22),
}


@settings(
    max_examples=40,
    deadline=None,
    derandomize=not FUZZ_RANDOM,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    size=st.integers(1_000, 8_000),
    n=st.sampled_from([1, 2, 16, 128]),
    top=st.sampled_from([None, 0, 5, 20]),
    tools=st.booleans(),
)
def test_hostile_prompts_get_a_bounded_answer_or_a_400(
    reads: Counter[str], shape: str, size: int, n: int, top: int | None, tools: bool
) -> None:
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "user", "content": SHAPES[shape](size)}],
        "n": n,
    }
    if top is not None:
        body |= {"logprobs": True, "top_logprobs": top}
    if tools:
        body["tools"] = TOOLS
    reads.clear()
    response = post(body)
    assert response.status_code in (200, 400), response.text[:300]
    assert reads["task_steps"] == reads["without_json"] == reads["_keywords"] == 1
    if response.status_code == 400:
        assert response.json()["error"]["param"] == "top_logprobs"
        return
    answer = response.json()
    entries = _entries(answer)
    assert entries <= MAX_LOGPROB_ENTRIES
    assert len(response.content) <= PER_CHOICE_BYTES * n + PER_ENTRY_BYTES * entries


WORST = {
    "unique words": " ".join(f"w{i:x}" for i in range(130_000)),
    "digits": "1" * 980_000,
    "braces": "{" * 980_000,
    "facts": "temp: 18, " * 98_000,
}


def test_another_clients_request_is_answered_during_the_worst_requests() -> None:
    """Prints the waits (no assertion on time); asserts that everyone got an answer."""
    with start_emulator(speed=1000.0, api_key=KEY) as handle:
        url = handle.text_base_url + "/v1/chat/completions"
        headers = {"Authorization": f"Bearer {KEY}"}
        tiny = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
        for name, text in WORST.items():
            big = {"model": MODEL, "n": 128, "messages": [{"role": "user", "content": text}]}
            done: dict[str, Any] = {}

            def send(body: dict[str, Any] = big, out: dict[str, Any] = done) -> None:
                start = time.perf_counter()
                out["status"] = httpx2.post(url, json=body, headers=headers, timeout=120)
                out["seconds"] = time.perf_counter() - start

            worker = threading.Thread(target=send)
            worker.start()
            time.sleep(0.05)
            start = time.perf_counter()
            small = httpx2.post(url, json=tiny, headers=headers, timeout=120)
            waited = time.perf_counter() - start
            worker.join()
            assert small.status_code == 200
            assert done["status"].status_code == 200
            print(
                f"{name}: n=128 over {len(text):,} characters answered in"
                f" {done['seconds']:.2f} s; another client's request waited {waited:.2f} s"
            )
