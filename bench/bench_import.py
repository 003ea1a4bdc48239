"""Figure 8: wall time of ``python -c "import mediagen_nb.client"`` vs ``import httpx2``.

Each sample is a fresh interpreter (``subprocess``), so nothing is cached in-process; the
two commands alternate (ABBA) and the medians are compared. The client command also prints
which heavy modules got loaded: pandas, PIL or ipywidgets in ``sys.modules`` is a failure
(the client must keep them lazy). Target: ratio <= 2.5.

Both commands run with bytecode caching on (in a temporary ``PYTHONPYCACHEPREFIX``, warmed
by one run of each before sampling), as any interpreter imports after its first run and as
pip installs httpx2. A caller's ``PYTHONDONTWRITEBYTECODE=1`` (some sandboxes set it) would
otherwise make every client sample recompile the checkout's sources while httpx2 loads its
installed bytecode: a figure of the compiler, not of the import. The cold client time
(sources compiled every run) is sampled in the same rounds and given in the note.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from _common import PYTHON, ROOT, Figure, finish, interleave, median, parse_args

HEAVY = ("pandas", "PIL", "ipywidgets")
CHECK = f"import sys, mediagen_nb.client; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
CLIENT = "import mediagen_nb.client"
HTTPX = "import httpx2"


def cached_env(prefix: str) -> dict[str, str]:
    """The environment with bytecode written to and read from ``prefix``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = prefix
    return env


def cold_env() -> dict[str, str]:
    """The environment with no bytecode for the checkout (sources compiled every run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def timed(code: str, env: dict[str, str]) -> float:
    """Wall seconds of one ``python -c code`` run from the repository root."""
    start = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (4 if args.quick else 15)
    with tempfile.TemporaryDirectory(prefix="mediagen-bench-pyc-") as prefix:
        env = cached_env(prefix)
        heavy = subprocess.run(
            [PYTHON, "-c", CHECK], cwd=ROOT, env=env, check=True, capture_output=True, text=True
        ).stdout.strip()
        timed(HTTPX, env)  # warm-up: writes httpx2's bytecode too
        samples = interleave(
            {
                "client": lambda: timed(CLIENT, env),
                "httpx2": lambda: timed(HTTPX, env),
                "cold": lambda: timed(CLIENT, cold_env()),
            },
            reps,
        )
    ours, base, cold = (median(samples[name]) for name in ("client", "httpx2", "cold"))
    print(f"heavy modules loaded by mediagen_nb.client: {heavy or 'none'}")
    print(f"samples client {[round(s * 1000) for s in samples['client']]} ms")
    print(f"samples httpx2  {[round(s * 1000) for s in samples['httpx2']]} ms")
    print(f"cold client (no bytecode, sources compiled every run): {cold * 1000:.0f} ms")
    figure = Figure(
        id="import_time",
        ours=ours * 1000,
        unit="ms",
        baseline=base * 1000,
        baseline_unit="ms (import httpx2)",
        ratio=ours / base,
        op="<=",
        target=2.5,
        note=(
            f"heavy modules: {heavy or 'none'}; {reps} runs each, bytecode cached; "
            f"cold client {cold * 1000:.0f} ms = {cold / base:.2f}x"
        ),
        correct=not heavy,
    )
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
