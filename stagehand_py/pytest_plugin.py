"""pytest plugin for stagehand_py (registered through the ``pytest11`` entry point).

Built on pytest-playwright's fixture chain; it never launches a browser of its own.

Fixtures (sync, with pytest-playwright):
    ``stagehand``        session-scoped :class:`~stagehand_py.Stagehand` built from the options
    ``stagehand_page``   pytest-playwright's ``page``, wrapped (act/extract/observe added)
Fixtures (async, when pytest-playwright-asyncio is the Playwright plugin in use):
    ``async_stagehand``, ``async_stagehand_page``
Fixtures you may override in a conftest.py:
    ``stagehand_llm``       the model client (default: ``None`` = from the options/environment)
    ``stagehand_settings``  limits and timeouts (default: ``Settings.from_env()``)
    ``stagehand_url_normalizer``  a function ``url -> url`` applied to cache keys (default None)

These fixtures need pytest-playwright (sync) or pytest-playwright-asyncio (async); with
neither installed, asking for one fails the test with a message saying what to install.

Options (group "stagehand"), each with an environment variable used when the option is absent:
    --stagehand-model        STAGEHAND_PY_MODEL       e.g. openai/gpt-4.1-mini
    --stagehand-base-url     STAGEHAND_PY_BASE_URL    an OpenAI-compatible server
    --stagehand-cache-dir    STAGEHAND_PY_CACHE_DIR   action cache directory
    --stagehand-history-dir  STAGEHAND_PY_HISTORY_DIR per-site workflow history directory
    --stagehand-cache-mode   STAGEHAND_PY_CACHE_MODE  read-write, read-only or require
    --stagehand-cache-url    STAGEHAND_PY_CACHE_URL   auto, full or path (what of the URL keys)
    --stagehand-fake         STAGEHAND_PY_FAKE=1      scripted fake model, see below
    --stagehand-no-chromium  STAGEHAND_PY_NO_CHROMIUM=1

With a cache directory, each test's cache writes are held until it ends and written only if
it passed (setup, call and teardown): a failing test never records steps. The terminal
summary says how many model calls the session made and how the cache did.

``--stagehand-fake`` swaps the model for a :class:`~stagehand_py.testing.ScriptedLLM` (async
twin under pytest-playwright-asyncio) that is fresh for every test and reachable as the
``stagehand_fake`` fixture: queue its replies in the test (``stagehand_fake.queue(...)``) and
read what it was sent (``stagehand_fake.requests``). Nothing leaves the machine; a request with
no queued reply fails the test with ``ScriptExhaustedError`` naming the request.

When Playwright's own Chromium is not installed, the plugin adds the Chromium that
:func:`~stagehand_py.find_chromium` finds to ``browser_type_launch_args`` (only for the
chromium browser, and never over an explicit ``executable_path`` or ``--browser-channel``).

When a test fails, its report gets a "stagehand" section: the summary of every act, extract
and observe made during the test (already redacted: variable values never appear).

When a test used variables and pytest-playwright kept a trace of it (``--tracing on`` or
``retain-on-failure``), the trace is rewritten without those values (:func:`scrub_trace`).
"""

from __future__ import annotations

import os
import time
import types
import warnings
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from ._chromium import find_chromium, launch_args, playwright_bundled_chromium
from ._config import Settings
from ._errors import CacheError
from ._history import CallRecord
from ._session_secrets import UsedSecrets
from ._variables import Variables
from .cache import ActionCache, CacheWarning
from .llm._messages import Message, ToolSpec

T = TypeVar("T", bound=BaseModel)

