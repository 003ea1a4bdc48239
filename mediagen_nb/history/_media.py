"""Where cached media live on disk, and how they are written without ever being half there.

``<home>/media/<shard>/<name><suffix>``: no key can name a path outside its shard folder,
each file is written under a temporary name and renamed, and a path read back is used only
when it resolves inside the folder (:func:`inside`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from mediagen_nb.client import _files as client_files

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_SUFFIX = re.compile(r"^\.[A-Za-z0-9]{1,12}$")
_MAX_NAME = 120
DEFAULT_SUFFIX = ".bin"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def safe_name(key: str) -> str:
    """A file name derived from ``key`` that contains no separators and no leading dot."""
    name = _UNSAFE.sub("_", key).lstrip(".")[:_MAX_NAME]
    if name != key or not name:
        name = f"{name}-{_digest(key)[:12]}" if name else _digest(key)[:24]
    return name


def safe_suffix(suffix: str) -> str:
    """``".png"`` style suffix; ``"png"`` gains its dot, anything odd becomes ``.bin``."""
    suffix = suffix if suffix.startswith(".") else f".{suffix}"
    return suffix.lower() if _SUFFIX.match(suffix) else DEFAULT_SUFFIX


def shard_dir(media_root: Path, key: str) -> Path:
    """Folder that holds the files of ``key``."""
    return media_root / _digest(key)[:2]


def media_path(media_root: Path, key: str, suffix: str) -> Path:
    """Final path of ``key``'s file with ``suffix``; always inside ``media_root``."""
    return shard_dir(media_root, key) / f"{safe_name(key)}{safe_suffix(suffix)}"


def inside(media_root: Path, path: object) -> Path | None:
    """``path`` resolved (every symlink followed) when it lies inside ``media_root``, else
    None: a media path read back from the ledger or an imported file is never trusted."""
    if not isinstance(path, str | Path) or not str(path):
        return None
    try:
        root = media_root.resolve()
        target = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):  # a loop, a NUL byte, an odd name
        return None
    return target if target != root and target.is_relative_to(root) else None


def media_file(media_root: Path, path: object) -> Path | None:
    """The existing regular file ``path`` names inside ``media_root`` (None otherwise)."""
    found = inside(media_root, path)
    try:
        return found if found is not None and found.is_file() else None
    except OSError:
        return None


def find_media(media_root: Path, key: str) -> Path | None:
    """An existing file for ``key`` with any suffix, or None."""
    folder = shard_dir(media_root, key)
    if not folder.is_dir():
        return None
    name = safe_name(key)
    for entry in sorted(folder.iterdir()):
        rest = entry.name[len(name) :]
        if (
            entry.name.startswith(name)
            and _SUFFIX.match(rest)
            and media_file(media_root, entry) is not None
        ):
            return entry
    return None


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` via a temporary file and rename; readers never see a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return client_files.write_atomic(path, data)
