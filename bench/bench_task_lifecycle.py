"""Figure 1: CPU per task lifecycle (create + polls until completed), AsyncClient vs httpx2.

The emulator runs in a child process at speed 100 (banana: a poll every 20 ms, done after
0.1-0.4 s), so this process's CPU (``time.process_time``) is the client's alone. A sample is
a batch of concurrent banana lifecycles: ours via ``AsyncClient.images.create`` +
``Task.wait()`` (``recorder=None``: the history ledger is measured elsewhere, this is the
client layer); the baseline sends the same requests with a bare ``httpx2.AsyncClient`` (POST
create, then GET result at the family interval until completed, JSON decoded). Both use the
same counting transport. Each task's generation time is a seeded draw inside the catalog ETA,
so batches differ in how many polls they need: the figure is therefore CPU per request
(median over ABBA-alternated batches) times the median requests per lifecycle of all
batches, i.e. CPU per lifecycle at an equal request count. Target: ratio <= 1.25.
"""

from __future__ import annotations

import asyncio
import sys

import httpx2
from _common import API_KEY, Figure, Server, ainterleave, cpu, finish, median, parse_args, serve
from _http import LIMITS, CountingTransport

from mediagen_nb.catalog import family
from mediagen_nb.client import AsyncClient

SPEED = 100.0
MODEL = "nano-banana-pro"
CREATE = family("banana").create_path
INTERVAL = family("banana").min_poll_interval(MODEL) / SPEED


async def bare_lifecycle(http: httpx2.AsyncClient, prompt: str) -> None:
    """Create, then poll at the family interval until completed, with plain httpx2."""
    created = (await http.post(CREATE, json={"model": MODEL, "prompt": prompt})).json()
    while True:
        await asyncio.sleep(INTERVAL)
        response = await http.get(f"/v1/result/{created['id']}")
        response.raise_for_status()
        if response.json()["status"] in ("completed", "failed"):
            return


async def our_lifecycle(client: AsyncClient, prompt: str) -> None:
    """Create and wait with the toolkit's client."""
    task = await client.images.create(MODEL, prompt=prompt)
    await task.wait()


async def measure(server: Server, batch: int, reps: int) -> Figure:
    # ours on the client's default transport; bare on httpx2's own, as a user would have it
    ours_counter = CountingTransport()
    bare_counter = CountingTransport(httpx2.AsyncHTTPTransport(limits=LIMITS))
    client = AsyncClient(
        api_key=API_KEY,
        base_url=server.base_url,
        text_base_url=server.text_base_url,
        transport=ours_counter,
        recorder=None,
    )
    http = httpx2.AsyncClient(
        base_url=server.base_url,
        headers={"Authorization": f"Bearer {API_KEY}"},
        transport=bare_counter,
        timeout=60,
    )
    requests: dict[str, list[float]] = {"ours": [], "bare": []}

    async def sample(name: str) -> float:
        counter = ours_counter if name == "ours" else bare_counter
        before_requests = counter.requests
        start = cpu()
        if name == "ours":
            await asyncio.gather(*(our_lifecycle(client, f"fox {i}") for i in range(batch)))
        else:
            await asyncio.gather(*(bare_lifecycle(http, f"fox {i}") for i in range(batch)))
        spent = cpu() - start
        sent = counter.requests - before_requests
        requests[name].append(sent / batch)
        return spent / sent

    async with client, http:
        await sample("ours")  # warm-up: connections, imports, pydantic schemas
        await sample("bare")
        requests = {"ours": [], "bare": []}
        samples = await ainterleave(
            {"ours": lambda: sample("ours"), "bare": lambda: sample("bare")}, reps
        )
    per_lifecycle = median(requests["ours"] + requests["bare"])
    ours, base = median(samples["ours"]) * per_lifecycle, median(samples["bare"]) * per_lifecycle
    print(f"batch {batch} concurrent lifecycles x {reps} reps, emulator speed {SPEED:g}")
    print(f"samples ours {[round(s * 1e3, 3) for s in samples['ours']]} ms CPU/request")
    print(f"samples bare {[round(s * 1e3, 3) for s in samples['bare']]} ms CPU/request")
    print(f"statuses ours {ours_counter.statuses} bare {bare_counter.statuses}")
    return Figure(
        id="task_lifecycle_cpu",
        ours=ours * 1e3,
        unit="ms CPU/lifecycle",
        baseline=base * 1e3,
        baseline_unit="ms CPU/lifecycle (bare httpx2)",
        ratio=ours / base,
        op="<=",
        target=1.25,
        note=(
            f"at {per_lifecycle:.2f} requests/lifecycle (measured: ours "
            f"{median(requests['ours']):.2f}, bare {median(requests['bare']):.2f})"
        ),
    )


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (2 if args.quick else 8)
    batch = 10 if args.quick else 25
    with serve("emulator", "--speed", str(SPEED)) as server:
        figure = asyncio.run(measure(server, batch, reps))
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