# Where each test's start position in the SDK's history is kept, for the failure report.
_HISTORY_KEY = pytest.StashKey[tuple[list[CallRecord], int]]()
# The secrets a test used and when it started, to scrub the traces written for it.
_USED_SECRETS_KEY = pytest.StashKey[tuple[UsedSecrets, float]]()
# The cache whose writes the test holds, and whether any phase of the test failed.
_HELD_CACHE_KEY = pytest.StashKey[ActionCache]()
_FAILED_KEY = pytest.StashKey[bool]()
# Every SDK the session built, for the terminal summary.
_SDKS_KEY = pytest.StashKey[list[Any]]()
_NEEDS_PLAYWRIGHT = (
    "stagehand_py's pytest fixtures are built on pytest-playwright's `page`: install "
    "pytest-playwright (sync tests: pip install pytest-playwright) or "
    "pytest-playwright-asyncio (async tests), then run pytest again."
)
_SYNC_PLUGINS = ("playwright", "pytest_playwright.pytest_playwright")
_ASYNC_PLUGINS = ("playwright-asyncio", "pytest_playwright_asyncio.pytest_playwright_asyncio")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stagehand", "stagehand_py: act/extract/observe in tests")
    group.addoption(
        "--stagehand-model",
        default=None,
        help="Model as provider/name, e.g. openai/gpt-4.1-mini (env STAGEHAND_PY_MODEL).",
    )
    group.addoption(
        "--stagehand-base-url",
        default=None,
        help="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 "
        "(env STAGEHAND_PY_BASE_URL).",
    )
    group.addoption(
        "--stagehand-cache-dir",
        default=None,
        help="Directory of the action cache (env STAGEHAND_PY_CACHE_DIR).",
    )
    group.addoption(
        "--stagehand-history-dir",
        default=None,
        help="Directory of the per-site workflow history (env STAGEHAND_PY_HISTORY_DIR).",
    )
    group.addoption(
        "--stagehand-cache-mode",
        default=None,
        choices=("read-write", "read-only", "require"),
        help="read-write (default): replay and record; read-only: replay, never write; "
        "require: a miss fails the test with CacheMissError and the model is never called "
        "(env STAGEHAND_PY_CACHE_MODE).",
    )
    group.addoption(
        "--stagehand-cache-url",
        default=None,
        choices=("auto", "full", "path"),
        help="What of the page URL keys a cache entry: auto (default: path and query on "
        "127.0.0.1/localhost, whose port changes every run; the full URL elsewhere), full, or "
        "path (env STAGEHAND_PY_CACHE_URL).",
    )
    group.addoption(
        "--stagehand-fake",
        action="store_true",
        default=None,
        help="Use a scripted fake model (fixture stagehand_fake) instead of a real one "
        "(env STAGEHAND_PY_FAKE=1).",
    )
    group.addoption(
        "--stagehand-no-chromium",
        action="store_true",
        default=None,
        help="Do not supply a Chromium to pytest-playwright when Playwright's own is missing "
        "(env STAGEHAND_PY_NO_CHROMIUM=1).",
    )


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _option(config: pytest.Config, name: str, env: str) -> str | None:
    value = config.getoption(name)
    return str(value) if value else os.environ.get(env) or None


def _flag(config: pytest.Config, name: str, env: str) -> bool:
    return bool(config.getoption(name)) or _env_flag(env)


def _has_any(config: pytest.Config, names: Sequence[str]) -> bool:
    return any(config.pluginmanager.hasplugin(name) for name in names)


