"""Shared fixtures: a loopback server for the project's pages, one browser per session.

Sync tests use pytest-playwright's ``page`` (its browser launched with the Chromium this
machine has); async tests use ``async_page`` from one async browser per session.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Page as AsyncPage
from playwright.async_api import async_playwright

from stagehand_py._async.browser.launch import launch_chromium
from stagehand_py._chromium import with_found_chromium
from stagehand_py.testing import serve_directory
from tests import secret_values

pytest_plugins = ["tests.llm_wire_server"]

PAGES_DIR = Path(__file__).parent / "pages"
SYNC_TESTS = Path(__file__).parent / "_sync"
# Site isolation, as a desktop Chrome has it: the headless shell keeps a cross-site frame in
# its page's process unless told otherwise. Only the browser of the test that looks at
# out-of-process frames (``async_site_isolated_page``) adds it: on every page it costs a spare
# renderer process, about a sixth of the CPU a new page takes.
SITE_ISOLATION_ARGS = ("--site-per-process",)
VIEWPORT = {"width": 1280, "height": 720}
_SCANNED_LOGGERS = ("stagehand_py", "openai", "anthropic", "instructor", "httpx")


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL (with trailing slash) of tests/pages served from 127.0.0.1."""
    with serve_directory(PAGES_DIR) as base_url:
        yield base_url


