"""The checkout as git tracks it: what the site's wheel is built from.

Every visitor of the site downloads the project's wheel, so it is built from a copy of the
files ``git ls-files`` lists, never from the working tree: an untracked ``.env`` or a
scratch file stays home, and a symlink ships only when it points at another tracked file.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def tracked_files(root: Path) -> list[str]:
    """The paths git tracks in the checkout at ``root`` (relative, ``/``-separated).

    Args:
        root: The project's checkout.

    Returns:
        Tracked paths, sorted.

    Raises:
        RuntimeError: ``root`` is not a git checkout, or git is missing.
    """
    command = ["git", "-C", str(root), "ls-files", "-z", "--cached"]
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise RuntimeError("lite build needs git: it ships only the files git tracks") from exc
    if done.returncode != 0:
        raise RuntimeError(
            f"lite build needs a git checkout (it ships only the files git tracks): {root}: "
            + done.stderr.decode(errors="replace").strip()
        )
    return sorted(p for p in done.stdout.decode().split("\0") if p)


def export_tracked(root: Path, destination: Path) -> tuple[list[str], list[str]]:
    """Copy the tracked files of ``root`` into ``destination`` (a new folder).

    Args:
        root: The project's checkout.
        destination: Where the copy goes; created.

    Returns:
        (the paths copied, the tracked paths left out: links, their own or a folder's
        above them, to anything but another tracked file, and tracked files missing from
        the working tree).

    Raises:
        RuntimeError: ``root`` is not a git checkout.
    """
    root = root.resolve()
    tracked = tracked_files(root)
    known = set(tracked)
    copied: list[str] = []
    left_out: list[str] = []
    for name in tracked:
        source = root / name
        target = source.resolve()  # a link (the file's or a folder's above it) followed
        inside = target.is_relative_to(root) and target.relative_to(root).as_posix() in known
        if not (inside and target.is_file()):
            left_out.append(name)
            continue
        target_path = destination / name
        target_path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target_path)  # the bytes, never a link
        copied.append(name)
    return copied, left_out
