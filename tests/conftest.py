"""Shared test setup: import from the checkout, isolate history and the service environment."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from mediagen_nb.emulator import EmulatorHandle, start_emulator
from tests._checkout import checkout_state

if TYPE_CHECKING:
    from mediagen_nb.classroom import ClassroomHandle
    from mediagen_nb.emulator import EmulatorHandle


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own history folder and no real-service configuration."""
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "mediagen_home"))
    names = ("MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL")
    for name in (*names, "MEDIAGEN_CLASSROOM_URL", "JUPYTERHUB_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def emulator(request: pytest.FixtureRequest) -> Iterator[EmulatorHandle]:
    """A loopback emulator for one test, stopped after it.

    Its settings are the ``start_emulator`` arguments of the closest ``emulator`` mark, e.g.
    ``pytestmark = pytest.mark.emulator(speed=60.0, api_key=KEY, seed=11)`` in a module.
    """
    mark = request.node.get_closest_marker("emulator")
    with start_emulator(**(mark.kwargs if mark is not None else {})) as handle:
        yield handle


@pytest.fixture
def dead_pid() -> int:
    """The process id of a process that has already exited (a kernel that has ended)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(child.stdout)


# A test run leaves the checkout as it found it: every file a test or a notebook writes goes
# to a temporary folder. The session compares `git status` (ignored files included, so a
# stray `.mediagen_nb/` or `.ipynb_checkpoints/` counts) before and after, and fails the run
# if anything appeared. Build caches are expected; the browser tests' screenshots in
# docs/screenshots/ are their own matter (tests/ui decides where they go).
_CHECKOUT = pytest.StashKey[set[str] | None]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_CHECKOUT] = checkout_state()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_CHECKOUT, None)
    after = checkout_state() if before is not None else None
    if before is None or after is None:
        return
    appeared = sorted(after - before)
    if not appeared:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        reporter.write_sep("=", "the test run changed the checkout", red=True)
        for line in appeared:
            reporter.write_line(f"  {line}")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


BlockedRun = Callable[[Sequence[str], str], str]


@pytest.fixture
def run_without(tmp_path: Path) -> BlockedRun:
    """Run Python ``code`` in a fresh interpreter where ``modules`` cannot be imported (as in
    the browser, where Pillow, av, pandas and uvicorn do not exist); return its stdout."""

    def run(modules: Sequence[str], code: str) -> str:
        block = "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
        script = f"import sys\n{block}{textwrap.dedent(code)}"
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            env={
                **os.environ,
                "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
                "MEDIAGEN_HOME": str(tmp_path / "home"),
            },
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    return run


@pytest.fixture
def marker_emulator() -> Iterator[EmulatorHandle]:
    """An emulator whose key is the marker the classroom tests look for everywhere."""
    from mediagen_nb.emulator import start_emulator
    from tests._classroom_helpers import MARKER_KEY, UPSTREAM_SPEED

    with start_emulator(speed=UPSTREAM_SPEED, api_key=MARKER_KEY) as emulator:
        yield emulator


@pytest.fixture
def classroom(tmp_path: Path, marker_emulator: EmulatorHandle) -> Iterator[ClassroomHandle]:
    """A gateway with three coded students and a class code, in front of the marker emulator."""
    from mediagen_nb.classroom import start_classroom
    from tests._classroom_helpers import upstream_of

    with start_classroom(
        3, class_code=True, upstream=upstream_of(marker_emulator), folder=tmp_path / "class"
    ) as handle:
        yield handle


@pytest.fixture(scope="session")
def postgres_server_dsn() -> Iterator[str]:
    """A real PostgreSQL server for the whole session (``tests/_postgres``); its DSN."""
    from tests._postgres import postgres_server

    with postgres_server() as dsn:
        yield dsn


@pytest.fixture
def postgres_dsn(postgres_server_dsn: str) -> str:
    """A fresh, empty database on the session's PostgreSQL server, for one test."""
    from tests._postgres import fresh_database

    return fresh_database(postgres_server_dsn)
