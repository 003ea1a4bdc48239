"""Writing a result to a folder the user chose: contained and atomic."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_NAME = 120


def safe_file_name(name: str) -> str:
    """A name with no separators, no leading dot and no ``..``.

    Only ``[A-Za-z0-9._-]`` is kept; a name that had to change gets a short hash of the
    original appended, so distinct task ids never share a file.
    """
    cleaned = _UNSAFE.sub("_", name).lstrip(".")[:_MAX_NAME]
    if cleaned != name or not cleaned:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        cleaned = f"{cleaned}-{digest}" if cleaned else f"result-{digest}"
    return cleaned


def write_atomic(target: Path, data: bytes) -> Path:
    """Write ``data`` to ``target`` through a temporary file in its folder and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=".part-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
