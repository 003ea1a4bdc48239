"""What the built playground ships, and that the cuts degrade gracefully in its own Pyodide.

``mediagen-nb lite build`` leaves out jedi's third-party stubs and Pygments' unused lexers
(``_slim``) and ships the third-party and stdlib modules a start imports as bytecode in place
of their source (``_bytecode``); our own package keeps its source. The site's Pyodide, run
under Node with the site's wheels, then still completes (jedi), highlights Python and names
a missing lexer, prints a traceback through sourceless stdlib frames, and shows ``?`` help.
No browser: the visitor's journeys over the same site are ``test_lite*.py``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ui, pytest.mark.slow]

CHECK_JS = """
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [dir, code] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, "pyodide.mjs")).href);
const log = console.log;
const py = await loadPyodide({ indexURL: dir + path.sep, stdout: log, stderr: log });
const wheels = fs.readdirSync(dir).filter((n) => n.endsWith(".whl"));
await py.loadPackage(wheels.map((n) => path.join(dir, n)), { messageCallback: () => {} });
await py.runPythonAsync(fs.readFileSync(code, "utf8"));
process.stdout.write("", () => process.exit(0));
"""
CHECK_PY = """
import inspect, json
from IPython.core.completer import provisionalcompleter
from IPython.core.interactiveshell import InteractiveShell
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
import mediagen_nb

shell = InteractiveShell.instance(colors="nocolor")
shell.user_ns.update(items=[1], json=json)
for code in ("json.du", "[].app", "items.app", "import coll"):
    with provisionalcompleter():
        found = [c.text for c in shell.Completer.completions(code, len(code))]
    print("COMPLETE", code, ",".join(found[:2]))
print("LEXER", get_lexer_by_name("python").name)
try:
    get_lexer_by_name("rust")
except ClassNotFound as error:
    print("LEXER", error)
print("MODULE", json.__file__)
result = shell.run_cell('json.loads("{")')
print("ERROR", type(result.error_in_exec).__name__)
shell.run_cell("json.dumps?")
print("OURS", inspect.getsource(mediagen_nb).startswith('\"\"\"'))
"""


def wheel_named(folder: Path, prefix: str) -> Path:
    found = sorted(folder.glob(f"{prefix}-*.whl"))
    assert len(found) == 1, found
    return found[0]


def names(archive: Path) -> set[str]:
    with zipfile.ZipFile(archive) as opened:
        return set(opened.namelist())


def test_the_wheels_hold_what_the_build_says(lite_site: Path) -> None:
    folder = lite_site / "static" / "pyodide"
    jedi = names(wheel_named(folder, "jedi"))
    assert not [n for n in jedi if "typeshed/stubs/" in n or "django-stubs" in n]
    assert "jedi/third_party/typeshed/stdlib/builtins.pyi" in jedi
    pygments = names(wheel_named(folder, "pygments"))
    assert "pygments/lexers/python.py" not in pygments  # a start imports it: bytecode only
    assert "pygments/lexers/python.pyc" in pygments
    assert "pygments/lexers/shell.py" in pygments  # kept, not imported by a start
    assert "pygments/lexers/rust.py" not in pygments
    stdlib = names(folder / "python_stdlib.zip")
    assert {"json/__init__.pyc", "json/decoder.pyc"} <= stdlib
    assert not {"json/__init__.py", "json/decoder.py"} & stdlib
    ours = names(wheel_named(folder, "mediagen_nb"))
    assert "mediagen_nb/__init__.py" in ours
    assert [n for n in ours if n.startswith("mediagen_nb/__pycache__/__init__.")]
    lock = json.loads((folder / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():
        data = (folder / entry["file_name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file_name"]


def test_the_cuts_degrade_gracefully_in_the_sites_pyodide(lite_site: Path, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the site's build needs it too)")
    (tmp_path / "check.mjs").write_text(CHECK_JS)
    (tmp_path / "check.py").write_text(CHECK_PY)
    folder = lite_site / "static" / "pyodide"
    done = subprocess.run(
        [node, str(tmp_path / "check.mjs"), str(folder), str(tmp_path / "check.py")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    tags = ("COMPLETE ", "LEXER ", "MODULE ", "ERROR ", "OURS ")
    tagged = [line for line in lines if line.startswith(tags)]
    assert tagged[:8] == [
        "COMPLETE json.du dump,dumps",
        "COMPLETE [].app append",
        "COMPLETE items.app append",
        "COMPLETE import coll collections",
        "LEXER Python",
        "LEXER no lexer for alias 'rust' found",
        "MODULE /lib/python314.zip/json/__init__.pyc",
        "ERROR JSONDecodeError",
    ], lines
    assert tagged[-1] == "OURS True", lines
    text = "\n".join(lines)
    assert "JSONDecodeError: Expecting property name" in text  # the traceback was shown
    assert "Serialize ``obj`` to a JSON formatted ``str``." in text  # ``?`` kept its help
