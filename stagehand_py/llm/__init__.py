"""The provider-neutral side of the LLM layer: message types, usage, model strings, the guard.

The clients themselves live in ``stagehand_py._async.llm`` (and their generated sync twins).
"""

from .._errors import (
    IncompleteOutputError,
    LLMError,
    MissingAPIKeyError,
    ProviderError,
    RealRequestsBlockedError,
    ScriptExhaustedError,
    StructuredOutputError,
)
from .._usage import Usage
from ._guard import block_real_requests, check_request_allowed, real_requests_blocked
from ._messages import (
    ChatResponse,
    ImagePart,
    Message,
    RequestKind,
    RequestOptions,
    StructuredResponse,
    ToolCall,
    ToolSpec,
)
from ._model_string import ModelSpec, parse_model_string
from ._options import DEFAULT_MAX_TOKENS, request_options
from ._usage import ModelPrice, PriceTable, UsageMeter

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "ChatResponse",
    "ImagePart",
    "IncompleteOutputError",
    "LLMError",
    "Message",
    "MissingAPIKeyError",
    "ModelPrice",
    "ModelSpec",
    "PriceTable",
    "ProviderError",
    "RealRequestsBlockedError",
    "RequestKind",
    "RequestOptions",
    "ScriptExhaustedError",
    "StructuredOutputError",
    "StructuredResponse",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageMeter",
    "block_real_requests",
    "check_request_allowed",
    "parse_model_string",
    "real_requests_blocked",
    "request_options",
]
