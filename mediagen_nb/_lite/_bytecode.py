"""Bytecode in the site's wheels and stdlib, so the browser's first start compiles no source.

A ``.pyc`` only loads in the CPython that wrote it, so this runs inside the site's own
Pyodide under Node (``precompile.mjs``): standard library only.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import zipfile
from collections.abc import Callable
from importlib._bootstrap_external import (  # type: ignore[attr-defined]  # no stub
    _code_to_hash_pyc,
)

from mediagen_nb import _env

WARM_UP = f"""
import os
os.environ[{_env.HOME!r}] = "/tmp/mediagen-warm-up"
import IPython, ipywidgets, anywidget, comm
import mediagen_nb as mg
mg.Studio(resume=False)
"""
"""What a visitor's first start runs (besides the kernel itself), run once at build time."""
OURS = "mediagen_nb-"
"""File names of our own wheel: every module of it is compiled (but ``NOT_IN_THE_BROWSER``)."""
NOT_IN_THE_BROWSER = ("/mediagen_nb/classroom/", "/mediagen_nb/_lite/")
"""Our packages a browser never runs (servers, the site's build): compiled only if a start
imports them, else they stay source, compiled in the tab if ever imported."""


def pyc_name(name: str, *, beside: bool = False) -> str:
    """Where the import system looks for the bytecode of ``name`` (a path in an archive):
    ``__pycache__`` for a folder on ``sys.path``, beside the source in a zip (``beside``)."""
    if beside:
        return name[:-3] + ".pyc"
    head, _, tail = name.rpartition("/")
    pyc = f"__pycache__/{tail[:-3]}.{sys.implementation.cache_tag}.pyc"
    return f"{head}/{pyc}" if head else pyc


def compiled(name: str, source: bytes) -> bytes | None:
    """The unchecked hash-based pyc of ``source`` (``name``: its path where it runs, for
    tracebacks); None when it does not compile here."""
    try:
        code = compile(source, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), checked=False))


def _module(name: str) -> bool:
    """A module the archive installs (not a script or data file of a wheel)."""
    return name.endswith(".py") and ".data/" not in name


def add_bytecode(
    path: str,
    *,
    root: str = "",
    wanted: Callable[[str], bool] = lambda _where: True,
    beside: bool = False,
    sourceless: bool = False,
) -> int:
    """Add bytecode for the modules of the archive at ``path`` (replaced in place) whose
    path where they run (``root`` + name) is ``wanted``; ``beside`` for a zip on
    ``sys.path``. ``sourceless``: each compiled module's pyc replaces its source, beside it
    (the import system loads a lone ``name.pyc``; tracebacks then show no source line).
    Returns how many pyc files were added (0 when it already had bytecode)."""
    with zipfile.ZipFile(path) as old:
        infos = old.infolist()
        if any(info.filename.endswith(".pyc") for info in infos):
            return 0
        added: list[str] = []
        dropped: set[str] = set()
        record: tuple[zipfile.ZipInfo, bytes] | None = None
        temporary = f"{path}.partial"
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as new:
            for info in infos:
                data = old.read(info)
                if info.filename.endswith(".dist-info/RECORD"):
                    record = (info, data)
                    continue
                where = root + info.filename
                pyc = compiled(where, data) if _module(info.filename) and wanted(where) else None
                if pyc is None or not sourceless:
                    new.writestr(info, data)
                else:
                    dropped.add(info.filename)
                if pyc is not None:
                    name = pyc_name(info.filename, beside=beside or sourceless)
                    entry = zipfile.ZipInfo(name, date_time=info.date_time)
                    new.writestr(entry, pyc, compress_type=zipfile.ZIP_DEFLATED)
                    added.append(name)
            if record is not None:
                info, data = record
                lines = [
                    line
                    for line in data.decode().rstrip("\n").split("\n")
                    if line.rsplit(",", 2)[0] not in dropped
                ]
                lines += [f"{n},," for n in added]
                new.writestr(info, "\n".join(lines) + "\n")
    os.replace(temporary, path)
    return len(added)


def imported_files() -> set[str]:
    """The files of every module imported so far in this Python."""
    return {f for m in list(sys.modules.values()) if (f := getattr(m, "__file__", None))}


def _in_the_browser(where: str, used: set[str]) -> bool:
    return where in used or not any(part in where for part in NOT_IN_THE_BROWSER)


def add_bytecode_to(wheels: list[str], stdlib: str | None) -> dict[str, int]:
    """Bytecode for what this Python imported (after ``WARM_UP``): in each wheel and in the
    stdlib zip at ``stdlib``, in place of the source (``sourceless``); in our own wheel for
    every module a browser may run, beside the source (its tracebacks and ``??`` keep their
    lines). File name -> pyc files added."""
    used = imported_files()
    site = next(p for p in sys.path if p.endswith("site-packages")) + "/"
    done = {}
    for path in wheels:
        name = os.path.basename(path)
        if name.startswith(OURS):
            done[name] = add_bytecode(path, root=site, wanted=lambda w: _in_the_browser(w, used))
        else:
            done[name] = add_bytecode(path, root=site, wanted=used.__contains__, sourceless=True)
    if stdlib is not None:
        zipped = next(p for p in sys.path if p.endswith(".zip")) + "/"
        done[os.path.basename(stdlib)] = add_bytecode(
            stdlib, root=zipped, wanted=used.__contains__, beside=True, sourceless=True
        )
    return done
