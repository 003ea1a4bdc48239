"""Typed async client (and a blocking twin) for every endpoint of the service.

It validates bodies before sending, retries what is safe, polls tasks at the catalog's pace,
parses chat streams and records everything to the history. With no key it talks to the
built-in emulator ("demo mode"). Importing it loads neither pandas, PIL nor ipywidgets.
"""

from mediagen_nb._frame_sources import FrameUnavailableError
from mediagen_nb.types import RequestValidationError

from ._assemble import ChatAccumulator, MessageAccumulator
from ._assets import AssetBatch, Assets
from ._chat import Chat, Completions, Messages, StreamManager
from ._chat_retry import ChatRetryPolicy
from ._chat_tools import FunctionTool, ToolCallRecord, ToolRun, function_tool
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
    MalformedResponseError,
    MediagenError,
    NotFoundError,
    RateLimitError,
    ResponseTooLargeError,
    ServerError,
    StreamInterruptedError,
    TaskCancelledError,
    TaskError,
    TaskFailedError,
    TaskTimeoutError,
    ToolLoopError,
)
from ._frames import any_frame_png, frame_png, video_size
from ._media import Images, Tasks, Videos
from ._media_host import MediaHost
from ._recording import recording_tags
from ._retry import RetryTransport
from ._saved import SavedRequest, read_request
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
    "FrameUnavailableError",
    "FunctionTool",
    "Images",
    "MalformedResponseError",
    "MediaHost",
    "MediagenError",
    "MessageAccumulator",
    "MessageStream",
    "Messages",
    "NotFoundError",
    "RateLimitError",
    "RedactingFilter",
    "RequestValidationError",
    "ResponseTooLargeError",
    "RetryTransport",
    "SSEDecoder",
    "SavedRequest",
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
    "any_frame_png",
    "frame_png",
    "function_tool",
    "install_log_redaction",
    "normalize_status",
    "read_request",
    "recording_tags",
    "redact",
    "resolve_settings",
    "video_size",
]
