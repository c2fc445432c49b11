"""The provider-neutral side of the LLM layer: the model contract's message types, request
options and budgets, usage and prices, and the guard against real requests.

A model is any object with ``chat()`` and ``structured()`` (``async def`` for the async API)
taking and returning the types here. The clients themselves live in
``stagehand_py._async.llm`` (and their generated sync twins).
"""

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
from ._options import DEFAULT_MAX_TOKENS, request_options
from ._usage import ModelPrice, PriceTable, UsageMeter

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "ChatResponse",
    "ImagePart",
    "Message",
    "ModelPrice",
    "PriceTable",
    "RequestKind",
    "RequestOptions",
    "StructuredResponse",
    "ToolCall",
    "ToolSpec",
    "Usage",
    "UsageMeter",
    "block_real_requests",
    "check_request_allowed",
    "real_requests_blocked",
    "request_options",
]
