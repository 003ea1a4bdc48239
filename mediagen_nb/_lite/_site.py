"""``mediagen-nb lite build``: the playground as a static site, Python running in each tab.

A JupyterLite build that serves every file it needs itself (its apps, the widget front ends,
Pyodide's core and every wheel), so a visitor's browser asks no other host for anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from mediagen_nb import _env
from mediagen_nb._lite._pyodide import PYODIDE_VERSION, fetch_pyodide, unpack_core
from mediagen_nb._lite._slim import slim
from mediagen_nb._lite._wheels import (
    KERNEL_PACKAGES,
    Wheel,
    closure,
    download,
    lock_entries,
    project_wheel,
    requirement_text,
)

NOTEBOOKS = (
    "00-playground.ipynb",
    "01-getting-started.ipynb",
    "02-images.ipynb",
    "03-videos.ipynb",
    "04-chat.ipynb",
    "05-assets.ipynb",
)
"""The notebooks the site carries (06-classroom and 07-classroom-gateway run servers: not in
a browser)."""
PLAYGROUND = NOTEBOOKS[0]
KERNEL_SPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
"""The Pyodide kernel's name in JupyterLite (the notebooks say ``python3``)."""
STUDIO_CODE = "import mediagen_nb as mg\nmg.Studio()"
"""What the landing page's REPL runs (the playground notebook's code cell)."""
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
EXTENSIONS = (
    "@jupyterlite/pyodide-kernel-extension",
    "@jupyter-widgets/jupyterlab-manager",
    "anywidget",
)
"""The only federated extensions the site carries (not every one installed beside it)."""
APPS = ("lab", "repl")
SITE_PYODIDE = "static/pyodide"
"""Where the site keeps Pyodide's core (unless from the CDN), its wheels and its lockfile."""
LOCK = "pyodide-lock.json"
ROUNDS = 4
"""Downloads at most: each adds what only the browser needs (pip resolves on this machine)."""
MARKER = ".mediagen-lite"
"""A file in every built site: an existing folder with it may be replaced by a new build."""
FAVICON = "favicon.svg"
"""The site's icon (the landing page links it; committed beside ``landing.html``)."""


@dataclass(frozen=True)
class Site:
    """What a build made."""

    output: Path
    files: int
    bytes: int
    wheels: tuple[str, ...]
    """File names of the wheels the kernel can load (the site's lockfile)."""


def default_cache() -> Path:
    """``$MEDIAGEN_LITE_CACHE``, else ``$XDG_CACHE_HOME/mediagen_nb/lite`` (``~/.cache``)."""
    chosen = os.environ.get(_env.LITE_CACHE)
    if chosen:
        return Path(chosen).expanduser().absolute()
    base = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return Path(base).expanduser().absolute() / "mediagen_nb" / "lite"


def project_root() -> Path:
    """The checkout this package runs from (its notebooks and pyproject.toml)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "pyproject.toml").is_file() or not (root / "notebooks").is_dir():
        raise RuntimeError(
            f"lite build needs the project's source (pyproject.toml and notebooks/ in {root}):"
            " run it from a checkout installed with pip install -e '.[lite]'"
        )
    return root


def _check_output(output: Path) -> None:
    if output.exists() and not output.is_dir():
        raise RuntimeError(f"--output {output}: is a file, not a folder")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).exists():
        raise RuntimeError(
            f"--output {output}: the folder is not empty and is no earlier lite build; "
            "choose an empty or new folder"
        )


def choose_wheels(
    root: Path, cache: Path, scratch: Path, micropip: str, log: Callable[[str], None] = print
) -> dict[str, Wheel]:
    """The project's wheel and every wheel it and the kernel need in the browser."""
    ours = Wheel.read(project_wheel(root, scratch / "dist", log))
    wanted = [requirement_text(r) for r in ours.needs()]
    wanted += [f"micropip=={micropip}" if p == "micropip" else p for p in KERNEL_PACKAGES]
    for _round in range(ROUNDS):
        wheels = [Wheel.read(path) for path in download(wanted, cache)] + [ours]
        chosen, missing = closure(wheels, [ours.name, *KERNEL_PACKAGES])
        if not missing:
            return chosen
        wanted += sorted(missing)
    needed = "; ".join(f"{who} needs {req}" for req, who in missing.items())
    raise RuntimeError(f"no browser wheels for what the site needs: {needed}")


