"""pytest plugin for stagehand_py (registered through the ``pytest11`` entry point).

Built on pytest-playwright's fixture chain; it never launches a browser of its own.

Fixtures (sync, with pytest-playwright):
    ``stagehand``        session-scoped :class:`~stagehand_py.Stagehand` built from the options
    ``stagehand_page``   pytest-playwright's ``page``, wrapped (act/extract/observe/check added)
Fixtures (async, when pytest-playwright-asyncio is the Playwright plugin in use):
    ``async_stagehand``, ``async_stagehand_page``
Fixtures you may override in a conftest.py:
    ``stagehand_llm``       the model client (default: ``None`` = from the options/environment)
    ``stagehand_settings``  limits and timeouts (default: ``Settings.from_env()``)
    ``stagehand_prices``    a :class:`~stagehand_py.PriceTable` for the costs (default: None)
    ``stagehand_url_normalizer``  a function ``url -> url`` applied to cache keys (default None)

These fixtures need pytest-playwright (sync) or pytest-playwright-asyncio (async); with
neither installed, asking for one fails the test with a message saying what to install.

Options (group "stagehand"), each with an environment variable used when the option is absent:
    --stagehand-model        STAGEHAND_PY_MODEL       e.g. openai/gpt-4.1-mini (default with
                             only a key set: openai/gpt-4.1-mini for OPENAI_API_KEY, else
                             anthropic/claude-haiku-4-5 for ANTHROPIC_API_KEY)
    --stagehand-base-url     STAGEHAND_PY_BASE_URL    an OpenAI-compatible server
    --stagehand-cache-dir    STAGEHAND_PY_CACHE_DIR   action cache directory
    --stagehand-history-dir  STAGEHAND_PY_HISTORY_DIR per-site workflow history directory
    --stagehand-cache-mode   STAGEHAND_PY_CACHE_MODE  read-write, read-only or require
    --stagehand-cache-url    STAGEHAND_PY_CACHE_URL   auto, full or path (what of the URL keys)
    --stagehand-max-cost     STAGEHAND_PY_SESSION_MAX_COST_USD
                             the session's spending cap in US dollars (needs prices)
    --stagehand-max-total-tokens  STAGEHAND_PY_SESSION_MAX_TOTAL_TOKENS
                             the session's cap in tokens (prompt and answer)
    --stagehand-fake         STAGEHAND_PY_FAKE=1      scripted fake model, see below
    --stagehand-no-chromium  STAGEHAND_PY_NO_CHROMIUM=1

With a cache directory, each test's cache writes are held until it ends and written only if
it passed (setup, call and teardown): a failing test never records steps. The terminal
summary says how many calls and model calls the session made, the tokens and cost, and how
the cache did (under pytest-xdist too: the workers report to the controller).

The session's caps hold for every Stagehand of the test process (the fixtures' and your own):
a model request that would cross one is not sent, and the call raises ``BudgetExceededError``.
Under pytest-xdist each worker gets an equal share of them.

``--stagehand-fake`` swaps the model for a :class:`~stagehand_py.testing.ScriptedLLM` (async
twin under pytest-playwright-asyncio) that is fresh for every test and reachable as the
``stagehand_fake`` fixture: queue its replies in the test (``stagehand_fake.queue(...)``) and
read what it was sent (``stagehand_fake.requests``). Nothing leaves the machine; a request with
no queued reply fails the test with ``ScriptExhaustedError`` naming the request.

When Playwright's own Chromium is not installed, the plugin adds the Chromium that
:func:`~stagehand_py.find_chromium` finds to ``browser_type_launch_args`` (only for the
chromium browser, and never over an explicit ``executable_path`` or ``--browser-channel``).

When a test fails, its report gets a "stagehand" section: the summary of every act, extract,
observe and check made during the test (already redacted: variable values never appear). A
check() that does not hold raises ``CheckError``, an ``AssertionError``: the test fails as an
assertion does.

When a test used variables and pytest-playwright kept a trace of it (``--tracing on`` or
``retain-on-failure``), the trace is rewritten without those values (:func:`scrub_trace`).
"""

from __future__ import annotations

import time
from collections.abc import Generator, Sequence
from typing import Any

import pytest

from .._config import Settings
from .._session_secrets import UsedSecrets
from ..llm._usage import PriceTable
from ._fixtures import chromium_supply, missing_playwright_fixtures, sdk_fixtures
from ._options import add_options
from ._report import (
    SDKS_KEY,
    USED_SECRETS_KEY,
    failure_section,
    scrub_test_traces,
    settle_held_writes,
)
from ._spending import (
    close_session_cap,
    open_session_cap,
    report_to_controller,
    summary_line,
    worker_finished,
)

_SYNC_PLUGINS = ("playwright", "pytest_playwright.pytest_playwright")
_ASYNC_PLUGINS = ("playwright-asyncio", "pytest_playwright_asyncio.pytest_playwright_asyncio")


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _has_any(config: pytest.Config, names: Sequence[str]) -> bool:
    return any(config.pluginmanager.hasplugin(name) for name in names)


def pytest_configure(config: pytest.Config) -> None:
    open_session_cap(config)
    # Registered here, after every entry-point plugin, so our fixtures override
    # pytest-playwright's (and a conftest.py still overrides ours).
    if _has_any(config, _ASYNC_PLUGINS):
        fixtures = sdk_fixtures(is_async=True)
    elif _has_any(config, _SYNC_PLUGINS):
        fixtures = sdk_fixtures(is_async=False)
    else:
        # Say what to install where the fixtures are used (and only there: this plugin loads
        # in every pytest run of an environment that has the package).
        config.pluginmanager.register(
            missing_playwright_fixtures(), f"{__name__}.missing_playwright"
        )
        return
    config.pluginmanager.register(fixtures, f"{__name__}.sdk_fixtures")
    config.pluginmanager.register(chromium_supply(), f"{__name__}.chromium_supply")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed:
        section = failure_section(item)
        if section is not None:
            report.sections.append(("stagehand", section))
    settle_held_writes(item, report)
    if report.when == "teardown":
        # pytest-playwright moves the test's traces into place before this runs (its wrapper
        # is trylast) and lists them on this report.
        scrub_test_traces(item, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    used = UsedSecrets().__enter__()
    item.stash[USED_SECRETS_KEY] = (used, time.time())


def pytest_unconfigure(config: pytest.Config) -> None:
    close_session_cap(config)


def pytest_sessionfinish(session: pytest.Session) -> None:
    report_to_controller(session.config, session.config.stash.get(SDKS_KEY, []))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent without it
def pytest_testnodedown(node: Any, error: object) -> None:
    worker_finished(node)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    line = summary_line(config, config.stash.get(SDKS_KEY, []))
    if line is not None:
        terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def stagehand_settings() -> Settings:
    """Limits and timeouts of the session's SDK; override to change them for your suite."""
    return Settings.from_env()


@pytest.fixture(scope="session")
def stagehand_prices() -> PriceTable | None:
    """Prices of the session's models, to cost its requests (and enforce
    ``--stagehand-max-cost``); override to return a :class:`~stagehand_py.PriceTable`."""
    return None


@pytest.fixture(scope="session")
def stagehand_url_normalizer() -> Any:
    """A function ``url -> url`` run on every URL before it keys a cache entry (after the
    built-in normalisation), e.g. to drop a session id; ``None`` for none."""
    return None
