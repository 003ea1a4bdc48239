"""Run every figure of the benchmark table and print the results as a Markdown table.

``python bench/run_all.py`` (full; about 5 minutes) or ``python bench/run_all.py --quick``
(small N, about a minute; what CI runs through ``python -m bench --quick``). Scripts run
one after another (never in parallel: they measure CPU and wall time), each in its own
interpreter. The exit status is non-zero when a script fails: in full mode on a missed
target or a wrong result, in quick mode only on a wrong result (tasks not completed, text
not exact, requests over their bound) or a crash; see ``_common``. ``--only a,b`` runs the
named figures (script names without ``bench_``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _common import FIGURE_RE, PYTHON, ROOT  # noqa: E402 - needs the path above
from _lite_figures import summary as lite_summary  # noqa: E402

SCRIPTS: tuple[tuple[str, str], ...] = (
    ("task_lifecycle", "1. CPU per task lifecycle vs bare httpx2 (<= 1.25x)"),
    ("chat_cpu", "2. CPU per chat completion vs openai (<= 0.8x)"),
    ("chat_stream", "3. streamed chat tokens/CPU-s vs openai (>= 1.0x)"),
    ("messages_stream", "4. streamed messages tokens/CPU-s vs anthropic (>= 1.0x)"),
    ("many_tasks", "5. 1,000 concurrent image tasks: requests vs ideal + 1/task"),
    ("chat_panel", "6. ChatPanel 10,000-token stream: comm msgs in busiest second"),
    ("task_cards", "7. 200 live task cards: CPU of status updates (<= 10 %)"),
    ("import", "8. import mediagen_nb.client vs import httpx2 (<= 2.5x)"),
    ("notebook_size", "9. executed playground + 20 images, saved (<= 1 MB)"),
    ("result_endpoint", "10. emulator GET /v1/result rps vs bare Starlette (>= 0.6x)"),
    ("classroom", "11. classroom gateway: upstream polls/polite, added p99s (worse of 3 <= 1)"),
    ("classroom_shared", "11b. 1,000 students, 3 gateways on PostgreSQL, 1 killed: polls, pick-up"),
    ("sweep", "12. 10,000-cell image sweep: requests, lag p99, stalls (worse of 3 <= 1)"),
)
FULL_ONLY = frozenset({"classroom_shared"})
"""Figures the quick mode leaves out unless named in ``--only`` (a database and four servers)."""


def run_one(name: str, quick: bool) -> tuple[int, str, float]:
    """(exit status, the figure line or the last output line, seconds)."""
    command = [PYTHON, str(BENCH / f"bench_{name}.py"), *(["--quick"] if quick else [])]
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), check=False
    )
    elapsed = time.perf_counter() - start
    sys.stdout.write(done.stdout)
    if done.returncode != 0 and done.stderr:
        sys.stdout.write(done.stderr[-3000:])
    lines = done.stdout.strip().splitlines()
    return done.returncode, lines[-1] if lines else "(no output)", elapsed


def table(rows: list[tuple[str, int, str, float]]) -> str:
    """The Markdown results table."""
    out = [
        "| figure | ours | baseline | ratio | target | verdict | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for title, status, line, seconds in rows:
        match = FIGURE_RE.match(line)
        if match is None:
            out.append(f"| {title} | (failed: exit {status}) | | | | {line[:80]} | {seconds:.0f} |")
            continue
        out.append(
            f"| {title} | {match['ours']} {match['ours_unit']} | {match['base']} "
            f"{match['base_unit']} | {match['ratio']} | {match['op']} {match['target']} | "
            f"{match['verdict']} | {seconds:.0f} |"
        )
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small N (CI)")
    parser.add_argument("--only", default="", help="comma-separated figure names")
    args = parser.parse_args(argv)
    wanted = {n for n in args.only.split(",") if n}
    unknown = wanted - {name for name, _ in SCRIPTS}
    if unknown:
        parser.error(f"unknown figures: {', '.join(sorted(unknown))}")
    rows: list[tuple[str, int, str, float]] = []
    for name, title in SCRIPTS:
        if (wanted and name not in wanted) or (args.quick and name in FULL_ONLY and not wanted):
            continue
        print(f"== {title}", flush=True)
        status, line, seconds = run_one(name, args.quick)
        rows.append((title, status, line, seconds))
    mode = "quick" if args.quick else "full"
    print(f"\nResults ({mode} mode, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}):\n")
    print(table(rows))
    failed = [title for title, status, _line, _s in rows if status != 0]
    if failed:
        print(f"\n{len(failed)} figure(s) failed: {'; '.join(failed)}")
    print(f"\n{lite_summary()}")  # last: scripts/test prints a fresh one after pytest
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
