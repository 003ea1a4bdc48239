"""Figure 8: wall time of ``python -c "import mediagen_nb.client"`` vs ``import httpx``.

Each sample is a fresh interpreter (``subprocess``), so nothing is cached in-process; the
two commands alternate (ABBA) and the medians are compared. The client command also prints
which heavy modules got loaded: pandas, PIL or ipywidgets in ``sys.modules`` is a failure
(the client must keep them lazy). Target: ratio <= 2.5.
"""

from __future__ import annotations

import subprocess
import sys
import time

from _common import PYTHON, ROOT, Figure, finish, interleave, median, parse_args

HEAVY = ("pandas", "PIL", "ipywidgets")
CHECK = f"import sys, mediagen_nb.client; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"


def timed(code: str) -> float:
    """Wall seconds of one ``python -c code`` run from the repository root."""
    start = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    args = parse_args(__doc__ or "")
    reps = args.reps or (4 if args.quick else 15)
    heavy = subprocess.run(
        [PYTHON, "-c", CHECK], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    samples = interleave(
        {
            "client": lambda: timed("import mediagen_nb.client"),
            "httpx": lambda: timed("import httpx"),
        },
        reps,
    )
    ours, base = median(samples["client"]), median(samples["httpx"])
    print(f"heavy modules loaded by mediagen_nb.client: {heavy or 'none'}")
    print(f"samples client {[round(s * 1000) for s in samples['client']]} ms")
    print(f"samples httpx  {[round(s * 1000) for s in samples['httpx']]} ms")
    figure = Figure(
        id="import_time",
        ours=ours * 1000,
        unit="ms",
        baseline=base * 1000,
        baseline_unit="ms (import httpx)",
        ratio=ours / base,
        op="<=",
        target=2.5,
        note=f"heavy modules: {heavy or 'none'}; {reps} runs each",
        correct=not heavy,
    )
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
