"""mediagen_nb: a multi-modal generation service, usable from Jupyter.

Public names are resolved lazily (``import mediagen_nb.client`` loads neither pandas, PIL nor
ipywidgets). Importing registers the history as the default recorder and the built-in
emulator as the service used without ``MEDIAGEN_API_KEY`` (``_hooks``); both start lazily.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mediagen_nb import _frame_sources, _hooks

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "APIConnectionError": "mediagen_nb.client",
    "APIError": "mediagen_nb.client",
    "APITimeoutError": "mediagen_nb.client",
    "AssetError": "mediagen_nb.client",
    "AssetNotUsableError": "mediagen_nb.client",
    "AssetPanel": "mediagen_nb.widgets",
    "AssetTimeoutError": "mediagen_nb.client",
    "AsyncClient": "mediagen_nb.client",
    "AuthenticationError": "mediagen_nb.client",
    "BadRequestError": "mediagen_nb.client",
    "ChatPanel": "mediagen_nb.widgets",
    "ClassroomPanel": "mediagen_nb.classroom",
    "Client": "mediagen_nb.client",
    "ConfigurationError": "mediagen_nb.client",
    "HistoryPanel": "mediagen_nb.widgets",
    "ImagePanel": "mediagen_nb.widgets",
    "MalformedResponseError": "mediagen_nb.client",
    "MediagenError": "mediagen_nb.client",
    "NotFoundError": "mediagen_nb.client",
    "Problem": "mediagen_nb.types",
    "RateLimitError": "mediagen_nb.client",
    "RequestValidationError": "mediagen_nb.types",
    "ResponseTooLargeError": "mediagen_nb.client",
    "ServerError": "mediagen_nb.client",
    "StreamInterruptedError": "mediagen_nb.client",
    "Studio": "mediagen_nb.widgets",
    "Task": "mediagen_nb.client",
    "TaskCancelledError": "mediagen_nb.client",
    "TaskError": "mediagen_nb.client",
    "TaskFailedError": "mediagen_nb.client",
    "TaskTimeoutError": "mediagen_nb.client",
    "VideoPanel": "mediagen_nb.widgets",
    "export_history": "mediagen_nb.history",
    "history": "mediagen_nb.history",
    "history_records": "mediagen_nb.history",
    "import_history": "mediagen_nb.history",
    "lineage": "mediagen_nb.history",
    "read_request": "mediagen_nb.client",
    "resume": "mediagen_nb._defaults",
    "start_classroom": "mediagen_nb.classroom",
    "start_emulator": "mediagen_nb.emulator",
    "sweep": "mediagen_nb.sweeps",
    "validate_request": "mediagen_nb.types",
}

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AssetError",
    "AssetNotUsableError",
    "AssetPanel",
    "AssetTimeoutError",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "ChatPanel",
    "ClassroomPanel",
    "Client",
    "ConfigurationError",
    "HistoryPanel",
    "ImagePanel",
    "MalformedResponseError",
    "MediagenError",
    "NotFoundError",
    "Problem",
    "RateLimitError",
    "RequestValidationError",
    "ResponseTooLargeError",
    "ServerError",
    "StreamInterruptedError",
    "Studio",
    "Task",
    "TaskCancelledError",
    "TaskError",
    "TaskFailedError",
    "TaskTimeoutError",
    "VideoPanel",
    "export_history",
    "history",
    "history_records",
    "import_history",
    "lineage",
    "read_request",
    "resume",
    "start_classroom",
    "start_emulator",
    "sweep",
    "validate_request",
]

if TYPE_CHECKING:
    from mediagen_nb._defaults import resume
    from mediagen_nb.classroom import ClassroomPanel, start_classroom
    from mediagen_nb.client import (
        APIConnectionError,
        APIError,
        APITimeoutError,
        AssetError,
        AssetNotUsableError,
        AssetTimeoutError,
        AsyncClient,
        AuthenticationError,
        BadRequestError,
        Client,
        ConfigurationError,
        MalformedResponseError,
        MediagenError,
        NotFoundError,
        RateLimitError,
        ResponseTooLargeError,
        ServerError,
        StreamInterruptedError,
        Task,
        TaskCancelledError,
        TaskError,
        TaskFailedError,
        TaskTimeoutError,
        read_request,
    )
    from mediagen_nb.emulator import start_emulator
    from mediagen_nb.history import (
        export_history,
        history,
        history_records,
        import_history,
        lineage,
    )
    from mediagen_nb.sweeps import sweep
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
    from mediagen_nb.emulator._server import fallback_endpoint

    return fallback_endpoint()


def _known_frames(data: bytes, which: _frame_sources.Which) -> bytes | None:
    from mediagen_nb.emulator._clips import stock_frame

    return stock_frame(data, which)


_hooks.set_recorder_factory(_default_recorder)
_hooks.set_fallback_service(_fallback_service)
_frame_sources.set_known_frames(_known_frames)
