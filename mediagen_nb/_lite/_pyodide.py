"""Pyodide's core for the static site: the npm package ``pyodide``, fetched once and cached.

The tarball's sha512 is checked against the integrity the registry published for this
version, so a cached or mirrored copy is exactly that release.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Any

PYODIDE_VERSION = "314.0.7"
"""Python 3.14 in the browser; jupyterlite-pyodide-kernel 0.8.6 is made for the 314 series."""
PYODIDE_INTEGRITY = (
    "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMc"
    "Wkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
)
"""``dist.integrity`` of ``pyodide@314.0.7`` on the npm registry."""
PLATFORM = "pyemscripten_2026_0_wasm32"
"""The wheel platform tag of this Pyodide's ABI (``info.abi_version`` of its lockfile)."""
PYTHON_VERSION = "3.14"
CORE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
"""What the site needs from the package (no source maps, typings or demo consoles)."""


def _integrity(path: Path) -> str:
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode()


def fetch_pyodide(cache: Path) -> Path:
    """The verified npm tarball of Pyodide in ``cache`` (fetched with ``npm pack`` once)."""
    cache.mkdir(parents=True, exist_ok=True)
    tarball = cache / f"pyodide-{PYODIDE_VERSION}.tgz"
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError(
                "npm is needed once to fetch Pyodide (the npm package `pyodide`): install "
                "Node.js and npm, or put pyodide-"
                f"{PYODIDE_VERSION}.tgz into {cache}"
            )
        done = subprocess.run(
            [npm, "pack", f"pyodide@{PYODIDE_VERSION}", "--pack-destination", str(cache)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not tarball.exists():
            raise RuntimeError(f"npm pack pyodide@{PYODIDE_VERSION} failed:\n{done.stderr}")
    found = _integrity(tarball)
    if found != PYODIDE_INTEGRITY:
        tarball.unlink()
        raise RuntimeError(
            f"{tarball.name}: integrity {found} is not the published {PYODIDE_INTEGRITY}; "
            "the file was removed, run the build again"
        )
    return tarball


def unpack_core(
    tarball: Path, destination: Path, names: tuple[str, ...] = CORE_FILES
) -> dict[str, Any]:
    """Copy ``names`` (the core files) into ``destination``; return the package's lockfile
    (all of Pyodide's packages, as its CDN serves them)."""
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball, "r:gz") as archive:
        for name in names:
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise RuntimeError(f"{tarball.name} has no package/{name}")
            (destination / name).write_bytes(member.read())
    lock: dict[str, Any] = json.loads((destination / "pyodide-lock.json").read_text())
    return lock