def write_wheels(
    chosen: dict[str, Wheel],
    folder: Path,
    pyodide_lock: dict[str, Any],
    cdn: str | None,
    *,
    compile_with: Path | None = None,
    log: Callable[[str], None] = print,
) -> tuple[str, ...]:
    """Copy the chosen wheels into ``folder`` (cut by ``_slim``) and write its
    ``pyodide-lock.json``: exactly
    those wheels, or with ``cdn`` (a URL ending in ``/``) also every package of Pyodide's own
    lockfile, fetched from there (the site's wheels win where both have a package).
    ``compile_with``: a folder with Pyodide's core, whose Python adds bytecode to the copies
    (``precompile``) before the lockfile records their sha256."""
    folder.mkdir(parents=True, exist_ok=True)
    shipped = {}
    for name, wheel in chosen.items():
        shutil.copyfile(wheel.path, folder / wheel.path.name)
        shipped[name] = replace(wheel, path=folder / wheel.path.name)
    saved = sum(slim(wheel.path) for wheel in shipped.values())
    if saved:
        log(f"left out of jedi's and Pygments' wheels (never reached in the browser): {saved:,} B")
    if compile_with is not None:
        precompile(compile_with, folder, sorted(w.path.name for w in shipped.values()), log)
    packages: dict[str, dict[str, Any]] = {}
    if cdn is not None:
        for name, entry in pyodide_lock["packages"].items():
            packages[name] = {**entry, "file_name": cdn + entry["file_name"]}
    packages.update(lock_entries(shipped))
    lock = {"info": pyodide_lock["info"], "packages": packages}
    (folder / "pyodide-lock.json").write_text(json.dumps(lock, indent=1))
    return tuple(sorted(w.path.name for w in chosen.values()))


def precompile(core: Path, folder: Path, names: list[str], log: Callable[[str], None]) -> None:
    """Add bytecode to the wheels ``names`` in ``folder``, compiled by the Pyodide whose core
    is in ``core`` under Node (``_bytecode``, ``precompile.mjs``), and to that core's stdlib
    zip when the site serves it (``core`` is ``folder``): the browser then skips compiling
    what a start imports. Without Node, or when it fails, they stay source only (the site
    works the same, its first start is slower) and the log says so."""
    node = shutil.which("node")
    if node is None:
        log("no node on PATH: the wheels ship source only (the browser compiles it)")
        return
    here = Path(__file__).resolve().parent
    command = [
        node, str(here / "precompile.mjs"), str(core), str(folder), str(here / "_bytecode.py"),
        "yes" if core == folder else "no", *names,
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    except subprocess.TimeoutExpired:
        log("compiling the wheels in Pyodide took over 10 minutes; they ship source only")
        return
    if done.returncode != 0:
        log(
            f"compiling the wheels in Pyodide failed; they ship source only:\n{done.stderr[-2000:]}"
        )
        return
    added: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    log(f"bytecode for {sum(added.values())} modules in {len(added)} archives (by Pyodide)")


def cdn_url() -> str:
    """Pyodide's CDN folder of this release (the address the Pyodide kernel itself knows)."""
    from jupyterlite_pyodide_kernel import constants

    url = str(constants.PYODIDE_CDN_URL)
    return url.replace(str(constants.PYODIDE_VERSION), PYODIDE_VERSION) + "/"


def _use_cdn(site: Path, cdn: str) -> None:
    """Point the kernel at Pyodide on its CDN and at the site's own lockfile."""
    path = site / "jupyter-lite.json"
    config = json.loads(path.read_text())
    kernel = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    kernel["pyodideUrl"] = cdn + "pyodide.mjs"
    kernel.setdefault("loadPyodideOptions", {})["lockFileURL"] = f"./{SITE_PYODIDE}/{LOCK}"
    path.write_text(json.dumps(config, indent=1))


def _copy_notebooks(root: Path, contents: Path) -> None:
    contents.mkdir(parents=True)
    for name in NOTEBOOKS:
        notebook = json.loads((root / "notebooks" / name).read_text())
        notebook["metadata"]["kernelspec"] = KERNEL_SPEC
        (contents / name).write_text(json.dumps(notebook, indent=1) + "\n")


def _extension_folders() -> list[str]:
    from jupyter_core.paths import jupyter_path

    folders = []
    for name in EXTENSIONS:
        found = [Path(p) / name for p in jupyter_path("labextensions")]
        found = [f for f in found if (f / "package.json").is_file()]
        if not found:
            raise RuntimeError(
                f"the JupyterLab extension {name} is not installed: pip install -e '.[lite]'"
            )
        folders.append(str(found[0]))
    return folders


def _lite_config(lite_dir: Path) -> None:
    """JupyterLite's build configuration and the site's ``jupyter-lite.json``."""
    build = {
        "LiteBuildConfig": {
            "apps": list(APPS),
            "contents": ["contents"],
            "ignore_sys_prefix": ["federated_extensions"],
            "federated_extensions": _extension_folders(),
            "no_sourcemaps": True,
            "no_unused_shared_packages": True,
        },
    }
    (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(build, indent=1))
    kernel: dict[str, Any] = {"disablePyPIFallback": True}
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "mediagen_nb playground",
            "enableServiceWorkerCache": True,  # the same worker address as landing.html's
            "litePluginSettings": {KERNEL_PLUGIN: kernel},
        },
    }
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=1))


