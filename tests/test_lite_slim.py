"""What the site's wheels leave out (``_slim``): jedi's third-party stubs, Pygments' lexers
beyond the kept ones; each cut wheel's ``RECORD`` lists exactly what is left, and the cut
Pygments still highlights Python and IPython and names a missing lexer as Pygments does.

The site as built, with these cuts in its wheels, is checked in ``tests/ui/test_lite.py``.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mediagen_nb._lite import _slim


def wheel_of(folder: Path, name: str, files: dict[str, bytes]) -> Path:
    """A wheel holding ``files`` and a ``RECORD`` that lists each with its hash."""
    path = folder / f"{name}-1.0-py3-none-any.whl"
    record = "".join(f"{_slim._record_line(n, data)}\n" for n, data in files.items())
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file, data in files.items():
            archive.writestr(file, data)
        own = f"{name}-1.0.dist-info/RECORD"
        archive.writestr(own, record + f"{own},,\n")
    return path


def record_of(path: Path) -> dict[str, str]:
    """A wheel's RECORD: file -> its line; and checks each listed hash against the file."""
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
        lines = archive.read(name).decode().splitlines()
        listed = {line.rsplit(",", 2)[0]: line for line in lines}
        for file, line in listed.items():
            digest = line.rsplit(",", 2)[1]
            if digest:
                data = archive.read(file)
                raw = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                assert digest == "sha256=" + raw.decode(), file
        assert sorted(listed) == sorted(archive.namelist())
    return listed


def test_jedi_keeps_the_stdlib_stubs_and_loses_the_third_party_ones(tmp_path: Path) -> None:
    files = {
        "jedi/__init__.py": b"x = 1\n",
        "jedi/third_party/typeshed/stdlib/builtins.pyi": b"class int: ...\n",
        "jedi/third_party/typeshed/stubs/pywin32/win32api.pyi": b"def f() -> None: ...\n",
        "jedi/third_party/django-stubs/django-stubs/__init__.pyi": b"\n",
    }
    path = wheel_of(tmp_path, "jedi", files)
    before = path.stat().st_size

    saved = _slim.slim(path)

    assert saved == before - path.stat().st_size > 0
    assert sorted(record_of(path)) == [
        "jedi-1.0.dist-info/RECORD",
        "jedi/__init__.py",
        "jedi/third_party/typeshed/stdlib/builtins.pyi",
    ]
    assert _slim.slim(path) == 0  # a second cut finds nothing more


def test_other_wheels_are_left_as_they_are(tmp_path: Path) -> None:
    path = wheel_of(tmp_path, "parso", {"parso/third_party/typeshed/stubs/x.pyi": b"\n"})
    data = path.read_bytes()
    assert _slim.slim(path) == 0
    assert path.read_bytes() == data


def installed_wheel(folder: Path, distribution: str) -> Path:
    """A wheel of an installed distribution's own files (its RECORD as installed)."""
    dist = importlib.metadata.distribution(distribution)
    version = dist.version
    path = folder / f"{distribution}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in dist.files or []:
            if "__pycache__" in file.parts or file.parts[0].startswith(".."):
                continue
            archive.writestr(str(file.as_posix()), Path(str(file.locate())).read_bytes())
    return path


HIGHLIGHT = """
import sys
sys.path.insert(0, sys.argv[1])
import pygments
assert pygments.__file__.startswith(sys.argv[1]), pygments.__file__
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_all_lexers
from pygments.util import ClassNotFound
from ipython_pygments_lexers import IPython3Lexer
names = ["python", "bash", "html", "javascript", "json", "tex", "markdown", "sql"]
print(*[get_lexer_by_name(n).name for n in names], sep=",")
print("<span" in highlight("x = 1", IPython3Lexer(), HtmlFormatter()))
for name in ("rust", "go"):
    try:
        get_lexer_by_name(name)
    except ClassNotFound as e:
        print(e)
print(len(list(get_all_lexers())))
"""


def test_pygments_keeps_what_the_kernel_highlights(tmp_path: Path) -> None:
    path = installed_wheel(tmp_path, "pygments")
    with zipfile.ZipFile(path) as archive:
        every = [n for n in archive.namelist() if n.startswith(_slim.PYGMENTS_LEXERS)]

    assert _slim.slim(path) > 0

    with zipfile.ZipFile(path) as archive:
        left = sorted(n for n in archive.namelist() if n.startswith(_slim.PYGMENTS_LEXERS))
        archive.extractall(tmp_path / "site-packages")
    record_of(path)
    assert "pygments/lexers/python.py" in left
    assert "pygments/lexers/rust.py" not in left
    assert len(left) < len(every) / 4
    lexers_file = Path(str(importlib.metadata.distribution("ipython_pygments_lexers").locate_file(
        "ipython_pygments_lexers.py"
    )))  # fmt: skip
    (tmp_path / "site-packages" / lexers_file.name).write_bytes(lexers_file.read_bytes())
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", HIGHLIGHT, str(tmp_path / "site-packages")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split(",") == [
        "Python", "Bash", "HTML", "JavaScript", "JSON", "TeX", "Markdown", "SQL",
    ]  # fmt: skip
    assert lines[1:4] == [
        "True", "no lexer for alias 'rust' found", "no lexer for alias 'go' found",
    ]  # fmt: skip
    assert 30 < int(lines[4]) < 200  # the kept modules' lexers only (Pygments has ~600)


def test_a_pygments_without_its_lexer_table_is_named(tmp_path: Path) -> None:
    path = wheel_of(tmp_path, "pygments", {_slim.PYGMENTS_MAPPING: b"OTHER = {}\n"})
    with pytest.raises(RuntimeError, match="no LEXERS table"):
        _slim.slim(path)
