"""What this Python can do: threads, sockets, optional packages. Stdlib only.

Callers ask here instead of testing the platform themselves, so one place decides (tests
pretend to be the browser with ``MEDIAGEN_DEMO=in-process`` or by blocking an import).
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import sys
import threading
from collections.abc import Callable
from typing import Final, ParamSpec, TypeVar

from mediagen_nb import _env

_P = ParamSpec("_P")
_R = TypeVar("_R")

DEMO_ENV: Final = _env.DEMO
"""``MEDIAGEN_DEMO=in-process``: demo mode runs the emulator inside the kernel, no socket."""
IN_PROCESS: Final = "in-process"


def is_browser() -> bool:
    """True in Pyodide / JupyterLite (WebAssembly in a browser tab)."""
    return sys.platform == "emscripten"


@functools.cache
def can_start_threads() -> bool:
    """Whether a thread can be started here (tried once: starts and joins a no-op thread)."""
    if is_browser():
        return False
    try:
        probe = threading.Thread(target=lambda: None, name="mediagen-probe", daemon=True)
        probe.start()
    except RuntimeError:
        return False
    probe.join()
    return True


def has_module(name: str) -> bool:
    """Whether ``name`` can be imported (a ``sys.modules[name] = None`` block counts as no)."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def demo_in_process() -> bool:
    """Whether demo mode should run the emulator in-process (no thread, no socket).

    Yes when ``MEDIAGEN_DEMO`` says ``in-process``; no when it says ``server``; else yes in
    the browser, where a server thread cannot start, and where uvicorn is not installed.
    Otherwise the emulator is served on 127.0.0.1 in a thread (other programs, a browser
    tab, ``curl`` can reach it).
    """
    wanted = os.environ.get(DEMO_ENV, "").strip().lower()
    if wanted == IN_PROCESS:
        return True
    if wanted == "server":
        return False
    if wanted:
        raise ValueError(f"{DEMO_ENV} must be 'in-process' or 'server', got {wanted!r}")
    return not can_start_threads() or not has_module("uvicorn")


async def off_loop(fn: Callable[_P, _R], /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
    """``asyncio.to_thread`` where threads can start; elsewhere (the browser) ``fn`` runs
    right here on the loop (it is short work: a file read, a thumbnail)."""
    if can_start_threads():
        return await asyncio.to_thread(fn, *args, **kwargs)
    return fn(*args, **kwargs)
