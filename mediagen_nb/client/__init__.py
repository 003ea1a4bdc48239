"""Typed async client (and a blocking twin) for every endpoint of the service.

It validates bodies before sending, retries what is safe, polls tasks at the catalog's pace,
parses chat streams and records everything to the history. With no key it talks to the
built-in emulator ("demo mode"). Importing it loads neither pandas, PIL nor ipywidgets.
"""

from mediagen_nb._frame_sources import FrameUnavailableError
from mediagen_nb.types import RequestValidationError

from ._assets import AssetBatch, Assets
from ._chat import Chat, Completions, Messages, StreamManager
from ._chat_retry import ChatRetryPolicy
from ._chat_tools import FunctionTool, ToolCallRecord, ToolRun, function_tool
from ._classroom import Classroom
from ._client import AsyncClient
from ._config import resolve_settings
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
from ._media import Images, Tasks, Videos
from ._media_host import MediaHost
from ._pace import PollPace, poll_pace
from ._recording import recording_tags
from ._saved import SavedRequest, read_request
from ._streams import BaseStream, ChatCompletionStream, MessageStream
from ._sync import Client, SyncStream, SyncTask
from ._tasks import Task

__all__ = [
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
    "MessageStream",
    "Messages",
    "NotFoundError",
    "PollPace",
    "RateLimitError",
    "RequestValidationError",
    "ResponseTooLargeError",
    "SavedRequest",
    "ServerError",
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
    "function_tool",
    "poll_pace",
    "read_request",
    "recording_tags",
    "resolve_settings",
]
