"""The site's wheel holds only what git tracks (issue 32, row 8).

A temporary clone of this repository gets an untracked ``mediagen_nb/.env``, untracked
files and links pointing out of the clone, and a committed link out of it; the wheel
``mediagen-nb lite build`` ships to every visitor is then built from that clone.
"""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from mediagen_nb._lite._tracked import export_tracked, tracked_files
from mediagen_nb._lite._wheels import project_wheel

ROOT = Path(__file__).resolve().parents[1]
SECRET = "MEDIAGEN_API_KEY=sk-never-ship-this-4d1c"


def _git(folder: Path, *args: str) -> str:
    command = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    done = subprocess.run([*command, *args], capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone of the repository with untracked secrets and links out of it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"# {SECRET}\n")
    repo = tmp_path / "repo"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True)
    package = repo / "mediagen_nb"
    (package / ".env").write_text(SECRET + "\n")
    (package / "scratch_notes.py").write_text(f"# {SECRET}\n")
    (package / "linked_secret.py").symlink_to(outside / "secret.py")
    (package / "linked_folder").symlink_to(outside, target_is_directory=True)
    (package / "tracked_link.py").symlink_to(outside / "secret.py")
    _git(repo, "add", "mediagen_nb/tracked_link.py")
    _git(repo, "commit", "-q", "-m", "a tracked link out of the checkout")
    return repo


def test_the_site_wheel_holds_only_tracked_files(clone: Path, tmp_path: Path) -> None:
    lines: list[str] = []
    wheel = project_wheel(clone, tmp_path / "dist", lines.append)
    with zipfile.ZipFile(wheel) as archive:
        held = [n for n in archive.namelist() if not n.endswith("/")]
        data = b"".join(archive.read(n) for n in held)
    package = [n for n in held if not n.split("/", 1)[0].endswith(".dist-info")]
    tracked = set(_git(clone, "ls-files", "mediagen_nb").split())
    assert set(package) == tracked - {"mediagen_nb/tracked_link.py"}
    assert SECRET.encode() not in data
    for name in package:  # the build output lists what the wheel holds
        assert any(line.strip().startswith(f"{name} (") for line in lines), name
    assert any("mediagen_nb/tracked_link.py" in line for line in lines)  # said left out
    print("\n".join(lines[:3]), f"... {len(lines)} lines")


def test_a_link_to_another_tracked_file_ships_its_bytes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "real.py").write_text("VALUE = 1\n")
    (repo / "pkg" / "alias.py").symlink_to("real.py")
    (repo / "pkg" / "untracked.py").write_text("VALUE = 2\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _git(repo, "add", "pkg/real.py", "pkg/alias.py")
    assert tracked_files(repo) == ["pkg/alias.py", "pkg/real.py"]
    copied, left_out = export_tracked(repo, tmp_path / "out")
    assert (copied, left_out) == (["pkg/alias.py", "pkg/real.py"], [])
    alias = tmp_path / "out" / "pkg" / "alias.py"
    assert not alias.is_symlink()
    assert alias.read_text() == "VALUE = 1\n"
    assert sorted(p.name for p in (tmp_path / "out" / "pkg").iterdir()) == ["alias.py", "real.py"]


def test_a_folder_that_is_no_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="git checkout"):
        tracked_files(tmp_path)