def pytest_configure(config: pytest.Config) -> None:
    # Registered here, after every entry-point plugin, so our fixtures override
    # pytest-playwright's (and a conftest.py still overrides ours).
    if _has_any(config, _ASYNC_PLUGINS):
        fixtures = _sdk_fixtures(is_async=True)
    elif _has_any(config, _SYNC_PLUGINS):
        fixtures = _sdk_fixtures(is_async=False)
    else:
        # Say what to install where the fixtures are used (and only there: this plugin loads
        # in every pytest run of an environment that has the package).
        config.pluginmanager.register(
            _missing_playwright_fixtures(), f"{__name__}.missing_playwright"
        )
        return
    config.pluginmanager.register(fixtures, f"{__name__}.sdk_fixtures")
    config.pluginmanager.register(_chromium_supply(), f"{__name__}.chromium_supply")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    marked = item.stash.get(_HISTORY_KEY, None)
    if report.failed and marked is not None:
        history, start = marked
        calls = history[start:]
        if calls:
            report.sections.append(("stagehand", "\n".join(record.summary() for record in calls)))
    _settle_held_writes(item, report)
    if report.when == "teardown":
        # pytest-playwright moves the test's traces into place before this runs (its wrapper
        # is trylast) and lists them on this report.
        _scrub_test_traces(item, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    used = UsedSecrets().__enter__()
    item.stash[_USED_SECRETS_KEY] = (used, time.time())


def _scrub_test_traces(item: pytest.Item, report: pytest.TestReport) -> None:
    """Rewrite the traces written for this test without the variables it used."""
    from ._trace_scrub import scrub_trace

    entry = item.stash.get(_USED_SECRETS_KEY, None)
    if entry is None:
        return
    del item.stash[_USED_SECRETS_KEY]
    used, started = entry
    used.__exit__()
    if not used:
        return
    traces = {
        Path(item.config.invocation_params.dir, str(value))
        for name, value in report.user_properties
        if name == "playwright_trace"
    }
    output = item.config.getoption("--output", default=None)
    if output:  # traces of this test that no report lists (another plugin's, a retry's)
        traces.update(
            path
            for path in Path(item.config.invocation_params.dir, output).rglob("trace*.zip")
            if path.stat().st_mtime >= started - 1
        )
    secrets = Variables().remembering(used.items)  # every value, even two under one name
    for trace in sorted(traces):
        if trace.is_file():
            scrub_trace(trace, secrets)


def _settle_held_writes(item: pytest.Item, report: pytest.TestReport) -> None:
    """Write a test's held cache entries when all its phases passed; drop them otherwise."""
    cache = item.stash.get(_HELD_CACHE_KEY, None)
    if cache is None:
        return
    if not report.passed:
        item.stash[_FAILED_KEY] = True
    if report.when != "teardown":
        return
    del item.stash[_HELD_CACHE_KEY]
    if item.stash.get(_FAILED_KEY, False):
        cache.discard()
        return
    try:
        cache.commit()
    except CacheError as exc:  # an unwritable directory must not break the run
        warnings.warn(f"{item.nodeid}: cache entries not written: {exc}", CacheWarning, 2)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    sdks = config.stash.get(_SDKS_KEY, [])
    if not sdks:
        return
    calls = sum(len(sdk.history) for sdk in sdks)
    model_calls = sum(record.llm_calls for sdk in sdks for record in sdk.history)
    line = f"stagehand: {calls} act/extract/observe call(s), {model_calls} model call(s)"
    caches = [sdk.cache for sdk in sdks if sdk.cache is not None]
    if caches:
        hits = sum(cache.stats.hits for cache in caches)
        misses = sum(cache.stats.misses for cache in caches)
        healed = sum(cache.stats.healed for cache in caches)
        writes = sum(cache.stats.writes for cache in caches)
        line += f"; cache: {hits} hit(s), {misses} miss(es), {healed} healed, {writes} write(s)"
    terminalreporter.write_line(line)


def _missing_playwright_fixtures() -> types.ModuleType:
    def needs_playwright() -> None:
        pytest.fail(_NEEDS_PLAYWRIGHT, pytrace=False)

    names = ("stagehand", "stagehand_page", "async_stagehand", "async_stagehand_page")
    return _module(
        "missing_playwright",
        **{name: pytest.fixture(name=name)(needs_playwright) for name in names},
    )


@pytest.fixture(scope="session")
def stagehand_settings() -> Settings:
    """Limits and timeouts of the session's SDK; override to change them for your suite."""
    return Settings.from_env()


@pytest.fixture(scope="session")
def stagehand_url_normalizer() -> Any:
    """A function ``url -> url`` run on every URL before it keys a cache entry (after the
    built-in normalisation), e.g. to drop a session id; ``None`` for none."""
    return None


def _module(name: str, **fixtures: object) -> types.ModuleType:
    # pytest scans a module holder's __dict__ as is (an object's methods would be bound).
    module = types.ModuleType(f"{__name__}.{name}")
    module.__dict__.update(fixtures)
    return module


def _chromium_supply() -> types.ModuleType:
    @pytest.fixture(scope="session")
    def browser_type_launch_args(
        browser_type_launch_args: dict[str, Any], pytestconfig: pytest.Config
    ) -> dict[str, Any]:
        """pytest-playwright's launch arguments, plus a Chromium when Playwright has none."""
        if not _needs_chromium(pytestconfig, browser_type_launch_args):
            return browser_type_launch_args
        return {
            **browser_type_launch_args,
            "executable_path": find_chromium(),
            "args": launch_args(browser_type_launch_args.get("args")),
        }

    return _module("chromium_supply", browser_type_launch_args=browser_type_launch_args)


def _needs_chromium(config: pytest.Config, launch: dict[str, Any]) -> bool:
    if _flag(config, "--stagehand-no-chromium", "STAGEHAND_PY_NO_CHROMIUM"):
        return False
    if launch.get("executable_path") or launch.get("channel"):
        return False
    browsers = config.getoption("--browser", default=None) or ["chromium"]
    if any(name != "chromium" for name in browsers):
        return False
    return playwright_bundled_chromium() is None


class _FakeSwitch:
    """The session SDK's model under --stagehand-fake: forwards to the current test's fake.

    Forwarding returns whatever the fake returns, so one class serves both faces: a
    response for ``ScriptedLLM``, an awaitable for ``AsyncScriptedLLM``.
    """

    model = "fake"

    def __init__(self, is_async: bool) -> None:
        self.is_async = is_async
        self.current: Any = None

    def fresh(self) -> Any:
        from .testing import AsyncScriptedLLM, ScriptedLLM

        self.current = (
            AsyncScriptedLLM(model="fake") if self.is_async else ScriptedLLM(model="fake")
        )
        return self.current

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec], **options: Any) -> Any:
        return self.current.chat(messages, tools, **options)

    def structured(self, messages: Sequence[Message], schema: type[T], **options: Any) -> Any:
        return self.current.structured(messages, schema, **options)


