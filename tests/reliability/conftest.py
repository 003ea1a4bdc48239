"""Reliability tests: print every row's counts again in the terminal summary of the run."""

from __future__ import annotations

import pytest
from _reliability import COUNTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per reliability test that reported counts (tasks, faults, retries, rows)."""
    if not COUNTS:
        return
    terminalreporter.section("reliability counts")
    for name, counts in COUNTS.items():
        shown = ", ".join(f"{k}={v}" for k, v in counts.items())
        terminalreporter.write_line(f"{name}: {shown}")
