"""Typed async client (and a blocking twin) for every endpoint of the service.

``AsyncClient`` talks to the real service (``MEDIAGEN_API_KEY`` and base URLs) or, with no key,
to the built-in emulator ("demo mode"). It validates bodies before sending, retries what is
safe, polls tasks at the catalog's pace, parses chat streams, and records everything to the
history ledger through ``mediagen_nb._hooks``. Importing it loads neither pandas, PIL nor
ipywidgets.
"""

from mediagen_nb.types import RequestValidationError

from ._assemble import ChatAccumulator, MessageAccumulator
from ._assets import AssetBatch, Assets
from ._chat import Chat, Completions, Messages, StreamManager
from ._chat_retry import ChatRetryPolicy
from ._chat_tools import FunctionTool, ToolCallRecord, ToolLoopError, ToolRun, function_tool
from ._classroom import Classroom
from ._client import DEFAULT_RECORDER, AsyncClient
from ._config import RedactingFilter, Secret, install_log_redaction, redact, resolve_settings
from ._exceptions import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AssetError,
    AssetNotUsableError,
    AssetTimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    MediagenError,
    NotFoundError,
    RateLimitError,
    ServerError,
    StreamInterruptedError,
    TaskCancelledError,
    TaskError,
    TaskFailedError,
    TaskTimeoutError,
)
from ._media import Images, Tasks, Videos
from ._retry import RetryTransport
from ._sse import ServerSentEvent, SSEDecoder, aiter_sse
from ._streams import BaseStream, ChatCompletionStream, MessageStream
from ._sync import Client, SyncStream, SyncTask
from ._tasks import Task, normalize_status

__all__ = [
    "DEFAULT_RECORDER",
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AssetBatch",
    "AssetError",
    "AssetNotUsableError",
    "AssetTimeoutError",
    "Assets",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "BaseStream",
    "Chat",
    "ChatAccumulator",
    "ChatCompletionStream",
    "ChatRetryPolicy",
    "Classroom",
    "Client",
    "Completions",
    "ConfigurationError",
    "FunctionTool",
    "Images",
    "MediagenError",
    "MessageAccumulator",
    "MessageStream",
    "Messages",
    "NotFoundError",
    "RateLimitError",
    "RedactingFilter",
    "RequestValidationError",
    "RetryTransport",
    "SSEDecoder",
    "Secret",
    "ServerError",
    "ServerSentEvent",
    "StreamInterruptedError",
    "StreamManager",
    "SyncStream",
    "SyncTask",
    "Task",
    "TaskCancelledError",
    "TaskError",
    "TaskFailedError",
    "TaskTimeoutError",
    "Tasks",
    "ToolCallRecord",
    "ToolLoopError",
    "ToolRun",
    "Videos",
    "aiter_sse",
    "function_tool",
    "install_log_redaction",
    "normalize_status",
    "redact",
    "resolve_settings",
]
