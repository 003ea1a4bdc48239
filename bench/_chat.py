"""The chat workloads of figures 2-4: the same request through our client and the SDKs.

Each function sends one request and returns the reply text, doing what a user's code would
do to get it: our streams assemble ``stream.text`` themselves; with the SDKs the text is
accumulated from the deltas. The SDK baselines use their lightest streaming path
(``create(stream=True)`` and raw events, not the snapshot-building ``stream()`` helpers).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anthropic
import openai
from _common import API_KEY, Figure, Server, ainterleave, cpu, median

from mediagen_nb.client import AsyncClient
from mediagen_nb.emulator._textgen import count_tokens

MODEL = "claude-sonnet-4-6"
QUESTION = (
    "How should a teacher plan a short lesson about photosynthesis, chlorophyll and "
    "sunlight? Give me a list of steps."
)
MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
MAX_TOKENS = 1024


def our_client(server: Server) -> AsyncClient:
    """The toolkit's client for ``server`` (no history recording: this is the client layer)."""
    return AsyncClient(
        api_key=API_KEY,
        base_url=server.base_url,
        text_base_url=server.text_base_url,
        recorder=None,
    )


def openai_client(server: Server) -> openai.AsyncOpenAI:
    """The official OpenAI SDK pointed at the emulator's text gateway."""
    return openai.AsyncOpenAI(api_key=API_KEY, base_url=server.text_base_url + "/v1")


def anthropic_client(server: Server) -> anthropic.AsyncAnthropic:
    """The official Anthropic SDK pointed at the emulator's text gateway."""
    return anthropic.AsyncAnthropic(api_key=API_KEY, base_url=server.text_base_url)


async def ours_chat(client: AsyncClient) -> str:
    """Non-streamed chat completion."""
    reply = await client.chat.completions.create(model=MODEL, messages=MESSAGES)
    return str(reply.text)


async def openai_chat(client: openai.AsyncOpenAI) -> str:
    """Non-streamed chat completion with the OpenAI SDK."""
    api: Any = client.chat.completions
    reply = await api.create(model=MODEL, messages=MESSAGES)
    return str(reply.choices[0].message.content or "")


async def ours_chat_stream(client: AsyncClient) -> str:
    """Streamed chat completion; the stream assembles the text."""
    stream = await client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    async for _chunk in stream:
        pass
    return str(stream.text)


async def openai_chat_stream(client: openai.AsyncOpenAI) -> str:
    """Streamed chat completion with the OpenAI SDK, text accumulated from the deltas."""
    api: Any = client.chat.completions
    stream = await api.create(model=MODEL, messages=MESSAGES, stream=True)
    parts: list[str] = []
    async for chunk in stream:
        if chunk.choices:
            parts.append(chunk.choices[0].delta.content or "")
    return "".join(parts)


async def ours_messages_stream(client: AsyncClient) -> str:
    """Streamed messages call; the stream assembles the text."""
    stream = await client.messages.create(
        model=MODEL, max_tokens=MAX_TOKENS, messages=MESSAGES, stream=True
    )
    async for _event in stream:
        pass
    return str(stream.text)


async def anthropic_messages_stream(client: anthropic.AsyncAnthropic) -> str:
    """Streamed messages call with the Anthropic SDK, text accumulated from text deltas."""
    api: Any = client.messages
    stream = await api.create(model=MODEL, max_tokens=MAX_TOKENS, messages=MESSAGES, stream=True)
    parts: list[str] = []
    async for event in stream:
        if event.type == "content_block_delta" and event.delta.type == "text_delta":
            parts.append(event.delta.text)
    return "".join(parts)


Sender = Callable[[], Awaitable[str]]


@dataclass
class Run:
    """Samples of one subject: CPU and wall seconds per request, and the reply text."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    text: str = ""


async def compare(subjects: dict[str, Sender], per_sample: int, reps: int) -> dict[str, Run]:
    """Interleave (ABBA) batches of ``per_sample`` sequential requests per subject.

    One warm-up batch each first (connections, imports, schema builds).
    """
    runs = {name: Run() for name in subjects}

    async def batch(name: str) -> float:
        send = subjects[name]
        start_cpu, start_wall = cpu(), time.perf_counter()
        for _ in range(per_sample):
            runs[name].text = await send()
        spent = (cpu() - start_cpu) / per_sample
        runs[name].wall.append((time.perf_counter() - start_wall) / per_sample)
        return spent

    for name in subjects:
        await batch(name)
        runs[name].wall.clear()
    samples = await ainterleave({name: _bind(batch, name) for name in subjects}, reps)
    for name, values in samples.items():
        runs[name].cpu = values
    return runs


def _bind(batch: Callable[[str], Awaitable[float]], name: str) -> Callable[[], Awaitable[float]]:
    return lambda: batch(name)


async def stream_figure(
    figure_id: str, ours: Sender, sdk: Sender, sdk_name: str, per_sample: int, reps: int
) -> Figure:
    """Tokens per client CPU-second of two streaming senders (see the scripts' docstrings)."""
    runs = await compare({"ours": ours, sdk_name: sdk}, per_sample, reps)
    text = runs["ours"].text
    tokens = count_tokens(text)
    same = text == runs[sdk_name].text and tokens > 0
    ours_rate = tokens / median(runs["ours"].cpu)
    sdk_rate = tokens / median(runs[sdk_name].cpu)
    for name, run in runs.items():
        print(
            f"samples {name:9s} {[round(tokens / s) for s in run.cpu]} tokens/CPU-s; "
            f"wall {tokens / median(run.wall):.0f} tokens/s"
        )
    print(f"{tokens} tokens per reply, {per_sample} replies per sample x {reps} reps")
    return Figure(
        id=figure_id,
        ours=ours_rate,
        unit="tokens/CPU-s",
        baseline=sdk_rate,
        baseline_unit=f"tokens/CPU-s ({sdk_name} SDK)",
        ratio=ours_rate / sdk_rate,
        op=">=",
        target=1.0,
        note=(
            f"wall tokens/s ours {tokens / median(runs['ours'].wall):.0f}, {sdk_name} "
            f"{tokens / median(runs[sdk_name].wall):.0f}; same text: {same}"
        ),
        correct=same,
    )
