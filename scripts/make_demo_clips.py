"""Write the stock demo clips shipped in ``mediagen_nb/emulator/clips/`` (needs Pillow and av).

Where av cannot be installed (the browser), the emulator serves one of these instead of a
video rendered for the task (``_clips``): one per orientation, 4 s, 12 fps, H.264, made by
the emulator's own renderer. Run at development time; commit the output (about 130 KB).
"""

from __future__ import annotations

from pathlib import Path

from mediagen_nb.emulator._clips import CLIPS
from mediagen_nb.emulator._media import render_mp4

TARGET = Path(__file__).resolve().parent.parent / "mediagen_nb" / "emulator" / "clips"
LINES = ("mediagen_nb emulator", "a stock preview clip: video cannot be encoded here")


def main() -> None:
    TARGET.mkdir(exist_ok=True)
    for name, (width, height) in CLIPS.items():
        data = render_mp4(width, height, 4.0, fps=12, title="Demo video", lines=LINES)
        (TARGET / f"{name}.mp4").write_bytes(data)
        print(f"{name}.mp4: {width}x{height}, {len(data) / 1000:.0f} KB")


if __name__ == "__main__":
    main()
