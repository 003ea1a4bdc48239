"""mediagen_nb: a multi-modal generation service, usable from Jupyter.

Public names are resolved lazily so that ``import mediagen_nb.client`` loads neither pandas,
PIL nor ipywidgets. Importing the package registers two hooks (see ``_hooks``): the history
ledger as the default recorder, and the built-in emulator as the service used when no
``MEDIAGEN_API_KEY`` is set. Both start only when first needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mediagen_nb import _hooks

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "AssetPanel": "mediagen_nb.widgets",
    "AsyncClient": "mediagen_nb.client",
    "ChatPanel": "mediagen_nb.widgets",
    "Client": "mediagen_nb.client",
    "HistoryPanel": "mediagen_nb.widgets",
    "ImagePanel": "mediagen_nb.widgets",
    "Problem": "mediagen_nb.types",
    "RequestValidationError": "mediagen_nb.types",
    "Studio": "mediagen_nb.widgets",
    "Task": "mediagen_nb.client",
    "VideoPanel": "mediagen_nb.widgets",
    "history": "mediagen_nb.history",
    "resume": "mediagen_nb._defaults",
    "start_emulator": "mediagen_nb.emulator",
    "validate_request": "mediagen_nb.types",
}

__all__ = [
    "AssetPanel",
    "AsyncClient",
    "ChatPanel",
    "Client",
    "HistoryPanel",
    "ImagePanel",
    "Problem",
    "RequestValidationError",
    "Studio",
    "Task",
    "VideoPanel",
    "history",
    "resume",
    "start_emulator",
    "validate_request",
]

if TYPE_CHECKING:
    from mediagen_nb._defaults import resume
    from mediagen_nb.client import AsyncClient, Client, Task
    from mediagen_nb.emulator import start_emulator
    from mediagen_nb.history import history
    from mediagen_nb.types import Problem, RequestValidationError, validate_request
    from mediagen_nb.widgets import (
        AssetPanel,
        ChatPanel,
        HistoryPanel,
        ImagePanel,
        Studio,
        VideoPanel,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mediagen_nb' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


def _default_recorder() -> _hooks.Recorder | None:
    from mediagen_nb.history import ledger

    return ledger()


def _fallback_service() -> _hooks.ServiceEndpoint:
    from mediagen_nb.emulator import fallback_endpoint

    return fallback_endpoint()


_hooks.set_recorder_factory(_default_recorder)
_hooks.set_fallback_service(_fallback_service)
