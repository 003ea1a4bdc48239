"""``scripts/test`` (README command 2): what fails it, and that the bench summary closes it.

The tools it calls are replaced by stubs on ``PATH`` (``ruff`` and ``mypy`` pass, ``python -m
bench`` prints a results table and exits as told, ``pytest`` exits as told), so this runs the
script's own logic in a second, without the real suite.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "test"

STUBS = {
    "ruff": "exit 0",
    "biome": 'echo "biome $*"; exit "${STUB_BIOME:-0}"',
    "mypy": "exit 0",
    "mkdocs": 'echo "mkdocs $*"; exit "${STUB_MKDOCS:-0}"',
    "pytest": 'echo "pytest ran"; exit "$STUB_PYTEST"',
    "python": (
        'if [ "$1" = "-c" ]; then exit "${STUB_IMPORT:-0}"; fi\n'
        'if [ "$1 $2" = "-m pip" ]; then echo "pip $*"; exit 0; fi\n'
        'if [ "$1 $2" = "-m bench" ]; then\n'
        '  echo "== 5. many tasks"; echo "FIGURE x | ours 1 ms | ..."\n'
        '  echo; echo "Results (quick mode, now):"; echo; echo "| figure | ours |"\n'
        '  echo "| 5. many tasks | $STUB_VERDICT |"\n'
        '  exit "$STUB_BENCH"\n'
        "fi\n"
        "exit 99"
    ),
}


def run(
    tmp_path: Path,
    *,
    bench: int,
    tests: int,
    verdict: str,
    biome: int = 0,
    mkdocs: int = 0,
    importable: bool = True,
) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, body in STUBS.items():
        stub = bin_dir / name
        stub.write_text(f"#!/bin/sh\n{body}\n")
        stub.chmod(0o755)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "STUB_BENCH": str(bench),
        "STUB_PYTEST": str(tests),
        "STUB_VERDICT": verdict,
        "STUB_BIOME": str(biome),
        "STUB_MKDOCS": str(mkdocs),
        "STUB_IMPORT": "0" if importable else "1",
        "TMPDIR": str(tmp_path),
    }
    return subprocess.run(
        ["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def summary_after_pytest(out: str) -> str:
    assert "pytest ran" in out
    return out.split("pytest ran", 1)[1]


@pytest.mark.parametrize(
    ("bench", "tests", "code"),
    [(0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 2, 2)],
)
def test_exit_status_and_summary_after_the_tests(
    tmp_path: Path, bench: int, tests: int, code: int
) -> None:
    verdict = "FAIL (incorrect result)" if bench else "MISS (quick mode: not a failure)"
    done = run(tmp_path, bench=bench, tests=tests, verdict=verdict)
    assert done.returncode == code, done.stdout + done.stderr
    tail = summary_after_pytest(done.stdout)
    assert f"| 5. many tasks | {verdict} |" in tail  # printed again, after pytest
    assert ("tests failed" in done.stderr) == bool(tests)
    assert ("benchmarks failed" in done.stderr) == bool(bench)


def test_leaves_no_temporary_files(tmp_path: Path) -> None:
    run(tmp_path, bench=0, tests=1, verdict="PASS")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin"]


def test_a_front_end_lint_finding_stops_the_run(tmp_path: Path) -> None:
    done = run(tmp_path, bench=0, tests=0, verdict="PASS")
    assert "biome lint --error-on-warnings mediagen_nb/widgets/static" in done.stdout
    failed = run(tmp_path, bench=0, tests=0, verdict="PASS", biome=1)
    assert failed.returncode == 1
    assert "pytest ran" not in failed.stdout  # like ruff: no tests after a lint failure


def test_a_broken_docs_build_stops_the_run_and_leaves_no_site(tmp_path: Path) -> None:
    done = run(tmp_path, bench=0, tests=0, verdict="PASS")
    built = [line for line in done.stdout.splitlines() if line.startswith("mkdocs ")]
    assert len(built) == 1
    assert built[0].startswith("mkdocs build --strict --quiet --site-dir ")
    assert built[0].split("--site-dir ", 1)[1].startswith(str(tmp_path))  # a temporary folder
    assert done.stdout.index(built[0]) < done.stdout.index("pytest ran")
    failed = run(tmp_path, bench=0, tests=0, verdict="PASS", mkdocs=1)
    assert failed.returncode == 1
    assert "pytest ran" not in failed.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin"]


def test_instructor_is_installed_without_its_pin_only_when_missing(tmp_path: Path) -> None:
    present = run(tmp_path, bench=0, tests=0, verdict="PASS")
    assert "pip " not in present.stdout
    missing = run(tmp_path, bench=0, tests=0, verdict="PASS", importable=False)
    assert missing.returncode == 0, missing.stdout + missing.stderr
    installs = [line for line in missing.stdout.splitlines() if line.startswith("pip ")]
    assert len(installs) == 2
    assert "--no-deps" not in installs[0]  # its other requirements, resolved as usual
    assert installs[1].endswith("--no-deps instructor==1.17.0")
    assert missing.stdout.index(installs[1]) < missing.stdout.index("pytest ran")
