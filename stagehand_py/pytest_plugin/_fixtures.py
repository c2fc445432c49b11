"""The fixtures the plugin registers once it knows which Playwright plugin is in use: the
session's SDK and the wrapped page (sync or async), the fake-model switch, the Chromium
supply, and the stand-ins that say what to install when neither Playwright plugin is."""

from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from .._async.stagehand import AsyncStagehand
from .._chromium import playwright_bundled_chromium, with_found_chromium
from .._config import Settings
from .._history import CallRecord
from .._sync.stagehand import Stagehand
from ..llm._messages import Message, ToolSpec
from ..llm._usage import PriceTable
from ..testing import AsyncScriptedLLM, ScriptedLLM
from ._options import flag, option, session_model
from ._report import HELD_CACHE_KEY, HISTORY_KEY, SDKS_KEY

T = TypeVar("T", bound=BaseModel)

PLUGIN = __name__.rpartition(".")[0]
_NEEDS_PLAYWRIGHT = (
    "stagehand_py's pytest fixtures are built on pytest-playwright's `page`: install "
    "pytest-playwright (sync tests: pip install pytest-playwright) or "
    "pytest-playwright-asyncio (async tests), then run pytest again."
)


def fixture_module(name: str, **fixtures: object) -> types.ModuleType:
    """A module holding ``fixtures``, to register as a plugin of its own."""
    # pytest scans a module holder's __dict__ as is (an object's methods would be bound).
    module = types.ModuleType(f"{PLUGIN}.{name}")
    module.__dict__.update(fixtures)
    return module


def missing_playwright_fixtures() -> types.ModuleType:
    def needs_playwright() -> None:
        pytest.fail(_NEEDS_PLAYWRIGHT, pytrace=False)

    names = ("stagehand", "stagehand_page", "async_stagehand", "async_stagehand_page")
    return fixture_module(
        "missing_playwright",
        **{name: pytest.fixture(name=name)(needs_playwright) for name in names},
    )


def chromium_supply() -> types.ModuleType:
    @pytest.fixture(scope="session")
    def browser_type_launch_args(
        browser_type_launch_args: dict[str, Any], pytestconfig: pytest.Config
    ) -> dict[str, Any]:
        """pytest-playwright's launch arguments, plus a Chromium when Playwright has none."""
        if not _needs_chromium(pytestconfig, browser_type_launch_args):
            return browser_type_launch_args
        return with_found_chromium(browser_type_launch_args)

    return fixture_module("chromium_supply", browser_type_launch_args=browser_type_launch_args)


def _needs_chromium(config: pytest.Config, launch: dict[str, Any]) -> bool:
    if flag(config, "--stagehand-no-chromium", "STAGEHAND_PY_NO_CHROMIUM"):
        return False
    if launch.get("executable_path") or launch.get("channel"):
        return False
    browsers = config.getoption("--browser", default=None) or ["chromium"]
    if any(name != "chromium" for name in browsers):
        return False
    return playwright_bundled_chromium() is None


class FakeSwitch:
    """The session SDK's model under --stagehand-fake: forwards to the current test's fake.

    Forwarding returns whatever the fake returns, so one class serves both faces: a
    response for ``ScriptedLLM``, an awaitable for ``AsyncScriptedLLM``.
    """

    model = "fake"

    def __init__(self, is_async: bool) -> None:
        self.is_async = is_async
        self.current: Any = None

    def fresh(self) -> Any:
        self.current = (
            AsyncScriptedLLM(model="fake") if self.is_async else ScriptedLLM(model="fake")
        )
        return self.current

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec], **options: Any) -> Any:
        return self.current.chat(messages, tools, **options)

    def structured(self, messages: Sequence[Message], schema: type[T], **options: Any) -> Any:
        return self.current.structured(messages, schema, **options)


def _mark_history(request: pytest.FixtureRequest, history: list[CallRecord]) -> None:
    request.node.stash[HISTORY_KEY] = (history, len(history))