def _run_jupyter_lite(lite_dir: Path, output: Path, log: Callable[[str], None]) -> None:
    command = [
        sys.executable, "-m", "jupyter", "lite", "build",
        "--lite-dir", str(lite_dir), "--output-dir", str(output),
    ]  # fmt: skip
    log("running jupyter lite build")
    done = subprocess.run(
        command, cwd=lite_dir, capture_output=True, text=True, check=False, env=os.environ.copy()
    )
    if done.returncode != 0:
        raise RuntimeError(f"jupyter lite build failed:\n{(done.stdout + done.stderr)[-4000:]}")


def _landing(output: Path) -> None:
    package = resources.files("mediagen_nb._lite")
    page = package.joinpath("landing.html").read_text()
    page = page.replace("{{STUDIO_CODE}}", json.dumps(STUDIO_CODE))
    page = page.replace("{{PLAYGROUND}}", PLAYGROUND)
    (output / "index.html").write_text(page)
    (output / FAVICON).write_bytes(package.joinpath(FAVICON).read_bytes())
    (output / MARKER).write_text(f"mediagen-nb lite build (Pyodide {PYODIDE_VERSION})\n")


def _service_worker(output: Path) -> str:
    """Our service worker in place of JupyterLite's (``service-worker.js``): its cache is named
    after a digest of every file of the site, so a new build starts a new cache."""
    digest = hashlib.sha256()
    for path in sorted(p for p in output.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(output)).encode() + b"\0" + path.read_bytes())
    cache = f"mediagen-lite-{digest.hexdigest()[:16]}"
    script = resources.files("mediagen_nb._lite").joinpath("service-worker.js").read_text()
    (output / "service-worker.js").write_text(script.replace("{{CACHE}}", cache))
    return cache


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def build_site(
    output: Path,
    *,
    cache: Path | None = None,
    pyodide_cdn: bool = False,
    precompile_wheels: bool = True,
    log: Callable[[str], None] = print,
) -> Site:
    """Build the static playground into ``output`` (created, or an earlier build replaced).

    ``pyodide_cdn``: Pyodide's core and its whole package set (numpy, pandas, Pillow...)
    come from Pyodide's CDN, so the site needs internet; the project's wheels are still
    served by the site. ``precompile_wheels``: ship the wheels with bytecode compiled by
    that Pyodide (``precompile``), so a visitor's first start does not compile the source.
    """
    output = output.expanduser().absolute()
    _check_output(output)
    root = project_root()
    cache = cache or default_cache()
    with tempfile.TemporaryDirectory(prefix="mediagen-lite-") as scratch_name:
        scratch = Path(scratch_name)
        lite_dir = scratch / "lite"
        log(f"Pyodide {PYODIDE_VERSION} and wheels (cache: {cache})")
        tarball = fetch_pyodide(cache / "pyodide")
        # the core compiles the wheels (``precompile``); the CDN's core is the same release
        core = scratch / "pyodide" if pyodide_cdn else lite_dir / SITE_PYODIDE
        pyodide_lock = unpack_core(tarball, core)
        micropip = pyodide_lock["packages"]["micropip"]["version"]
        chosen = choose_wheels(root, cache, scratch, micropip, log)
        compile_with = core if precompile_wheels else None
        if not pyodide_cdn:  # the well-known folder: JupyterLite serves it, the kernel uses it
            wheels = write_wheels(
                chosen, core, pyodide_lock, None, compile_with=compile_with, log=log
            )
        _copy_notebooks(root, lite_dir / "contents")
        _lite_config(lite_dir)
        built = scratch / "site"
        _run_jupyter_lite(lite_dir, built, log)
        if pyodide_cdn:
            wheels = write_wheels(
                chosen, built / SITE_PYODIDE, pyodide_lock, cdn_url(),
                compile_with=compile_with, log=log,
            )  # fmt: skip
            _use_cdn(built, cdn_url())
        _landing(built)
        _service_worker(built)
        if output.exists():
            shutil.rmtree(output)
        shutil.copytree(built, output)
    files, size = _size(output)
    return Site(output=output, files=files, bytes=size, wheels=wheels)
