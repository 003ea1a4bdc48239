"""The wheels the in-browser kernel installs, and the lockfile that keeps it offline.

pip downloads them for the browser's platform; the site's ``pyodide-lock.json`` lists exactly
the shipped wheels (sha256, import names, dependencies), so nothing is looked up elsewhere.
"""

from __future__ import annotations

import email.parser
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name, parse_wheel_filename

from mediagen_nb._lite._pyodide import PLATFORM, PYTHON_VERSION
from mediagen_nb._lite._tracked import export_tracked

KERNEL_PACKAGES = ("ipython", "comm", "jedi", "micropip")
"""What the Pyodide kernel installs while it starts (``ipykernel`` and ``pyodide-kernel``
themselves come from the kernel extension's own wheels, ``micropip`` from Pyodide's lock)."""
NOT_IN_THE_KERNEL = frozenset({"widgetsnbextension", "jupyterlab-widgets"})
"""Front-end assets packaged as wheels: the site serves the widget front ends itself, and
nothing in the kernel imports these."""


def browser_environment(extra: str = "") -> dict[str, str]:
    """Marker values of Pyodide's Python (PEP 508), for requirements read from metadata."""
    env: dict[str, str] = {str(k): str(v) for k, v in default_environment().items()}
    env.update(
        sys_platform="emscripten",
        platform_system="Emscripten",
        platform_machine="wasm32",
        os_name="posix",
        implementation_name="cpython",
        platform_python_implementation="CPython",
        python_version=PYTHON_VERSION,
        python_full_version=f"{PYTHON_VERSION}.0",
        platform_release="",
        extra=extra,
    )
    return env


@dataclass
class Wheel:
    """One wheel file and what its metadata says."""

    path: Path
    name: NormalizedName
    version: str
    requires: list[Requirement] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)
    extras: set[str] = field(default_factory=set)
    """Extras of this package some shipped requirement asks for (their needs are shipped)."""

    @classmethod
    def read(cls, path: Path) -> Wheel:
        name, version, _build, _tags = parse_wheel_filename(path.name)
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
            meta = email.parser.Parser().parsestr(archive.read(meta_name).decode())
            top_level = [n for n in names if n.endswith(".dist-info/top_level.txt")]
            if top_level:
                imports = archive.read(top_level[0]).decode().split()
            else:
                imports = _import_names(names)
        requires = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
        return cls(path, name, str(version), requires, sorted(set(imports)))

    def needs(self, extras: frozenset[str] = frozenset()) -> list[Requirement]:
        """Requirements that apply in the browser (with ``extras`` of this package)."""
        out = []
        for req in self.requires:
            if req.marker is None or any(
                req.marker.evaluate(browser_environment(extra)) for extra in {"", *extras}
            ):
                out.append(req)
        return out


def _import_names(names: list[str]) -> list[str]:
    """Top-level modules and packages of a wheel without ``top_level.txt``."""
    found = set()
    for name in names:
        first = name.split("/", 1)[0]
        if first.endswith((".dist-info", ".data")):
            continue
        if "/" in name or first.endswith(".py"):
            found.add(first.removesuffix(".py"))
    return sorted(f for f in found if f.isidentifier())


