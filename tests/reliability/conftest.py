"""Reliability tests: a media-rendering shortcut, and every row's counts in the terminal summary."""

from __future__ import annotations

import pytest

from mediagen_nb.emulator import _render as emulator_render
from tests.reliability._reliability import COUNTS


@pytest.fixture
def fast_render(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[object, ...], bytes]:
    """Make the emulator render each distinct media shape (kind, size, length) only once.

    Rendering costs 0.1-0.9 s of CPU per PNG/MP4; tests of many tasks measure the protocol,
    retries and history, not PIL and PyAV. The bytes are still real files sent over HTTP.
    """
    real = emulator_render.render
    memo: dict[tuple[object, ...], bytes] = {}

    def render(spec: emulator_render.MediaSpec) -> bytes:
        shape = (spec.kind, spec.width, spec.height, spec.seconds)
        if shape not in memo:
            memo[shape] = real(spec)
        return memo[shape]

    monkeypatch.setattr(emulator_render, "render", render)
    return memo


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One line per reliability test that reported counts (tasks, faults, retries, rows)."""
    if not COUNTS:
        return
    terminalreporter.section("reliability counts")
    for name, counts in COUNTS.items():
        shown = ", ".join(f"{k}={v}" for k, v in counts.items())
        terminalreporter.write_line(f"{name}: {shown}")
