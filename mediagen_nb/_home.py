"""Where the toolkit keeps its files: ``$MEDIAGEN_HOME`` (default ``~/.mediagen_nb``).

History (ledger and media cache) and the demo emulator's task journal live there. Stdlib
only, so every layer may use it.
"""

from __future__ import annotations

import os
from pathlib import Path

from mediagen_nb import _env


def resolve_home(home: Path | str | None = None) -> Path:
    """``home``, else ``$MEDIAGEN_HOME``, else ``~/.mediagen_nb`` (user-expanded, absolute)."""
    if home is None:
        home = os.environ.get(_env.HOME) or "~/.mediagen_nb"
    return Path(home).expanduser().absolute()
