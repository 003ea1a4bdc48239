"""``mediagen-nb lite build`` without the network: which wheels the browser gets, the lockfile
that keeps its kernel offline, and the refusals (a foreign output folder, a bad tarball).

The whole build, served and opened in chromium, is ``tests/ui/test_lite.py``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mediagen_nb import cli
from mediagen_nb._lite import _pyodide, _site
from mediagen_nb._lite._bytecode import add_bytecode
from mediagen_nb._lite._wheels import Wheel, closure, lock_entries


def make_wheel(
    folder: Path, name: str, requires: list[str], files: tuple[str, ...] = (), top: str = ""
) -> Path:
    """A minimal wheel: METADATA with ``requires``, the given module files, ``top_level``."""
    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    meta = "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\n{meta}")
        if top:
            archive.writestr(f"{info}/top_level.txt", top)
        for file in files or (f"{name}/__init__.py",):
            archive.writestr(file, "")
    return path


@pytest.fixture
def wheels(tmp_path: Path) -> list[Wheel]:
    paths = [
        make_wheel(
            tmp_path,
            "app",
            [
                "lib>=1",
                "pillow>=10; sys_platform != 'emscripten'",
                "jsfetch; sys_platform == 'emscripten'",
                "web[extra]",
                "widgetsnbextension~=4.0",
            ],
        ),
        make_wheel(tmp_path, "lib", ["typing-extensions; python_version < '3.12'"]),
        make_wheel(tmp_path, "jsfetch", [], files=("jsfetch.py",)),
        make_wheel(tmp_path, "web", ["plus; extra == 'extra'", "devtool; extra == 'dev'"]),
        make_wheel(tmp_path, "plus", [], top="plus\nplus_compat\n"),
        make_wheel(tmp_path, "unused", []),
    ]
    return [Wheel.read(p) for p in paths]


def test_the_browser_gets_what_its_markers_and_extras_ask_for(wheels: list[Wheel]) -> None:
    chosen, missing = closure(wheels, ["app"])
    assert sorted(chosen) == ["app", "jsfetch", "lib", "plus", "web"]
    assert missing == {}  # pillow: not in the browser; widgetsnbextension: served by the site


def test_a_wheel_nobody_downloaded_is_reported_with_who_needs_it(wheels: list[Wheel]) -> None:
    without_jsfetch = [w for w in wheels if w.name != "jsfetch"]
    chosen, missing = closure(without_jsfetch, ["app"])
    assert missing == {"jsfetch": "app 1.0"}
    assert "jsfetch" not in chosen


def test_lock_entries_carry_real_hashes_imports_and_shipped_depends(wheels: list[Wheel]) -> None:
    chosen, _ = closure(wheels, ["app"])
    entries = lock_entries(chosen)
    assert list(entries) == ["app", "jsfetch", "lib", "plus", "web"]
    app = entries["app"]
    assert app["depends"] == ["jsfetch", "lib", "web"]
    assert app["sha256"] == hashlib.sha256(chosen["app"].path.read_bytes()).hexdigest()
    assert app["file_name"] == "app-1.0-py3-none-any.whl"
    assert entries["web"]["depends"] == ["plus"]  # its extra was asked for
    assert entries["jsfetch"]["imports"] == ["jsfetch"]  # a single module
    assert entries["plus"]["imports"] == ["plus", "plus_compat"]  # from top_level.txt
    assert entries["lib"]["depends"] == []  # typing-extensions: not below 3.12 in Pyodide


def test_with_the_cdn_the_lock_adds_pyodides_packages_by_address(
    wheels: list[Wheel], tmp_path: Path
) -> None:
    chosen, _ = closure(wheels, ["app"])
    pyodide_lock = {
        "info": {"abi_version": "2026_0"},
        "packages": {
            "numpy": {"name": "numpy", "file_name": "numpy-2.whl", "depends": []},
            "lib": {"name": "lib", "file_name": "lib-0.1-py3-none-any.whl", "depends": []},
        },
    }
    site = tmp_path / "site"
    cdn = "https://cdn.example/pyodide/v314/full/"
    shipped = _site.write_wheels(chosen, site, pyodide_lock, cdn)
    lock = json.loads((site / "pyodide-lock.json").read_text())
    assert lock["info"] == {"abi_version": "2026_0"}
    assert lock["packages"]["numpy"]["file_name"] == cdn + "numpy-2.whl"
    assert lock["packages"]["lib"]["file_name"] == "lib-1.0-py3-none-any.whl"  # the site's
    assert sorted(p.name for p in site.glob("*.whl")) == list(shipped)
    alone = _site.write_wheels(chosen, tmp_path / "alone", pyodide_lock, None)
    packages = json.loads((tmp_path / "alone" / "pyodide-lock.json").read_text())["packages"]
    assert sorted(packages) == ["app", "jsfetch", "lib", "plus", "web"]
    assert alone == shipped


def test_a_foreign_non_empty_output_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert cli.main(["lite", "build", "--output", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"--output {tmp_path}: the folder is not empty and is no earlier lite build" in err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_an_earlier_build_may_be_replaced(tmp_path: Path) -> None:
    (tmp_path / _site.MARKER).write_text("old build")
    (tmp_path / "index.html").write_text("old")
    _site._check_output(tmp_path)  # no error


def test_a_tarball_that_is_not_the_release_is_removed(tmp_path: Path) -> None:
    fake = tmp_path / f"pyodide-{_pyodide.PYODIDE_VERSION}.tgz"
    fake.write_bytes(b"not pyodide")
    with pytest.raises(RuntimeError, match="is not the published sha512-"):
        _pyodide.fetch_pyodide(tmp_path)
    assert not fake.exists()


def test_lite_build_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["lite", "build"])
    assert "--output" in capsys.readouterr().err


def test_the_lock_records_the_wheels_as_shipped_with_their_bytecode(
    wheels: list[Wheel], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen, _ = closure(wheels, ["app"])
    compiled: list[str] = []

    def precompile(core: Path, folder: Path, names: list[str], log: object) -> None:
        for name in names:  # what the site's Pyodide does, with this Python
            add_bytecode(str(folder / name))
            compiled.append(name)

    monkeypatch.setattr(_site, "precompile", precompile)
    site = tmp_path / "site"
    pyodide_lock: dict[str, Any] = {"info": {}, "packages": {}}
    shipped = _site.write_wheels(chosen, site, pyodide_lock, None, compile_with=tmp_path)
    assert compiled == list(shipped)
    packages = json.loads((site / "pyodide-lock.json").read_text())["packages"]
    for entry in packages.values():
        data = (site / entry["file_name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    for name, wheel in chosen.items():  # the cache keeps the wheels as downloaded
        with zipfile.ZipFile(wheel.path) as archive:
            assert not any(n.endswith(".pyc") for n in archive.namelist()), name


def test_a_compile_step_that_hangs_leaves_the_wheels_source_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def hangs(command: list[str], **options: object) -> None:
        raise subprocess.TimeoutExpired(command, 600)

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/node")
    monkeypatch.setattr(subprocess, "run", hangs)
    said: list[str] = []
    _site.precompile(tmp_path, tmp_path, ["a-1.0-py3-none-any.whl"], said.append)
    assert said == ["compiling the wheels in Pyodide took over 10 minutes; they ship source only"]
