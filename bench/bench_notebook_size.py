"""Figure 9: ``00-playground.ipynb`` executed, 20 images generated, saved: file <= 1 MB.

The playground notebook is executed with ``nbclient`` (``store_widget_state=True``, as
``jupyter nbconvert --execute`` does), in demo mode (no key: the built-in emulator in the
kernel) with one extra cell appended that does what a visitor does: fill the Studio's image
form (``ImagePanel.load``) and press Generate 20 times (``generate()``), then wait for the
20 tasks, previews included. The notebook is written to a temporary file and its size is
the figure; the baseline is the 1 MB limit (ratio = bytes / 1 MB, target <= 1). The note
splits the size into widget state and the rest. ``--quick``: 5 images.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, Figure, finish, parse_args
from nbclient import NotebookClient

nbformat: Any = importlib.import_module("nbformat")  # untyped package
LIMIT = 1_000_000
NOTEBOOK = ROOT / "notebooks" / "00-playground.ipynb"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def generate_cell(images: int) -> str:
    """The appended cell: Generate pressed ``images`` times on the Studio shown above."""
    return (
        "import asyncio\n"
        "studio = _  # the Studio displayed by the cell above\n"
        "panel = studio.images\n"
        'panel.load({"model": "nano-banana-pro", "prompt": "a watercolor fox under a '
        'cherry tree"}, "banana")\n'
        f"runs = [panel.generate() for _ in range({images})]\n"
        "cards = await asyncio.gather(*runs)\n"
        "assert all(card is not None and card.status == 'completed' for card in cards), "
        "[(c and c.status) for c in cards]\n"
        "assert not panel.errors, panel.errors\n"
        "print(len(cards), 'images', sum(len(c.thumbnail) for c in cards), 'thumbnail bytes')\n"
    )


def run(images: int, folder: Path) -> tuple[int, int, str]:
    """Execute and save the notebook; (file bytes, widget-state bytes, cell output)."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(generate_cell(images)))
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        store_widget_state=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    target = folder / "00-playground.executed.ipynb"
    nbformat.write(notebook, target)
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {})
    outputs = notebook.cells[-1].get("outputs", [])
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    return target.stat().st_size, len(json.dumps(state)), text.strip()


def main() -> int:
    args = parse_args(__doc__ or "")
    images = 5 if args.quick else 20
    for name in ("MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL"):
        os.environ.pop(name, None)  # demo mode: the kernel uses the built-in emulator
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p
    )
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEDIAGEN_HOME"] = str(Path(tmp) / "home")
        start = time.perf_counter()
        size, state, output = run(images, Path(tmp))
        elapsed = time.perf_counter() - start
    print(f"executed with {images} generated images in {elapsed:.1f} s: {output}")
    print(f"file {size} bytes, of which widget state {state} bytes")
    figure = Figure(
        id="notebook_size",
        ours=size / 1e6,
        unit="MB",
        baseline=LIMIT / 1e6,
        baseline_unit="MB allowed",
        ratio=size / LIMIT,
        op="<=",
        target=1.0,
        note=f"{images} images; widget state {state / 1e6:.3f} MB",
        correct=output.startswith(f"{images} images"),
    )
    return finish(figure, args.quick)


if __name__ == "__main__":
    sys.exit(main())
