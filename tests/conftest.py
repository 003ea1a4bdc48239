"""Shared test setup: import from the checkout, isolate history and the service environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own history folder and no real-service configuration."""
    monkeypatch.setenv("MEDIAGEN_HOME", str(tmp_path / "mediagen_home"))
    for name in ("MEDIAGEN_API_KEY", "MEDIAGEN_BASE_URL", "MEDIAGEN_TEXT_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


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
