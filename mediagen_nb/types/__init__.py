"""Request models (every rule of the spec) and tolerant response models; no I/O.

``validate_request(path, body)`` is the plain-data front door: it returns a list of
``Problem`` (field as JSON path, rule in plain words, severity error or warning).
"""

from mediagen_nb.catalog._text import ChatProtocol
from mediagen_nb.types._chat import ChatMessage, MessagesMessage
from mediagen_nb.types._chat_parts import (
    AnyContentBlock,
    ContentBlock,
    FunctionCall,
    FunctionCallDelta,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallDelta,
    ToolUseBlock,
    tool_results_turn,
)
from mediagen_nb.types._classroom import ClassroomAmounts, ClassroomMe
from mediagen_nb.types._problem import Problem, RequestValidationError
from mediagen_nb.types._responses import (
    AssetFailure,
    AssetInfo,
    ChatChoice,
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChunkChoice,
    ChunkDelta,
    CompletionUsage,
    Message,
    MessageUsage,
    StreamEvent,
    TaskCreateResponse,
    TaskResult,
)
from mediagen_nb.types._responses_base import Response
from mediagen_nb.types._stream_events import (
    DoneEvent,
    StreamUpdate,
    TextEvent,
    ThinkingEvent,
    ToolCallEvent,
    ToolInputEvent,
)
from mediagen_nb.types._validate import validate_request

__all__ = [
    "AnyContentBlock",
    "AssetFailure",
    "AssetInfo",
    "ChatChoice",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionMessage",
    "ChatMessage",
    "ChatProtocol",
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
]
