"""Model clients for OpenAI (and OpenAI-compatible servers) and Anthropic, sync and async.

Most programs never need these directly: ``Stagehand(model="openai/gpt-4.1-mini")`` builds the
client. Use them to share one client between several ``Stagehand`` objects or to set timeouts
and retries::

    from stagehand_py import Stagehand
    from stagehand_py.providers import OpenAILLM

    llm = OpenAILLM("llama3.1", base_url="http://127.0.0.1:11434/v1", timeout=120)
    sh = Stagehand(llm=llm)

Importing this module imports the ``openai`` SDK, and the ``anthropic`` SDK when it is
installed (``pip install 'pystagehand[anthropic]'``); without it, using ``AnthropicLLM`` raises
:class:`~stagehand_py.ConfigurationError` naming that extra.
"""

from ._async.llm.base import AsyncLLM
from ._async.llm.factory import ANTHROPIC_EXTRA_MISSING
from ._async.llm.factory import create_llm as create_async_llm
from ._async.llm.openai import AsyncOpenAILLM
from ._errors import ConfigurationError
from ._sync.llm.base import LLM
from ._sync.llm.factory import create_llm
from ._sync.llm.openai import OpenAILLM

try:
    from ._async.llm.anthropic import AsyncAnthropicLLM
    from ._sync.llm.anthropic import AnthropicLLM
except ModuleNotFoundError as error:  # the optional SDK is missing: say which extra brings it
    if error.name != "anthropic":
        raise

    def __getattr__(name: str) -> object:
        if name in ("AnthropicLLM", "AsyncAnthropicLLM"):
            raise ConfigurationError(f"{ANTHROPIC_EXTRA_MISSING} ({name})")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LLM",
    "AnthropicLLM",
    "AsyncAnthropicLLM",
    "AsyncLLM",
    "AsyncOpenAILLM",
    "OpenAILLM",
    "create_async_llm",
    "create_llm",
]
