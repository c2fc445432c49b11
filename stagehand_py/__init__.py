"""stagehand_py: drive a Playwright page in plain language.

Wrap your own page (sync or async) and it gains ``act``, ``extract``, ``observe`` and
``check``::

    from stagehand_py import Stagehand

    sh = Stagehand(model="openai/gpt-4.1-mini")
    page = sh.wrap(browser.new_page())
    page.act("fill the form with <|EMAIL|>", variables={"email": "ada@example.com"})
    page.check("the page thanks <|EMAIL|> for joining", variables={"email": "ada@example.com"})

Fakes for your own tests live in :mod:`stagehand_py.testing`.
"""

from ._async.browser.launch import launch_chromium as async_launch_chromium
from ._async.page import AsyncStagehandPage
from ._async.stagehand import AsyncStagehand
from ._chromium import find_chromium
from ._config import Settings
from ._emergency import EmergencySettings, Escalation
from ._errors import (
    ActError,
    ActTimeoutError,
    BrowserNotFoundError,
    BudgetExceededError,
    CacheError,
    CacheMissError,
    CheckError,
    ConfigurationError,
    ElementNotFoundError,
    ExtractError,
    IncompleteOutputError,
    LLMError,
    MissingAPIKeyError,
    PageError,
    ProviderError,
    RealRequestsBlockedError,
    ScriptExhaustedError,
    SerializationError,
    StagehandError,
    StagehandTimeoutError,
    StructuredOutputError,
)
from ._history import CallRecord
from ._inspect_api import annotated_screenshot, take_snapshot
from ._secret import Secret
from ._snapshot import Box, Chunk, Element, Snapshot
from ._sync.browser.launch import launch_chromium
from ._sync.page import StagehandPage
from ._sync.stagehand import Stagehand
from ._trace_scrub import scrub_trace
from ._types import ActErrorCode, ActionRecord, ActResult, ObserveResult, Verification
from .agent import AgentControls, AgentResult, AgentSettings
from .cache import CacheWarning
from .check import CheckResult
from .llm import PriceTable, Usage
from .workflow import WorkflowHistory, WorkflowItem, WorkflowResult, WorkflowSettings

__version__ = "0.1.0"

__all__ = [
    "ActError",
    "ActErrorCode",
    "ActResult",
    "ActTimeoutError",
    "ActionRecord",
    "AgentControls",
    "AgentResult",
    "AgentSettings",
    "AsyncStagehand",
    "AsyncStagehandPage",
    "Box",
    "BrowserNotFoundError",
    "BudgetExceededError",
    "CacheError",
    "CacheMissError",
    "CacheWarning",
    "CallRecord",
    "CheckError",
    "CheckResult",
    "Chunk",
    "ConfigurationError",
    "Element",
    "ElementNotFoundError",
    "EmergencySettings",
    "Escalation",
    "ExtractError",
    "IncompleteOutputError",
    "LLMError",
    "MissingAPIKeyError",
    "ObserveResult",
    "PageError",
    "PriceTable",
    "ProviderError",
    "RealRequestsBlockedError",
    "ScriptExhaustedError",
    "Secret",
    "SerializationError",
    "Settings",
    "Snapshot",
    "Stagehand",
    "StagehandError",
    "StagehandPage",
    "StagehandTimeoutError",
    "StructuredOutputError",
    "Usage",
    "Verification",
    "WorkflowHistory",
    "WorkflowItem",
    "WorkflowResult",
    "WorkflowSettings",
    "__version__",
    "annotated_screenshot",
    "async_launch_chromium",
    "find_chromium",
    "launch_chromium",
    "scrub_trace",
    "take_snapshot",
]
