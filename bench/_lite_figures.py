"""Figures of the in-browser playground, measured by its browser test, printed by the bench.

``tests/ui/test_lite.py`` builds the site with ``mediagen-nb lite build``, opens it in
chromium and measures: the site's size on disk, what the visitor's browser downloaded (bytes
the test's server sent) until the Studio was ready and the journey done, the cold load to a
ready Studio and Generate to a decoded picture. It writes them here (a JSON file outside the
checkout: ``$MEDIAGEN_BENCH_DIR`` or ``~/.cache/mediagen_nb/bench``); ``python -m bench``
prints them under its table (never gating, like every timing of the quick mode), and so does
``scripts/test`` after its pytest run. Running the same flow a second time in the benchmark
would double a minute of browser work for the same numbers.

``python bench/_lite_figures.py`` prints the last measurement.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

KEYS = ("site_mb", "downloaded_mb", "requests", "cold_load_s", "generate_s")
SECOND_VISIT = ("compressed_mb", "second_load_s", "second_downloaded_mb")
"""Measured by the visitor's test, when it has run: the first visit from a host that gzips
text and WebAssembly, and a second load in the same browser."""


def results_path() -> Path:
    """Where the browser test writes and the bench reads the figures."""
    chosen = os.environ.get("MEDIAGEN_BENCH_DIR")
    base = Path(chosen) if chosen else Path("~/.cache/mediagen_nb/bench")
    return base.expanduser().absolute() / "lite.json"


def record(**figures: float) -> Path:
    """Save one measurement: every key of ``KEYS``, or of ``SECOND_VISIT`` (added to the
    last measurement), stamped with the time."""
    second = set(figures) == set(SECOND_VISIT)
    wanted = SECOND_VISIT if second else KEYS
    missing = [k for k in wanted if k not in figures]
    if missing:
        raise ValueError(f"lite figures: missing {', '.join(missing)}")
    path = results_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = json.loads(path.read_text()) if second and path.exists() else {}
    data.update({k: float(figures[k]) for k in wanted})
    data["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    path.write_text(json.dumps(data, indent=1))
    return path


def summary() -> str:
    """The printed lines: the last measurement, or how to make one."""
    path = results_path()
    if not path.exists():
        return (
            "In-browser playground (JupyterLite): not measured on this machine yet "
            "(pytest -m ui tests/ui/test_lite.py measures it)"
        )
    data = json.loads(path.read_text())
    lines = [f"In-browser playground (JupyterLite, measured by tests/ui, {data['measured']}):"]
    if "site_mb" in data:
        lines += [
            f"  site size {data['site_mb']:.1f} MB; a visitor downloaded "
            f"{data['downloaded_mb']:.1f} MB in {data['requests']:.0f} requests",
            f"  cold load to a ready Studio {data['cold_load_s']:.1f} s; "
            f"Generate -> picture {data['generate_s']:.1f} s",
        ]
    if "second_load_s" in data:
        lines.append(
            f"  from a host that gzips text and WebAssembly: a visitor downloaded "
            f"{data['compressed_mb']:.1f} MB until the Studio was ready"
        )
        lines.append(
            f"  second visit (same browser, its cache): ready in {data['second_load_s']:.1f} s,"
            f" {data['second_downloaded_mb']:.2f} MB downloaded"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary())
    sys.exit(0)
