"""Figure 3: tokens/s through a streamed chat reply, ours vs the official ``openai``.

Choice of measure: client-side CPU per token, reported as tokens per CPU-second of this
process. The emulator runs in a child process at speed 1,000,000 (its pacing sleep is then
~0), so wall-clock tokens/s would be bounded by the server process and the shared machine,
and both clients would show about the same number; the client's own cost per token is what
differs between clients and what limits throughput when the kernel is busy. Wall-clock
tokens/s are printed too. Batches of sequential streams alternate ABBA; medians compared.
Both clients must assemble the same text. Target: ratio >= 1.0.
"""

from __future__ import annotations

import asyncio
import sys

from _chat import openai_chat_stream, openai_client, our_client, ours_chat_stream, stream_figure
from _common import Figure, Server, finish, parse_args, serve


async def measure(server: Server, per_sample: int, reps: int) -> Figure:
    ours, sdk = our_client(server), openai_client(server)
    async with ours, sdk:
        return await stream_figure(
            "chat_stream_tokens_per_s",
            lambda: ours_chat_stream(ours),
            lambda: openai_chat_stream(sdk),
            "openai",
            per_sample,
            reps,
        )


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (2 if args.quick else 8)
    per_sample = 5 if args.quick else 20
    with serve("emulator", "--speed", "1000000") as server:
        figure = asyncio.run(measure(server, per_sample, reps))
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
