"""The benchmarks cannot rot: the figure-line contract, and the cheap scripts really run.

The cheap scripts (a few seconds each with ``--quick --reps 1``) run here and must print a
parsable figure line last; the others run in CI through ``python -m bench --quick``
(``scripts/test``). Every ``bench_*.py`` must be listed in ``run_all.SCRIPTS``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from _comm import CommRecorder, Sent  # noqa: E402 - bench/ is not a package
from _common import FIGURE_RE, Figure  # noqa: E402
from run_all import SCRIPTS, table  # noqa: E402

CHEAP = ("import", "chat_panel")
NOT_FIGURES = {"bench_media.py"}  # the emulator's rendering micro-benchmark (other owner)


def _figure(ratio: float, op: str = "<=", target: float = 1.25, correct: bool = True) -> Figure:
    return Figure(
        id="x",
        ours=ratio,
        unit="ms",
        baseline=1.0,
        baseline_unit="ms (base)",
        ratio=ratio,
        op="<=" if op == "<=" else ">=",
        target=target,
        note="n",
        correct=correct,
    )


def test_every_script_is_in_run_all() -> None:
    scripts = {p.name for p in BENCH.glob("bench_*.py")} - NOT_FIGURES
    assert scripts == {f"bench_{name}.py" for name, _title in SCRIPTS}


@pytest.mark.parametrize(
    ("ratio", "op", "target", "quick", "code", "verdict"),
    [
        (1.2, "<=", 1.25, False, 0, "PASS"),
        (1.3, "<=", 1.25, False, 1, "MISS"),
        (1.3, "<=", 1.25, True, 0, "MISS (quick"),
        (26.0, "<=", 1.25, True, 0, "MISS (quick"),  # however large: a timing, not a result
        (26.0, "<=", 1.25, False, 1, "MISS"),
        (1.0, ">=", 1.0, False, 0, "PASS"),
        (0.9, ">=", 1.0, True, 0, "MISS (quick"),
        (0.01, ">=", 1.0, True, 0, "MISS (quick"),
        (0.01, ">=", 1.0, False, 1, "MISS"),
    ],
)
def test_exit_policy(
    ratio: float, op: str, target: float, quick: bool, code: int, verdict: str
) -> None:
    figure = _figure(ratio, op, target)
    match = FIGURE_RE.match(figure.line(quick))
    assert match is not None
    assert match["verdict"].startswith(verdict)
    assert float(match["ratio"]) == pytest.approx(ratio, abs=1e-3)
    assert figure.exit_code(quick) == code


def test_incorrect_results_always_fail() -> None:
    figure = _figure(0.5, correct=False)
    assert figure.exit_code(quick=True) == 1
    assert "FAIL" in figure.line(quick=True)


FAKE_FIGURE = """
import sys
sys.path.insert(0, {bench!r})
from _common import Figure, finish, parse_args
args = parse_args("fake figure")
print("measuring...")
figure = Figure(id="fake", ours={ratio}, unit="ms", baseline=1.0, baseline_unit="ms",
                ratio={ratio}, op="<=", target=1.0, correct={correct})
sys.exit(finish(figure, args.quick))
"""


def _run_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick: bool, **figures: str) -> int:
    """``run_all.main`` over fake figure scripts (name -> ``"ratio,correct"``)."""
    import run_all

    for name, spec in figures.items():
        ratio, correct = spec.split(",")
        source = FAKE_FIGURE.format(bench=str(BENCH), ratio=ratio, correct=correct)
        (tmp_path / f"bench_{name}.py").write_text(source)
    monkeypatch.setattr(run_all, "BENCH", tmp_path)
    monkeypatch.setattr(run_all, "SCRIPTS", tuple((name, name) for name in figures))
    return run_all.main(["--quick"] if quick else [])


def test_quick_run_exits_0_on_a_timing_miss_and_1_on_a_wrong_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What ``scripts/test`` relies on: only a wrong result fails a quick benchmark run."""
    assert _run_all(tmp_path, monkeypatch, True, slow="40.0,True", fine="0.5,True") == 0
    out = capsys.readouterr().out
    assert "| slow | 40 ms | 1 ms | 40.000 | <= 1 | MISS (quick mode" in out
    assert "| fine | 0.5 ms | 1 ms | 0.500 | <= 1 | PASS |" in out
    assert _run_all(tmp_path, monkeypatch, True, wrong="0.5,False", slow="40.0,True") == 1
    out = capsys.readouterr().out
    assert "| wrong | 0.5 ms | 1 ms | 0.500 | <= 1 | FAIL (incorrect result) |" in out
    assert "1 figure(s) failed: wrong" in out
    assert _run_all(tmp_path, monkeypatch, False, slow="40.0,True") == 1  # full mode judges


def test_table_reads_figure_lines_and_failures() -> None:
    line = _figure(1.1).line(quick=False)
    text = table([("fig", 0, line, 3.0), ("broken", 1, "Traceback ...", 1.0)])
    assert "| fig | 1.1 ms | 1 ms (base) | 1.100 | <= 1.25 | PASS | n | 3 |" not in text
    assert "| fig | 1.1 ms | 1 ms (base) | 1.100 | <= 1.25 | PASS | 3 |" in text
    assert "(failed: exit 1)" in text


def test_busiest_window_is_half_open() -> None:
    recorder = CommRecorder()

    class Fake:
        comm = type("C", (), {"comm_id": "w"})()

    recorder.sent = [Sent(i / 16, "w", {}, None) for i in range(40)]  # 16 per second
    assert recorder.max_per_window(Fake()) == 16
    recorder.sent.append(Sent(39 / 16 + 0.01, "w", {}, None))
    assert recorder.max_per_window(Fake()) == 17


@pytest.mark.parametrize("name", CHEAP)
def test_cheap_script_runs_and_prints_its_figure(name: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / f"bench_{name}.py"), "--quick", "--reps", "1"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-2000:]
    match = FIGURE_RE.match(lines[-1])
    assert match is not None, lines[-1]
    assert float(match["ratio"]) > 0
    assert not match["verdict"].startswith("FAIL"), lines[-1]
    assert done.returncode == 0 or match["verdict"] == "MISS", done.stderr[-2000:]
