"""CPU cost of the emulator's media rendering against the issue's targets.

Prints the median CPU milliseconds (``time.process_time``, all threads) of rendering a
1024x1024 PNG and a 5 s 480x270 MP4 preview, each with its ratio to the target (50 ms and
1000 ms); then the pure-Python paths used where Pillow is missing (the browser): the same
PNG drawn by ``_png_scene`` and a 512 px thumbnail of it by ``_png`` (targets 250 ms and
100 ms here on CPython; Pyodide runs the same code about 2-3x slower). Exits 1 when a
median misses its target. Run: ``python bench/bench_media.py``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mediagen_nb import _png
from mediagen_nb.emulator import _png_scene
from mediagen_nb.emulator._media import render_mp4, render_png, video_pixels

TITLE = "A watercolor fox sitting under a cherry tree at dawn, soft light, highly detailed"
LINES = ["model: nano-banana-pro", "resolution: 1k, size: 1:1", "emulator preview"]


def cpu_ms(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(first call, median of the following calls) in CPU milliseconds."""
    samples = []
    for _ in range(repeat + 1):
        start = time.process_time()
        work()
        samples.append((time.process_time() - start) * 1000)
    return samples[0], statistics.median(samples[1:])


def main() -> int:
    width, height = video_pixels("16:9")
    cases = [
        ("png 1024x1024", 50.0, lambda: render_png(1024, 1024, title=TITLE, lines=LINES), 15),
        (
            f"mp4 5 s {width}x{height} @12fps",
            1000.0,
            lambda: render_mp4(width, height, 5, fps=12, title=TITLE, lines=LINES),
            5,
        ),
    ]
    pure = _png_scene.render_png(1024, 1024, title=TITLE, lines=LINES)
    cases += [
        (
            "png 1024x1024 pure Python",
            250.0,
            lambda: _png_scene.render_png(1024, 1024, title=TITLE, lines=LINES),
            7,
        ),
        ("thumbnail 512 px pure Python", 100.0, lambda: _png.thumbnail_png(pure, 512), 7),
    ]
    ok = True
    for name, target, work, repeat in cases:
        first, median = cpu_ms(work, repeat)
        ratio = median / target
        verdict = "ok" if ratio <= 1 else "MISSED"
        print(
            f"{name:28s} median {median:7.1f} ms CPU (first {first:6.1f})  "
            f"target {target:6.0f} ms  ratio {ratio:4.2f}  {verdict}"
        )
        ok = ok and ratio <= 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
