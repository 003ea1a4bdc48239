"""``python -m bench [--quick] [--only a,b]``: the same as ``python bench/run_all.py``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_all import main

if __name__ == "__main__":
    sys.exit(main())
