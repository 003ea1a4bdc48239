"""The names ``mediagen_nb`` exports: pinned, sorted, and each one importable."""

from __future__ import annotations

import mediagen_nb
from mediagen_nb import client as client_pkg

EXCEPTIONS = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AssetError",
    "AssetNotUsableError",
    "AssetTimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "MalformedResponseError",
    "MediagenError",
    "NotFoundError",
    "RateLimitError",
    "ResponseTooLargeError",
    "ServerError",
    "StreamInterruptedError",
    "TaskCancelledError",
    "TaskError",
    "TaskFailedError",
    "TaskTimeoutError",
]


def test_top_level_names_are_pinned_and_sorted() -> None:
    assert mediagen_nb.__all__ == sorted(
        [
            *EXCEPTIONS,
            "AssetPanel",
            "AsyncClient",
            "ChatPanel",
            "ClassroomPanel",
            "Client",
            "HistoryPanel",
            "ImagePanel",
            "Problem",
            "RequestValidationError",
            "Studio",
            "Task",
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
    )


def test_the_exception_tree_is_importable_from_the_package() -> None:
    for name in EXCEPTIONS:
        exported = getattr(mediagen_nb, name)
        assert exported is getattr(client_pkg, name)
        assert issubclass(exported, Exception)
    assert issubclass(mediagen_nb.RateLimitError, mediagen_nb.APIError)
    assert issubclass(mediagen_nb.APIError, mediagen_nb.MediagenError)
    assert issubclass(mediagen_nb.APITimeoutError, mediagen_nb.APIConnectionError)
    assert set(EXCEPTIONS) <= set(dir(mediagen_nb))
