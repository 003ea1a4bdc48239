"""Write the stock demo clips shipped in ``mediagen_nb/emulator/clips/`` (needs Pillow and av).

Where av cannot be installed (the browser), the emulator serves one of these instead of a
video rendered for the task (``_clips``): one per orientation, 4 s, 12 fps, H.264, made by
the emulator's own renderer, with each clip's first and last frames as PNGs (decoded by
PyAV, compressed by Pillow). Run at development time; commit the output (about 430 KB).
``--frames`` writes only the PNGs, from the clips already committed.
"""

from __future__ import annotations

import sys
from io import BytesIO
from pathlib import Path

from PIL import Image

from mediagen_nb.client._frames import frame_png
from mediagen_nb.emulator._clips import CLIPS
from mediagen_nb.emulator._media import render_mp4

TARGET = Path(__file__).resolve().parent.parent / "mediagen_nb" / "emulator" / "clips"
LINES = ("mediagen_nb emulator", "a stock preview clip: video cannot be encoded here")


def main() -> None:
    TARGET.mkdir(exist_ok=True)
    for name, (width, height) in CLIPS.items():
        if "--frames" in sys.argv[1:]:
            write_frames(name, (TARGET / f"{name}.mp4").read_bytes())
            continue
        data = render_mp4(width, height, 4.0, fps=12, title="Demo video", lines=LINES)
        (TARGET / f"{name}.mp4").write_bytes(data)
        print(f"{name}.mp4: {width}x{height}, {len(data) / 1000:.0f} KB")
        write_frames(name, data)


def write_frames(name: str, data: bytes) -> None:
    """``name.first.png`` and ``name.last.png`` beside the clip (the browser reads them)."""
    for which in ("first", "last"):
        out = BytesIO()
        Image.open(BytesIO(frame_png(data, which))).save(out, "PNG", optimize=True)
        (TARGET / f"{name}.{which}.png").write_bytes(out.getvalue())
        print(f"{name}.{which}.png: {len(out.getvalue()) / 1000:.0f} KB")


if __name__ == "__main__":
    main()
