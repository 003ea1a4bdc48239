"""The built-in emulator: a local implementation of the whole service.

The default service of demo mode (no API key), Binder and the tests. ``start_emulator`` serves
it; ``create_app`` gives the ASGI app. Its conventions are on the "Demo mode" page of the
site, its design under "Inside the emulator" in ``docs/reference/design.md``.
"""

from mediagen_nb.emulator._app import create_app
from mediagen_nb.emulator._faults import FaultConfig
from mediagen_nb.emulator._server import EmulatorHandle, start_emulator
from mediagen_nb.emulator._state import EmulatorState

__all__ = [
    "EmulatorHandle",
    "EmulatorState",
    "FaultConfig",
    "create_app",
    "start_emulator",
]