@pytest.fixture(scope="session")
def other_origin_url() -> Iterator[str]:
    """tests/pages again, from a second loopback port: another origin, for cross-origin frames,
    look-alike sites and hostile-page tests."""
    with serve_directory(PAGES_DIR) as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Point pytest-playwright at the Chromium this machine has."""
    return with_found_chromium(browser_type_launch_args)


@asynccontextmanager
async def _launched(*args: str) -> AsyncIterator[AsyncBrowser]:
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright.chromium, args=list(args))
        yield browser
        await browser.close()


@asynccontextmanager
async def _fresh_page(browser: AsyncBrowser) -> AsyncIterator[AsyncPage]:
    """A page in a context of its own, closed with its context afterwards."""
    context = await browser.new_context(viewport=VIEWPORT)
    yield await context.new_page()
    await context.close()


@pytest.fixture(scope="session")
async def async_browser() -> AsyncIterator[AsyncBrowser]:
    async with _launched() as browser:
        yield browser


@pytest.fixture(scope="session")
async def async_site_isolated_browser() -> AsyncIterator[AsyncBrowser]:
    async with _launched(*SITE_ISOLATION_ARGS) as browser:
        yield browser


@pytest.fixture
async def async_page(async_browser: AsyncBrowser) -> AsyncIterator[AsyncPage]:
    async with _fresh_page(async_browser) as page:
        yield page


@pytest.fixture
async def async_site_isolated_page(
    async_site_isolated_browser: AsyncBrowser,
) -> AsyncIterator[AsyncPage]:
    """A page whose cross-site frames run in processes of their own, as in a desktop Chrome."""
    async with _fresh_page(async_site_isolated_browser) as page:
        yield page


@pytest.fixture
def sync_site_isolated_page(
    playwright: Any, browser_type_launch_args: dict[str, Any]
) -> Iterator[Any]:
    """The sync twin's (run with ``--all-sync-twins``): a browser of its own, isolated."""
    browser = playwright.chromium.launch(
        **with_found_chromium(browser_type_launch_args, SITE_ISOLATION_ARGS)
    )
    try:
        yield browser.new_page(viewport=VIEWPORT)
    finally:
        browser.close()


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": VIEWPORT}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all-sync-twins",
        action="store_true",
        help="also run the generated sync twins of tests marked no_sync_twin",
    )
    parser.addoption(
        "--alone",
        choices=("include", "exclude", "only"),
        default="include",
        help="tests marked alone: run them with the rest (include, the default), leave them "
        "out (exclude, for a parallel run) or run only them (only, after it)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Under coverage from the start of each process (``COVERAGE_PROCESS_START``), measure the
    processes that run tests (pytest-xdist's workers, or the one serial process), not the ones
    the tests start (the command line, examples, inner pytest runs): those run as a user runs
    them, and coverage's warnings would mix into the output the tests check."""
    controls_workers = not hasattr(config, "workerinput") and getattr(
        config.option, "numprocesses", None
    )
    if not controls_workers:
        os.environ.pop("COVERAGE_PROCESS_START", None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection loaded, so the garbage collector's full passes skip it.

    By the end of collection a worker holds about 386,000 objects (the provider SDKs alone
    import some 3,700 modules), and a full collection scans every one: measured in the
    suite's workers, 40-odd pauses over 20 ms, the longest 0.4-1.0 s. A pause that long in
    the middle of a deadline test eats its whole slack. Nothing collected before the tests
    start is garbage later, so freezing it changes no test, only how long each pause is.
    """
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the sync twins marked ``no_sync_twin`` (and, with ``--alone``, select by the
    ``alone`` mark), then run async tests before sync ones, the ``slow`` ones spread over the
    first half of each.

    The sync Playwright API keeps its own event loop marked as running in this thread for
    as long as pytest-playwright's session fixture lives, and asyncio refuses to start a
    second loop then. Async tests first (their browser stays open, idle, meanwhile) avoids it.
    Under pytest-xdist each worker is handed tests in this order (``--dist load`` sends them
    from the front of the list), so no worker runs an async test after a sync one either; and
    the long tests do not come last, where one would keep a worker busy after the others end.
    """
    if not config.getoption("all_sync_twins"):
        _deselect(config, items, _is_dropped_twin)
    alone = config.getoption("alone")
    if alone != "include":
        wanted = alone == "only"
        _deselect(config, items, lambda item: _is_alone(item) is not wanted)
    async_tests, other_tests = _split(
        items, lambda item: item.get_closest_marker("asyncio") is not None
    )
    items[:] = _spread_slow(async_tests) + _spread_slow(other_tests)


def _spread_slow(items: list[pytest.Item]) -> list[pytest.Item]:
    """The ``slow`` tests spaced out over the first half of the others.

    Slow tests either wait (on a deadline, a hung model) or burn CPU (processes, browsers of
    their own). Side by side in file order, the workers would all wait at once, then all
    burn at once; mixed (in an order fixed by a hash of their ids) and spaced out, they keep
    the cores busy. None comes in the last half, so none keeps one worker busy at the end.
    """
    slow, others = _split(items, lambda item: item.get_closest_marker("slow") is not None)
    slow.sort(key=lambda item: hashlib.sha256(item.nodeid.encode()).hexdigest())
    step = len(others) / (2 * len(slow)) if slow else 0.0
    spread: list[pytest.Item] = []
    taken = 0
    for index, item in enumerate(slow):
        upto = int(index * step)
        spread += others[taken:upto]
        taken = upto  # index * step never decreases
        spread.append(item)
    return spread + others[taken:]


def _deselect(
    config: pytest.Config, items: list[pytest.Item], drop: Callable[[pytest.Item], bool]
) -> None:
    dropped, kept = _split(items, drop)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _split(
    items: list[pytest.Item], test: Callable[[pytest.Item], bool]
) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """The items for which ``test`` holds, and the others, each in their order."""
    chosen: list[pytest.Item] = []
    rest: list[pytest.Item] = []
    for item in items:
        (chosen if test(item) else rest).append(item)
    return chosen, rest


def _is_alone(item: pytest.Item) -> bool:
    return item.get_closest_marker("alone") is not None


def _is_dropped_twin(item: pytest.Item) -> bool:
    """A generated sync test whose async test says ``no_sync_twin`` (or, with
    ``no_sync_twin(keep=[...])``, one whose parameters are not among those kept)."""
    mark = item.get_closest_marker("no_sync_twin")
    if mark is None or SYNC_TESTS not in item.path.parents:
        return False
    return _async_param_id(item) not in mark.kwargs.get("keep", ())


def _async_param_id(item: pytest.Item) -> str:
    """The twin's parameter id as its async test has it (pytest-playwright adds the browser)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return ""
    browser = callspec.params.get("browser_name")
    if browser is None or callspec.id == browser:
        return "" if browser is not None else str(callspec.id)
    return str(callspec.id).removeprefix(f"{browser}-")


@pytest.fixture
def sync_page(page: Any) -> Any:
    """pytest-playwright's sync ``page`` under the name the generated sync tests use."""
    return page


class _RecordingHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(autouse=True)
def no_secret_in_logs() -> Iterator[None]:
    """Every test: no log record of ours or of the model clients contains a secret value."""
    handler = _RecordingHandler()
    loggers = [logging.getLogger(name) for name in _SCANNED_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)
    leaked = [m for m in handler.messages for s in secret_values.FORMS if s in m]
    assert not leaked, f"secret value in log records: {leaked[:3]}"
