"""Figure 6: a ChatPanel receiving a 10,000-token stream.

The emulator's answers are ~100 tokens, so a bench server (``_server.py longstream``, child
process) streams an OpenAI-style reply of 10,000 one-token deltas at 2,000 tokens/s (5 s;
one comm message per token would be 2,000/s). A ``ChatPanel`` with its own ``AsyncClient``
(``recorder=None``) sends one message; every comm message of every widget is recorded by
patching ``ipywidgets.Widget._send``. The panel is one anywidget: its transcript traits
(``turns``, ``live_text``) are synced by the panel itself, so every message of the panel
counts, the form and button states included.

Checks: the panel's transcript text equals the tokens sent, and so does the text a front
end holds after applying every message of the panel in order (the comm, not
just Python, carried the whole text). The figure is the most messages the transcript widget
sent in any 1-second window; target <= 20 (ratio = figure / 20 <= 1). The note gives the
mean rate over the stream and the messages of all the panel's widgets. ``--quick``: 1,000
tokens at 1,000/s.
"""

from __future__ import annotations

import asyncio
import sys
import time

from _comm import CommRecorder
from _common import API_KEY, Figure, Server, cpu, finish, parse_args, serve
from _server import stream_token

from mediagen_nb.client import AsyncClient
from mediagen_nb.widgets import ChatPanel, Session

LIMIT_PER_S = 20.0


async def measure(server: Server, tokens: int) -> Figure:
    expected = "".join(stream_token(i) for i in range(tokens))
    client = AsyncClient(
        api_key=API_KEY,
        base_url=server.root + "/api",
        text_base_url=server.text_base_url,
        recorder=None,
    )
    recorder = CommRecorder()
    async with client:
        panel = ChatPanel(session=Session(client=client))
        panel.set(protocol="chat_completions")
        view = panel
        with recorder.record():
            start_wall, start_cpu = time.perf_counter(), cpu()
            await panel.send("Please stream a very long answer.")
            wall, spent = time.perf_counter() - start_wall, cpu() - start_cpu
    python_text = panel.transcript[-1].text
    front = recorder.front_state(view)
    front_turns = front.get("turns", [])
    front_text = front_turns[-1].get("text") if front_turns else None
    exact = python_text == expected and front_text == expected
    view_messages = len(recorder.of(view))
    peak = recorder.max_per_window(view)
    print(f"{tokens} tokens streamed in {wall:.2f} s; kernel CPU {spent:.2f} s")
    print(
        f"panel comm messages: {view_messages} ({view_messages / wall:.1f}/s mean, "
        f"peak {peak} in 1 s); all widgets: {len(recorder.sent)}"
    )
    print(
        f"text exact in Python: {python_text == expected}; in the front-end state: "
        f"{front_text == expected}; panel errors: {panel.errors}"
    )
    figure = Figure(
        id="chat_panel_comm_rate",
        ours=peak,
        unit="comm msgs in the busiest second",
        baseline=LIMIT_PER_S,
        baseline_unit="msgs/s allowed",
        ratio=peak / LIMIT_PER_S,
        op="<=",
        target=1.0,
        note=(
            f"{tokens} tokens, text exact: {exact}; mean {view_messages / wall:.1f} msgs/s "
            f"over {wall:.1f} s"
        ),
        correct=exact,
    )
    panel.close()
    return figure


def main() -> int:
    args = parse_args(__doc__ or "")
    tokens, rate = (1000, 1000) if args.quick else (10_000, 2000)
    with serve("longstream", "--tokens", str(tokens), "--rate", str(rate)) as server:
        figure = asyncio.run(measure(server, tokens))
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