def _mark_history(request: pytest.FixtureRequest, history: list[CallRecord]) -> None:
    request.node.stash[_HISTORY_KEY] = (history, len(history))


def _sdk_fixtures(*, is_async: bool) -> types.ModuleType:
    """``stagehand``/``stagehand_page`` (sync) or ``async_stagehand``/``async_stagehand_page``."""
    sdk_name = "async_stagehand" if is_async else "stagehand"

    @pytest.fixture(scope="session")
    def _stagehand_fake_switch(pytestconfig: pytest.Config) -> _FakeSwitch | None:
        if _flag(pytestconfig, "--stagehand-fake", "STAGEHAND_PY_FAKE"):
            return _FakeSwitch(is_async)
        return None

    @pytest.fixture(scope="session")
    def stagehand_llm(_stagehand_fake_switch: _FakeSwitch | None) -> Any:
        """The model client; ``None`` means: build it from the options and environment."""
        return _stagehand_fake_switch

    @pytest.fixture(scope="session", name=sdk_name)
    def sdk(
        pytestconfig: pytest.Config,
        stagehand_llm: Any,
        stagehand_settings: Settings,
        stagehand_url_normalizer: Any,
    ) -> Any:
        """The session's Stagehand (AsyncStagehand), configured from the options."""
        from ._async.stagehand import AsyncStagehand
        from ._sync.stagehand import Stagehand

        # Options given on the command line win over the settings fixture (and its env).
        chosen = {
            "cache_mode": pytestconfig.getoption("--stagehand-cache-mode"),
            "cache_url": pytestconfig.getoption("--stagehand-cache-url"),
        }
        built = (AsyncStagehand if is_async else Stagehand)(
            _option(pytestconfig, "--stagehand-model", "STAGEHAND_PY_MODEL"),
            llm=stagehand_llm,
            base_url=_option(pytestconfig, "--stagehand-base-url", "STAGEHAND_PY_BASE_URL"),
            cache_dir=_option(pytestconfig, "--stagehand-cache-dir", "STAGEHAND_PY_CACHE_DIR"),
            history_dir=_option(
                pytestconfig, "--stagehand-history-dir", "STAGEHAND_PY_HISTORY_DIR"
            ),
            url_normalizer=stagehand_url_normalizer,
            settings=stagehand_settings.updated(**{k: v for k, v in chosen.items() if v}),
        )
        pytestconfig.stash.setdefault(_SDKS_KEY, []).append(built)
        return built

    @pytest.fixture(name=f"{sdk_name}_page")
    def wrapped_page(request: pytest.FixtureRequest, page: Any) -> Any:
        """pytest-playwright's ``page`` with act/extract/observe added."""
        stagehand = request.getfixturevalue(sdk_name)
        _mark_history(request, stagehand.history)
        return stagehand.wrap(page)

    @pytest.fixture(autouse=True)
    def _stagehand_per_test(
        request: pytest.FixtureRequest, _stagehand_fake_switch: _FakeSwitch | None
    ) -> None:
        if _stagehand_fake_switch is not None:
            # A fresh script per test: replies queued by one test never leak into the next.
            _stagehand_fake_switch.fresh()
        # Tests that use the SDK without the wrapped page get a failure report too.
        if {sdk_name, f"{sdk_name}_page"} & set(request.fixturenames):
            built = request.getfixturevalue(sdk_name)
            _mark_history(request, built.history)
            if built.cache is not None:
                # Only a passing test writes to the cache (see _settle_held_writes).
                built.cache.hold_writes()
                request.node.stash[_HELD_CACHE_KEY] = built.cache

    @pytest.fixture
    def stagehand_fake(_stagehand_fake_switch: _FakeSwitch | None) -> Any:
        """This test's scripted fake model (needs --stagehand-fake)."""
        if _stagehand_fake_switch is None:
            pytest.fail("stagehand_fake needs --stagehand-fake (or STAGEHAND_PY_FAKE=1).")
        return _stagehand_fake_switch.current

    return _module(
        "sdk_fixtures",
        _stagehand_fake_switch=_stagehand_fake_switch,
        stagehand_llm=stagehand_llm,
        sdk=sdk,
        wrapped_page=wrapped_page,
        _stagehand_per_test=_stagehand_per_test,
        stagehand_fake=stagehand_fake,
    )
