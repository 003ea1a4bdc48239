"""Request models (every rule of the spec) and tolerant response models; no I/O.

``validate_request(path, body)`` is the plain-data front door: it returns a list of
``Problem`` (field as JSON path, rule in plain words, severity error or warning).
"""

from mediagen_nb.types._assets import Sd2AssetStatus, Sd2AssetUpload, Seedance2AssetUpload
from mediagen_nb.types._chat import (
    ChatCompletionRequest,
    ChatMessage,
    MessagesMessage,
    MessagesRequest,
)
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
from mediagen_nb.types._images import BananaRequest, Image2Request, parse_size, size_problems
from mediagen_nb.types._json import json_value_problems
from mediagen_nb.types._problem import (
    Problem,
    RequestModel,
    RequestValidationError,
    RuleContext,
    Severity,
    errors_only,
    is_asset_uri,
    is_url,
)
from mediagen_nb.types._responses import (
    AssetEnvelope,
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
from mediagen_nb.types._validate import (
    REQUEST_MODELS,
    ensure_valid,
    request_model_for,
    validate_request,
)
from mediagen_nb.types._videos import (
    GenericVideoRequest,
    SeedanceRequest,
    SoraRequest,
    StarvideosRequest,
)

__all__ = [
    "REQUEST_MODELS",
    "AnyContentBlock",
    "AssetEnvelope",
    "AssetInfo",
    "BananaRequest",
    "ChatChoice",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionMessage",
    "ChatCompletionRequest",
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
    "GenericVideoRequest",
    "Image2Request",
    "Message",
    "MessageUsage",
    "MessagesMessage",
    "MessagesRequest",
    "Problem",
    "RedactedThinkingBlock",
    "RequestModel",
    "RequestValidationError",
    "Response",
    "RuleContext",
    "Sd2AssetStatus",
    "Sd2AssetUpload",
    "Seedance2AssetUpload",
    "SeedanceRequest",
    "Severity",
    "SoraRequest",
    "StarvideosRequest",
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
    "ensure_valid",
    "errors_only",
    "is_asset_uri",
    "is_url",
    "json_value_problems",
    "parse_size",
    "request_model_for",
    "size_problems",
    "tool_results_turn",
    "validate_request",
]
