"""Bytecode added to a wheel (``mediagen_nb._lite._bytecode``), tried with this CPython: the
site's build runs the same code in the site's own Pyodide (``precompile.mjs``)."""

from __future__ import annotations

import importlib
import sys
import zipfile
from pathlib import Path

import pytest

from mediagen_nb._lite._bytecode import _in_the_browser, add_bytecode, pyc_name

TAG = sys.implementation.cache_tag


def _wheel(folder: Path) -> Path:
    path = folder / "lumen-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("lumen_pkg/__init__.py", "FROM = 'the source'\n")
        archive.writestr("lumen_pkg/old.py", "print 'python 2'\n")
        archive.writestr("lumen-1.0.data/scripts/tool.py", "X = 1\n")
        archive.writestr("lumen-1.0.dist-info/METADATA", "Name: lumen\nVersion: 1.0\n")
        archive.writestr("lumen-1.0.dist-info/RECORD", "lumen_pkg/__init__.py,sha256=x,21\n")
    return path


def test_each_module_gets_its_pyc_and_the_record_lists_it(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path)
    assert add_bytecode(str(wheel)) == 1  # old.py does not compile here; scripts are not modules
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        record = archive.read("lumen-1.0.dist-info/RECORD").decode().splitlines()
    pyc = f"lumen_pkg/__pycache__/__init__.{TAG}.pyc"
    assert [n for n in names if n.endswith(".pyc")] == [pyc]
    assert "lumen_pkg/old.py" in names  # left as source
    assert record == ["lumen_pkg/__init__.py,sha256=x,21", f"{pyc},,"]
    assert add_bytecode(str(wheel)) == 0  # a second run changes nothing


def test_the_import_system_uses_the_pyc_without_checking_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _wheel(tmp_path)
    add_bytecode(str(wheel))
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    (site / "lumen_pkg" / "__init__.py").write_text("FROM = 'changed after the build'\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "lumen_pkg", raising=False)
    module = importlib.import_module("lumen_pkg")
    try:
        assert module.FROM == "the source"  # the unchecked pyc, not a fresh compile
    finally:
        del sys.modules["lumen_pkg"]


def test_pyc_names_follow_the_import_system() -> None:
    assert pyc_name("a/b/c.py") == f"a/b/__pycache__/c.{TAG}.pyc"
    assert pyc_name("top.py") == f"__pycache__/top.{TAG}.pyc"


def test_a_zip_on_sys_path_gets_pyc_beside_only_for_wanted_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stdlib = tmp_path / "stdlib.zip"
    with zipfile.ZipFile(stdlib, "w") as archive:
        archive.writestr("lumen_zip/__init__.py", "FROM = 'the source'\n")
        archive.writestr("lumen_zip/unused.py", "X = 1\n")
    root = f"{stdlib}/"
    wanted = {root + "lumen_zip/__init__.py"}
    assert add_bytecode(str(stdlib), root=root, wanted=wanted.__contains__, beside=True) == 1
    with zipfile.ZipFile(stdlib) as archive:
        assert [n for n in archive.namelist() if n.endswith(".pyc")] == ["lumen_zip/__init__.pyc"]
    monkeypatch.syspath_prepend(str(stdlib))
    monkeypatch.delitem(sys.modules, "lumen_zip", raising=False)
    module = importlib.import_module("lumen_zip")
    try:
        assert module.__file__ == root + "lumen_zip/__init__.pyc"  # zipimport took the pyc
        assert module.FROM == "the source"
    finally:
        del sys.modules["lumen_zip"]


def test_sourceless_puts_the_pyc_in_place_of_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = _wheel(tmp_path)
    assert add_bytecode(str(wheel), sourceless=True) == 1
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(archive.namelist())
        record = archive.read("lumen-1.0.dist-info/RECORD").decode().splitlines()
        archive.extractall(tmp_path / "site")
    assert names == [
        "lumen-1.0.data/scripts/tool.py",
        "lumen-1.0.dist-info/METADATA",
        "lumen-1.0.dist-info/RECORD",
        "lumen_pkg/__init__.pyc",  # the source is gone
        "lumen_pkg/old.py",  # does not compile here: kept as source
    ]
    assert record == ["lumen_pkg/__init__.pyc,,"]
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "lumen_pkg", raising=False)
    module = importlib.import_module("lumen_pkg")
    try:
        assert module.FROM == "the source"
        assert module.__file__ == str(tmp_path / "site" / "lumen_pkg" / "__init__.pyc")
    finally:
        del sys.modules["lumen_pkg"]


def test_a_sourceless_zip_on_sys_path_imports_from_its_pyc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stdlib = tmp_path / "stdlib.zip"
    with zipfile.ZipFile(stdlib, "w") as archive:
        archive.writestr("lumen_bare/__init__.py", "FROM = 'the source'\n")
        archive.writestr("lumen_bare/unused.py", "X = 1\n")
    root = f"{stdlib}/"
    wanted = {root + "lumen_bare/__init__.py"}
    done = add_bytecode(str(stdlib), root=root, wanted=wanted.__contains__, sourceless=True)
    assert done == 1
    with zipfile.ZipFile(stdlib) as archive:
        assert sorted(archive.namelist()) == ["lumen_bare/__init__.pyc", "lumen_bare/unused.py"]
    monkeypatch.syspath_prepend(str(stdlib))
    monkeypatch.delitem(sys.modules, "lumen_bare", raising=False)
    module = importlib.import_module("lumen_bare")
    try:
        assert module.__file__ == root + "lumen_bare/__init__.pyc"
        assert module.FROM == "the source"
    finally:
        del sys.modules["lumen_bare"]


def test_our_server_only_packages_are_compiled_only_when_a_start_imports_them() -> None:
    site = "/lib/python3.14/site-packages/"
    gateway = site + "mediagen_nb/classroom/_gateway.py"
    assert not _in_the_browser(gateway, set())
    assert _in_the_browser(gateway, {gateway})
    assert not _in_the_browser(site + "mediagen_nb/_lite/_site.py", set())
    assert _in_the_browser(site + "mediagen_nb/emulator/_app.py", set())
