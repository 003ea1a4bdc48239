"""The server kit is shared, not reached into: it imports nothing else of this package (no
tasks, codes or catalog), and the classroom imports none of the emulator's private modules."""

from __future__ import annotations

from pathlib import Path

import mediagen_nb
from tests.test_emulator_imports import imports_of

ROOT = Path(mediagen_nb.__file__).parent


def test_the_kit_imports_only_itself_from_this_package() -> None:
    found = {
        target
        for path in (ROOT / "_serverkit").glob("*.py")
        for target in imports_of(path)
        if target.startswith("mediagen_nb") and not target.startswith("mediagen_nb._serverkit")
    }
    assert found == set()


def test_the_classroom_uses_no_private_emulator_module() -> None:
    found = {
        f"{path.name}: {target}"
        for path in (ROOT / "classroom").glob("*.py")
        for target in imports_of(path)
        if target.startswith("mediagen_nb.emulator._")
    }
    assert found == set()
