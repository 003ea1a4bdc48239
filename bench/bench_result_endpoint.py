"""Figure 10: emulator ``GET /v1/result/{id}`` requests/s vs a bare Starlette JSON endpoint.

Both apps run in their own child process with the same uvicorn settings (``_server.py``).
The emulator (speed 1000, so its per-task poll gate is 2 ms) holds completed banana tasks;
the load rotates over their ids so no request is refused as too early (non-2xx answers are
counted and must be none). Load runs alternate between the two servers (ABBA) and the
median requests/s are compared. The load generator is ``wrk`` when ``/usr/bin/wrk`` (or
``wrk`` on PATH) exists, else a Python asyncio loop of raw keep-alive sockets in this
process (it shares the 2 cores with the server, equally for both). Target: ratio >= 0.6.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from _common import API_KEY, Figure, Server, finish, interleave, median, parse_args, serve

CONNECTIONS = 8
BANANA_CREATE = "/v1/banana/images"


def make_tasks(server: Server, count: int) -> list[str]:
    """Create ``count`` banana tasks and wait until all completed; return their ids."""
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx2.Client(base_url=server.base_url, headers=headers, timeout=30) as http:
        ids = [
            http.post(
                BANANA_CREATE, json={"model": "nano-banana-pro", "prompt": f"fox {i}"}
            ).json()["id"]
            for i in range(count)
        ]
        deadline = time.monotonic() + 20
        pending = set(ids)
        while pending and time.monotonic() < deadline:
            time.sleep(0.05)
            for task_id in list(pending):
                response = http.get(f"/v1/result/{task_id}")
                if response.status_code == 200 and response.json()["status"] == "completed":
                    pending.discard(task_id)
        if pending:
            raise RuntimeError(f"{len(pending)} tasks did not complete")
    return ids


def wrk_script(ids: list[str], folder: Path) -> Path:
    """A wrk Lua script rotating over the result paths, with the Bearer header."""
    paths = ", ".join(f'"/api/v1/result/{i}"' for i in ids)
    script = folder / "rotate.lua"
    script.write_text(
        f"local paths = {{{paths}}}\n"
        "local n = 0\n"
        f'wrk.headers["Authorization"] = "Bearer {API_KEY}"\n'
        "request = function()\n"
        "  n = n + 1\n"
        '  return wrk.format("GET", paths[(n % #paths) + 1])\n'
        "end\n"
    )
    return script


def run_wrk(wrk: str, server: Server, script: Path, seconds: float) -> tuple[float, int]:
    """(requests/s, non-2xx responses) of one wrk run."""
    out = subprocess.run(
        [wrk, "-t1", f"-c{CONNECTIONS}", f"-d{round(seconds)}s", "-s", str(script), server.root],
        check=False,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"wrk failed: {out.stderr.strip() or out.stdout.strip()}")
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out.stdout)
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out.stdout)
    if rps is None:
        raise RuntimeError(f"unexpected wrk output:\n{out.stdout}")
    return float(rps.group(1)), int(bad.group(1)) if bad else 0


async def _connection(port: int, paths: list[str], stop_at: float, offset: int) -> tuple[int, int]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    done = bad = 0
    index = offset
    try:
        while time.perf_counter() < stop_at:
            path = paths[index % len(paths)]
            index += CONNECTIONS
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Authorization: Bearer {API_KEY}\r\n\r\n".encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = re.search(rb"(?i)content-length:\s*(\d+)", head)
            await reader.readexactly(int(length.group(1)) if length else 0)
            done += 1
            bad += status >= 300
    finally:
        writer.close()
    return done, bad


def run_python(server: Server, paths: list[str], seconds: float) -> tuple[float, int]:
    """(requests/s, non-2xx responses) of the asyncio raw-socket load loop."""

    async def load() -> tuple[float, int]:
        start = time.perf_counter()
        stop_at = start + seconds
        results = await asyncio.gather(
            *(_connection(server.port, paths, stop_at, i) for i in range(CONNECTIONS))
        )
        elapsed = time.perf_counter() - start
        return sum(r[0] for r in results) / elapsed, sum(r[1] for r in results)

    return asyncio.run(load())


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (2 if args.quick else 10)
    seconds = 1.0
    wrk = shutil.which("wrk") or ("/usr/bin/wrk" if Path("/usr/bin/wrk").exists() else None)
    bad_total = 0
    with (
        serve("emulator", "--speed", "1000") as emulator,
        serve("bare") as bare,
        tempfile.TemporaryDirectory() as tmp,
    ):
        ids = make_tasks(emulator, 50 if args.quick else 200)
        paths = [f"/api/v1/result/{i}" for i in ids]
        script = wrk_script(ids, Path(tmp))

        def measure(server: Server) -> float:
            nonlocal bad_total
            if wrk is not None:
                rps, bad = run_wrk(wrk, server, script, seconds)
            else:
                rps, bad = run_python(server, paths, seconds)
            bad_total += bad
            return rps

        measure(emulator)  # warm both servers (first-request imports, caches)
        measure(bare)
        bad_total = 0
        samples = interleave(
            {"emulator": lambda: measure(emulator), "bare": lambda: measure(bare)}, reps
        )
    ours, base = median(samples["emulator"]), median(samples["bare"])
    print(
        f"load generator: {'wrk ' + wrk if wrk else 'python asyncio raw sockets'}, "
        f"{CONNECTIONS} connections, {seconds:g} s per run"
    )
    print(f"samples emulator {[round(s) for s in samples['emulator']]} req/s")
    print(f"samples bare     {[round(s) for s in samples['bare']]} req/s")
    figure = Figure(
        id="result_endpoint_rps",
        ours=ours,
        unit="req/s",
        baseline=base,
        baseline_unit="req/s (bare Starlette)",
        ratio=ours / base,
        op=">=",
        target=0.6,
        note=f"{'wrk' if wrk else 'python loop'}; non-2xx answers: {bad_total}",
        correct=bad_total == 0,
    )
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
