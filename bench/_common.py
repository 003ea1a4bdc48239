"""Shared plumbing of the benchmark scripts: CLI, interleaved sampling, servers, verdicts.

Every figure script measures its subject and its baseline in the same process and the same
minute, interleaved (ABBA order, so a slow drift of the shared machine hits both alike), and
takes medians. Servers run in a child process (``bench/_server.py``) so that the CPU time
of the measured process (``time.process_time``, all its threads) is the client's alone.

The last line a script prints is its figure line (``FIGURE_RE`` parses it)::

    FIGURE <id> | ours <value> <unit> | baseline <value> <unit> | ratio <r> | target <op> <t>
    | PASS|MISS[ ...] | <note>

Exit status: a wrong result (a task that never completes, a stream that loses text, more
requests than the bound allows: ``Figure.correct`` is False) exits 1 in both modes. A
missed target exits 1 in full mode only: in ``--quick`` mode (small N, what ``scripts/test``
and CI run) the verdict is printed (``MISS (quick mode: ...)``) and the exit status is 0,
however large the miss, because timings of small samples on a shared 2-core machine swing
with whatever else runs there. Targets are judged by the full ``python bench/run_all.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# Benchmarks never write into the user's history folder.
os.environ.setdefault("MEDIAGEN_HOME", str(Path(tempfile.gettempdir()) / "mediagen_nb-bench"))

BENCH = Path(__file__).resolve().parent
PYTHON = sys.executable
API_KEY = "bench-key-not-secret"
Op = Literal["<=", ">="]
FIGURE_RE = re.compile(
    r"^FIGURE (?P<id>\S+) \| ours (?P<ours>\S+) (?P<ours_unit>[^|]*?) \| "
    r"baseline (?P<base>\S+) (?P<base_unit>[^|]*?) \| ratio (?P<ratio>\S+) \| "
    r"target (?P<op>\S+) (?P<target>\S+) \| (?P<verdict>[^|]+?)(?: \| (?P<note>.*))?$"
)


def parse_args(
    description: str, argv: Sequence[str] | None = None, *, scale: bool = False
) -> argparse.Namespace:
    """The common command line: ``--quick`` (small N, lenient exit) and ``--reps``; with
    ``scale``, also ``--count`` and ``--speed`` (0: the script's default) for profiling runs."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small N (CI); lenient exit")
    parser.add_argument("--reps", type=int, default=0, help="repetitions (0: the default)")
    if scale:
        parser.add_argument("--count", type=int, default=0, help="N (0: the default)")
        parser.add_argument("--speed", type=float, default=0, help="emulator speed (0: default)")
    return parser.parse_args(argv)


def median(samples: Sequence[float]) -> float:
    """Median of a non-empty sequence."""
    return float(statistics.median(samples))


def cpu() -> float:
    """CPU seconds of this process, every thread included."""
    return time.process_time()


def interleave(subjects: dict[str, Callable[[], float]], reps: int) -> dict[str, list[float]]:
    """Run each subject ``reps`` times in ABBA order; return every sample by name."""
    names = list(subjects)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            samples[name].append(subjects[name]())
    return samples


async def ainterleave(
    subjects: dict[str, Callable[[], Awaitable[float]]], reps: int
) -> dict[str, list[float]]:
    """``interleave`` for coroutine subjects, inside one running event loop."""
    names = list(subjects)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            samples[name].append(await subjects[name]())
    return samples


@dataclass(frozen=True)
class Figure:
    """One measured figure, its baseline and its target (``op`` applies to ``ratio``)."""

    id: str
    ours: float
    unit: str
    baseline: float
    baseline_unit: str
    ratio: float
    op: Op
    target: float
    note: str = ""
    correct: bool = True
    """False when the run was wrong, not just slow (always a failure)."""

    @property
    def met(self) -> bool:
        """Whether the target holds."""
        if self.op == "<=":
            return self.ratio <= self.target
        return self.ratio >= self.target

    def line(self, quick: bool) -> str:
        """The figure line (see module docstring)."""
        if not self.correct:
            verdict = "FAIL (incorrect result)"
        elif self.met:
            verdict = "PASS"
        elif quick:
            verdict = "MISS (quick mode: not a failure; the full run judges targets)"
        else:
            verdict = "MISS"
        text = (
            f"FIGURE {self.id} | ours {self.ours:.4g} {self.unit} | "
            f"baseline {self.baseline:.4g} {self.baseline_unit} | ratio {self.ratio:.3f} | "
            f"target {self.op} {self.target:g} | {verdict}"
        )
        return text + (f" | {self.note}" if self.note else "")

    def exit_code(self, quick: bool) -> int:
        """1 for a wrong result; for a missed target 1 in full mode, 0 in quick mode."""
        if not self.correct:
            return 1
        return 0 if self.met or quick else 1


def finish(figure: Figure, quick: bool) -> int:
    """Print the figure line (last) and return the exit status."""
    print(figure.line(quick), flush=True)
    return figure.exit_code(quick)


@dataclass(frozen=True)
class Server:
    """A server child process started by :func:`serve`."""

    port: int
    info: dict[str, Any]
    process: subprocess.Popen[str]

    @property
    def root(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The emulator's image/video base URL."""
        return self.root + "/api"

    @property
    def text_base_url(self) -> str:
        """The emulator's text base URL."""
        return self.root + "/gateway"


@contextmanager
def serve(kind: str, *args: str) -> Iterator[Server]:
    """Run ``bench/_server.py KIND ARGS`` in a child process until the block ends.

    The child prints ``READY {json}`` once it accepts connections and exits when its
    stdin closes (so it never outlives this process).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [PYTHON, str(BENCH / "_server.py"), kind, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"bench server {kind} did not start: {line!r}")
        info = json.loads(line[len("READY ") :])
        yield Server(port=int(info["port"]), info=info, process=process)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        if process.stdout is not None:
            process.stdout.close()
