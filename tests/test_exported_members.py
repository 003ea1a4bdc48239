"""The names ``mediagen_nb`` and its public subpackages export: pinned, sorted, importable,
and nothing else public is importable from them (what users do not call stays private)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

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


SUBPACKAGES: dict[str, list[str]] = {
    "catalog": [
        "FAMILIES",
        "PARAMS",
        "TEXT_MODELS",
        "VALUE",
        "AssetStatus",
        "AssetType",
        "Family",
        "FormControl",
        "Kind",
        "Param",
        "TaskStatus",
        "TextModel",
        "Vendor",
        "asset_uri",
        "families",
        "family",
        "family_for_model",
        "family_for_path",
        "model_title",
        "options",
        "params_for",
        "parse_asset_uri",
        "register_family",
        "text_model",
    ],
    "classroom": [
        "ClassLedger",
        "ClassroomHandle",
        "ClassroomPanel",
        "Limits",
        "PostgresClassLedger",
        "Roster",
        "Rules",
        "SqliteClassLedger",
        "Student",
        "TaskRecord",
        "Upstream",
        "Usage",
        "read_roster",
        "start_classroom",
    ],
    "client": [
        *EXCEPTIONS,
        "AssetBatch",
        "Assets",
        "AsyncClient",
        "BaseStream",
        "Chat",
        "ChatCompletionStream",
        "ChatRetryPolicy",
        "Classroom",
        "Client",
        "Completions",
        "FrameUnavailableError",
        "FunctionTool",
        "Images",
        "MediaHost",
        "MessageStream",
        "Messages",
        "PollPace",
        "RequestValidationError",
        "SavedRequest",
        "StreamManager",
        "SyncStream",
        "SyncTask",
        "Task",
        "Tasks",
        "ToolCallRecord",
        "ToolLoopError",
        "ToolRun",
        "Videos",
        "function_tool",
        "poll_pace",
        "read_request",
        "recording_tags",
        "resolve_settings",
    ],
    "emulator": ["EmulatorHandle", "EmulatorState", "FaultConfig", "create_app", "start_emulator"],
    "history": [
        "HistoryRecords",
        "HistoryUnavailableWarning",
        "Ledger",
        "PendingTask",
        "export",
        "export_history",
        "history",
        "history_records",
        "import_history",
        "ledger",
        "lineage",
        "lineage_records",
        "resume",
        "unfinished",
    ],
    "sweeps": ["BudgetWarning", "Cell", "CellResult", "SweepPlan", "sweep"],
    "types": [
        "AnyContentBlock",
        "AssetFailure",
        "AssetInfo",
        "ChatChoice",
        "ChatCompletion",
        "ChatCompletionChunk",
        "ChatCompletionMessage",
        "ChatProtocol",
        "ChatMessage",
        "ChunkChoice",
        "ChunkDelta",
        "ClassroomAmounts",
        "ClassroomMe",
        "CompletionUsage",
        "ContentBlock",
        "DoneEvent",
        "FunctionCall",
        "FunctionCallDelta",
        "Message",
        "MessageUsage",
        "MessagesMessage",
        "Problem",
        "RedactedThinkingBlock",
        "RequestValidationError",
        "Response",
        "StreamEvent",
        "StreamUpdate",
        "TaskCreateResponse",
        "TaskResult",
        "TextBlock",
        "TextEvent",
        "ThinkingBlock",
        "ThinkingEvent",
        "ToolCall",
        "ToolCallDelta",
        "ToolCallEvent",
        "ToolInputEvent",
        "ToolUseBlock",
        "tool_results_turn",
        "validate_request",
    ],
    "widgets": [
        "AssetPanel",
        "ChatPanel",
        "ChatTranscript",
        "ChatTurn",
        "HistoryPanel",
        "ImagePanel",
        "Result",
        "Session",
        "Studio",
        "SweepGrid",
        "VideoPanel",
    ],
}
TYPING_NAMES = {"Any", "TYPE_CHECKING", "annotations"}
"""What ``from __future__``/``typing`` imports leave in a package's namespace."""


def test_every_public_subpackage_is_pinned() -> None:
    found = {m.name for m in pkgutil.iter_modules(mediagen_nb.__path__) if m.ispkg}
    assert sorted(n for n in found if not n.startswith("_")) == sorted(SUBPACKAGES)


@pytest.mark.parametrize("name", sorted(SUBPACKAGES))
def test_subpackage_exports_are_pinned(name: str) -> None:
    package = importlib.import_module(f"mediagen_nb.{name}")
    assert sorted(package.__all__) == sorted(SUBPACKAGES[name])
    for member in package.__all__:
        assert getattr(package, member) is not None


@pytest.mark.parametrize("name", ["", *sorted(SUBPACKAGES)])
def test_nothing_else_public_is_importable(name: str) -> None:
    package = importlib.import_module("mediagen_nb" + (f".{name}" if name else ""))
    loose = [
        n
        for n in dir(package)
        if not n.startswith("_")
        and n not in package.__all__
        and n not in TYPING_NAMES
        and not inspect.ismodule(getattr(package, n))
    ]
    assert loose == []


def test_internal_helpers_are_not_exported() -> None:
    from mediagen_nb import catalog, client, types

    for package, names in (
        (client, ["SSEDecoder", "aiter_sse", "normalize_status", "RetryTransport", "redact"]),
        (catalog, ["MODEL_TITLES", "VENDOR_TITLE", "STARVIDEOS_MODE_LABELS", "FORMS"]),
        (types, ["ensure_valid", "errors_only", "BananaRequest", "REQUEST_MODELS"]),
    ):
        for member in names:
            assert not hasattr(package, member), f"{package.__name__}.{member}"
