"""The checkout guard (``tests/_checkout.py``, used by ``conftest.py``): what counts as a change."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests._checkout import checkout_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_new_files_count_even_ignored_ones_but_build_caches_and_screenshots_do_not(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    (repo / "docs" / "screenshots").mkdir(parents=True)
    (repo / "notebooks" / "a.ipynb").write_text("{}")
    (repo / "docs" / "screenshots" / "old.png").write_text("png")
    (repo / ".gitignore").write_text(".mediagen_nb/\n.ipynb_checkpoints/\n__pycache__/\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    before = checkout_state(repo)
    assert before == set()

    (repo / "notebooks" / ".ipynb_checkpoints").mkdir()
    (repo / "notebooks" / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("{}")
    (repo / ".mediagen_nb").mkdir()
    (repo / ".mediagen_nb" / "history.sqlite").write_text("")
    (repo / "out.csv").write_text("a,b\n")
    (repo / "notebooks" / "a.ipynb").write_text('{"changed": true}')
    (repo / "__pycache__").mkdir()
    (repo / "__pycache__" / "x.pyc").write_text("")
    (repo / "docs" / "screenshots" / "new.png").write_text("png")
    (repo / "docs" / "screenshots" / "old.png").write_text("png2")

    after = checkout_state(repo)
    assert after is not None
    assert sorted(after - before) == [
        " M notebooks/a.ipynb",
        "!! .mediagen_nb/",
        "!! notebooks/.ipynb_checkpoints/",
        "?? out.csv",
    ]


def test_outside_a_git_checkout_the_guard_stands_aside(tmp_path: Path) -> None:
    assert checkout_state(tmp_path / "missing") is None
