"""Figure 2: CPU per non-streamed chat completion, AsyncClient vs the official ``openai``.

The emulator runs in a child process, so this process's CPU (``time.process_time``) is the
client's. A sample is a batch of sequential ``chat.completions.create`` calls with the same
body through each client (ours: ``recorder=None``, the client layer alone); batches
alternate ABBA and the medians of CPU per completion are compared. Both must return the
same text. Target: ratio <= 0.8 (lighter than the official SDK).
"""

from __future__ import annotations

import asyncio
import sys

from _chat import compare, openai_chat, openai_client, our_client, ours_chat
from _common import Figure, Server, finish, median, parse_args, serve


async def measure(server: Server, per_sample: int, reps: int) -> Figure:
    ours_c, sdk = our_client(server), openai_client(server)
    async with ours_c, sdk:
        runs = await compare(
            {"ours": lambda: ours_chat(ours_c), "openai": lambda: openai_chat(sdk)},
            per_sample,
            reps,
        )
    ours, base = median(runs["ours"].cpu), median(runs["openai"].cpu)
    print(f"{per_sample} completions per sample x {reps} reps")
    print(f"samples ours   {[round(s * 1e3, 3) for s in runs['ours'].cpu]} ms CPU/completion")
    print(f"samples openai {[round(s * 1e3, 3) for s in runs['openai'].cpu]} ms CPU/completion")
    same = runs["ours"].text == runs["openai"].text and bool(runs["ours"].text)
    return Figure(
        id="chat_completion_cpu",
        ours=ours * 1e3,
        unit="ms CPU/completion",
        baseline=base * 1e3,
        baseline_unit="ms CPU/completion (openai SDK)",
        ratio=ours / base,
        op="<=",
        target=0.8,
        note=f"same reply text: {same}",
        correct=same,
    )


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (2 if args.quick else 8)
    per_sample = 10 if args.quick else 40
    with serve("emulator", "--speed", "1000") as server:
        figure = asyncio.run(measure(server, per_sample, reps))
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
