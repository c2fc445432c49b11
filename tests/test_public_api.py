"""The public surface is deliberate: pinned here so a change to it is a visible decision."""

from __future__ import annotations

import importlib.resources

import stagehand_py
import stagehand_py.testing

PUBLIC = [
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


def test_all_is_pinned_and_sorted() -> None:
    assert stagehand_py.__all__ == PUBLIC
    assert sorted(PUBLIC) == PUBLIC
    for name in PUBLIC:
        assert hasattr(stagehand_py, name), name


def test_testing_module_exports_resolve() -> None:
    for name in stagehand_py.testing.__all__:
        assert getattr(stagehand_py.testing, name) is not None


def test_every_error_derives_from_the_base() -> None:
    errors = [getattr(stagehand_py, n) for n in PUBLIC if n.endswith("Error")]
    assert all(issubclass(e, stagehand_py.StagehandError) for e in errors)
    assert issubclass(stagehand_py.ActTimeoutError, stagehand_py.ActError)
    assert issubclass(stagehand_py.ActTimeoutError, stagehand_py.StagehandTimeoutError)
    assert issubclass(stagehand_py.MissingAPIKeyError, stagehand_py.ConfigurationError)


def test_package_ships_typing_marker_and_browser_code() -> None:
    root = importlib.resources.files("stagehand_py")
    assert root.joinpath("py.typed").is_file()
    assert root.joinpath("dom", "serializer", "10_setup.js").is_file()
