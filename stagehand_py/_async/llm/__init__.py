"""Async LLM clients (hand-written source of the sync twins in ``stagehand_py._sync.llm``)."""

from .anthropic import AsyncAnthropicLLM
from .base import AsyncLLM
from .factory import create_llm
from .openai import AsyncOpenAILLM
from .testing import AsyncFunctionLLM, AsyncScriptedLLM

__all__ = [
    "AsyncAnthropicLLM",
    "AsyncFunctionLLM",
    "AsyncLLM",
    "AsyncOpenAILLM",
    "AsyncScriptedLLM",
    "create_llm",
]
