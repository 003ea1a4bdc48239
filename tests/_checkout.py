"""What a test run may not leave behind: ``git status`` of the checkout, minus build caches.

Used by ``conftest.py`` (compared at session start and end) and its own test.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_EXPECTED = ("__pycache__/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/", ".hypothesis/")
_SCREENSHOTS = "docs/screenshots/"


def checkout_state(root: Path = ROOT) -> set[str] | None:
    """``git status`` lines of ``root`` minus build caches; None when git cannot tell."""
    try:
        out = subprocess.run(
            ["git", "status", "--porcelain", "--ignored", "--untracked-files=normal"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {
        line
        for line in out.splitlines()
        if not any(part in line for part in _EXPECTED) and not line[3:].startswith(_SCREENSHOTS)
    }