def project_wheel(root: Path, destination: Path, log: Callable[[str], None] = print) -> Path:
    """A wheel of the files git tracks in the checkout at ``root`` (``_tracked``), built by
    hatchling without build isolation (offline); ``log`` gets the list of what it holds.
    """
    destination.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mediagen-tracked-") as scratch:
        source = Path(scratch) / "src"
        _copied, left_out = export_tracked(root, source)
        command = [
            sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
            "--quiet", "--wheel-dir", str(destination), str(source),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(destination.glob("mediagen_nb-*.whl"))
    if done.returncode != 0 or not wheels:
        raise RuntimeError(f"building the project's wheel failed:\n{done.stderr[-3000:]}")
    for name in left_out:
        log(f"  left out of the wheel (a link out of the tracked files, or missing): {name}")
    with zipfile.ZipFile(wheels[-1]) as archive:
        held = [i for i in archive.infolist() if not i.is_dir()]
    log(f"{wheels[-1].name} holds {len(held)} files (tracked by git only):")
    for item in held:
        log(f"  {item.filename} ({item.file_size:,} bytes)")
    return wheels[-1]


def download(requirements: list[str], cache: Path) -> list[Path]:
    """Wheels for ``requirements`` and everything they need, for Pyodide's platform.

    A set once downloaded is remembered in ``cache`` (a manifest per set of requirements),
    so a rebuild with the same requirements needs no network.
    """
    key = hashlib.sha256(json.dumps([PLATFORM, *sorted(requirements)]).encode()).hexdigest()
    folder = cache / "wheels"
    manifest = cache / "sets" / f"{key[:16]}.json"
    if manifest.exists():
        files = [folder / name for name in json.loads(manifest.read_text())]
        if all(f.exists() for f in files):
            return files
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable, "-m", "pip", "download", "--only-binary=:all:",
            "--python-version", PYTHON_VERSION, "--implementation", "cp",
            "--abi", "cp" + PYTHON_VERSION.replace(".", ""), "--platform", PLATFORM,
            "--dest", scratch, "--progress-bar", "off", "--quiet", *requirements,
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(
                f"pip found no browser wheels (Pyodide, {PLATFORM}) for all of: "
                f"{' '.join(requirements)}\n{done.stderr[-3000:]}"
            )
        folder.mkdir(parents=True, exist_ok=True)
        names = sorted(p.name for p in Path(scratch).glob("*.whl"))
        for name in names:
            shutil.copyfile(Path(scratch) / name, folder / name)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(names))
    return [folder / name for name in names]


def closure(wheels: list[Wheel], roots: list[str]) -> tuple[dict[str, Wheel], dict[str, str]]:
    """The wheels ``roots`` need in the browser, by name (extras of requirements included),
    and the requirements no given wheel has (each with who needs it): pip resolved on this
    machine's markers, so a dependency only the browser needs (``sys_platform ==
    "emscripten"``) is missing until it is downloaded too. The packages in
    ``NOT_IN_THE_KERNEL`` are left out on purpose.
    """
    by_name = {w.name: w for w in wheels}
    chosen: dict[str, Wheel] = {}
    missing: dict[str, str] = {}
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    todo = [(Requirement(r), "the site") for r in roots]
    while todo:
        req, wanted_by = todo.pop()
        name = canonicalize_name(req.name)
        extras = frozenset(req.extras)
        if name in NOT_IN_THE_KERNEL or (name, extras) in seen:
            continue
        seen.add((name, extras))
        wheel = by_name.get(name)
        if wheel is None:
            missing[requirement_text(req)] = wanted_by
            continue
        chosen[name] = wheel
        wheel.extras |= extras
        todo.extend((r, f"{wheel.name} {wheel.version}") for r in wheel.needs(extras))
    return chosen, missing


def requirement_text(req: Requirement) -> str:
    """``req`` without its marker (it was evaluated for the browser already)."""
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return f"{req.name}{extras}{req.specifier}"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lock_entries(chosen: dict[str, Wheel]) -> dict[str, dict[str, Any]]:
    """``pyodide-lock.json`` entries for the chosen wheels (files beside the lockfile)."""
    entries: dict[str, dict[str, Any]] = {}
    for name, wheel in sorted(chosen.items()):
        depends = sorted(
            {
                canonicalize_name(r.name)
                for r in wheel.needs(frozenset(wheel.extras))
                if canonicalize_name(r.name) in chosen
            }
        )
        entries[name] = {
            "name": name,
            "version": wheel.version,
            "file_name": wheel.path.name,
            "install_dir": "site",
            "sha256": _sha256(wheel.path),
            "package_type": "package",
            "imports": wheel.imports,
            "depends": depends,
            "unvendored_tests": False,
            "shared_library": False,
        }
    return entries