def _build_sdk(
    config: pytest.Config,
    is_async: bool,
    llm: Any,
    settings: Settings,
    url_normalizer: Any,
    prices: PriceTable | None,
) -> Any:
    # Options given on the command line win over the settings fixture (and its env).
    chosen = {
        "cache_mode": config.getoption("--stagehand-cache-mode"),
        "cache_url": config.getoption("--stagehand-cache-url"),
    }
    built = (AsyncStagehand if is_async else Stagehand)(
        session_model(config),
        llm=llm,
        base_url=option(config, "--stagehand-base-url", "STAGEHAND_PY_BASE_URL"),
        cache_dir=option(config, "--stagehand-cache-dir", "STAGEHAND_PY_CACHE_DIR"),
        history_dir=option(config, "--stagehand-history-dir", "STAGEHAND_PY_HISTORY_DIR"),
        url_normalizer=url_normalizer,
        settings=settings.updated(**{k: v for k, v in chosen.items() if v}),
        prices=prices,
    )
    config.stash.setdefault(SDKS_KEY, []).append(built)
    return built


def sdk_fixtures(*, is_async: bool) -> types.ModuleType:
    """``stagehand``/``stagehand_page`` (sync) or ``async_stagehand``/``async_stagehand_page``."""
    sdk_name = "async_stagehand" if is_async else "stagehand"

    @pytest.fixture(scope="session")
    def _stagehand_fake_switch(pytestconfig: pytest.Config) -> FakeSwitch | None:
        if flag(pytestconfig, "--stagehand-fake", "STAGEHAND_PY_FAKE"):
            return FakeSwitch(is_async)
        return None

    @pytest.fixture(scope="session")
    def stagehand_llm(_stagehand_fake_switch: FakeSwitch | None) -> Any:
        """The model client; ``None`` means: build it from the options and environment."""
        return _stagehand_fake_switch

    @pytest.fixture(scope="session", name=sdk_name)
    def sdk(
        pytestconfig: pytest.Config,
        stagehand_llm: Any,
        stagehand_settings: Settings,
        stagehand_url_normalizer: Any,
        stagehand_prices: PriceTable | None,
    ) -> Any:
        """The session's Stagehand (AsyncStagehand), configured from the options."""
        return _build_sdk(
            pytestconfig,
            is_async,
            stagehand_llm,
            stagehand_settings,
            stagehand_url_normalizer,
            stagehand_prices,
        )

    @pytest.fixture(name=f"{sdk_name}_page")
    def wrapped_page(request: pytest.FixtureRequest, page: Any) -> Any:
        """pytest-playwright's ``page`` with act/extract/observe/check added."""
        stagehand = request.getfixturevalue(sdk_name)
        _mark_history(request, stagehand.history)
        return stagehand.wrap(page)

    @pytest.fixture(autouse=True)
    def _stagehand_per_test(
        request: pytest.FixtureRequest, _stagehand_fake_switch: FakeSwitch | None
    ) -> None:
        if _stagehand_fake_switch is not None:
            # A fresh script per test: replies queued by one test never leak into the next.
            _stagehand_fake_switch.fresh()
        # Tests that use the SDK without the wrapped page get a failure report too.
        if {sdk_name, f"{sdk_name}_page"} & set(request.fixturenames):
            built = request.getfixturevalue(sdk_name)
            _mark_history(request, built.history)
            if built.cache is not None:
                # Only a passing test writes to the cache (see _report.settle_held_writes).
                built.cache.hold_writes()
                request.node.stash[HELD_CACHE_KEY] = built.cache

    @pytest.fixture
    def stagehand_fake(_stagehand_fake_switch: FakeSwitch | None) -> Any:
        """This test's scripted fake model (needs --stagehand-fake)."""
        if _stagehand_fake_switch is None:
            pytest.fail("stagehand_fake needs --stagehand-fake (or STAGEHAND_PY_FAKE=1).")
        return _stagehand_fake_switch.current

    return fixture_module(
        "sdk_fixtures",
        _stagehand_fake_switch=_stagehand_fake_switch,
        stagehand_llm=stagehand_llm,
        sdk=sdk,
        wrapped_page=wrapped_page,
        _stagehand_per_test=_stagehand_per_test,
        stagehand_fake=stagehand_fake,
    )
