"""The pytest plugin, run the way users run it: inner pytest sessions with ``pytester``.

Inner sessions that launch a browser run as subprocesses: this suite's own sync Playwright
session may be live in this process, and Playwright refuses a second one in the same thread.
"""

from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest

from stagehand_py.pytest_plugin._options import flag as _flag
from stagehand_py.pytest_plugin._options import option as _option
from tests import secret_values
from tests.llm_wire_server import LLMWireServer, openai_completion

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

pytest_plugins = ["pytester"]

SYNC_ONLY = ("-p", "no:playwright-asyncio", "-p", "no:cacheprovider")

FAKE_SUITE_CONFTEST = """
import pytest
from stagehand_py import Settings

@pytest.fixture(scope="session")
def stagehand_settings():
    return Settings(max_steps=3)

@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    # A user's own override on top of the plugin's: the two must compose.
    return {**browser_type_launch_args, "slow_mo": 1}
"""

FAKE_SUITE_TESTS = """
import os
from playwright.sync_api import Page
from stagehand_py import StagehandPage, find_chromium, take_snapshot
from stagehand_py._chromium import playwright_bundled_chromium
from stagehand_py.testing import do_action


def test_fixtures_resolve(stagehand, stagehand_page, page, browser_type_launch_args, tmp_path):
    assert isinstance(stagehand_page, StagehandPage) and isinstance(stagehand_page, Page)
    assert stagehand_page.stagehand is stagehand
    page.set_content("<p id=x>shared</p>")
    assert stagehand_page.locator("#x").inner_text() == "shared"  # the very same page
    assert stagehand.settings.max_steps == 3  # the conftest's stagehand_settings
    assert stagehand.cache is not None  # --stagehand-cache-dir
    assert browser_type_launch_args["slow_mo"] == 1
    expected = None if playwright_bundled_chromium() else find_chromium(headless=True)
    assert browser_type_launch_args.get("executable_path") == expected


def test_act_then_fail(stagehand_page, stagehand_fake):
    stagehand_page.set_content('<label>PIN <input id="pin" type="password"></label>')
    pin = next(e.index for e in take_snapshot(stagehand_page).elements if e.tag == "input")
    stagehand_fake.queue(
        do_action("fill", pin, ["<|PIN|>"], step="type the PIN", completed=True),
        {"completed": True, "reason": "the PIN is typed"},
    )
    stagehand_page.act("type the PIN <|PIN|>", variables={"pin": os.environ["INNER_SECRET"]})
    assert stagehand_page.title() == "a title this page does not have"


def test_each_test_gets_a_fresh_fake(stagehand_fake):
    assert stagehand_fake.calls == 0 and stagehand_fake.remaining == 0
"""


def test_fixtures_fake_chromium_and_failure_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INNER_SECRET", secret_values.PASSWORD)
    monkeypatch.delenv("STAGEHAND_PY_CACHE_DIR", raising=False)
    pytester.makeconftest(FAKE_SUITE_CONFTEST)
    pytester.makepyfile(test_inner=FAKE_SUITE_TESTS)
    cache_dir = pytester.path / "cache"

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}"
    )

    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str() + result.stderr.str()
    report = output.split("stagehand -", 1)[-1]
    assert "- stagehand -" in output, output
    assert "act('type the PIN <|PIN|>') -> ok" in report
    assert "fill('<|PIN|>') on" in report
    assert "verify: done - the PIN is typed" in report
    assert secret_values.PASSWORD not in output


OPTIONS_TEST = """
from stagehand_py.llm import Message

def test_model_options_apply(stagehand, browser_type_launch_args):
    assert "executable_path" not in browser_type_launch_args  # --stagehand-no-chromium
    answer = stagehand.llm.chat([Message(role="user", content="ping")], [])
    assert answer.text == "pong"
"""


def test_model_and_base_url_options_reach_the_model_client(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, llm_server: LLMWireServer
) -> None:
    llm_server.reply(openai_completion(content="pong"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_BLOCK_REAL_LLM", "1")
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "openai/overridden-by-the-option")
    monkeypatch.delenv("STAGEHAND_PY_BASE_URL", raising=False)
    pytester.makepyfile(test_options=OPTIONS_TEST)

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY,
        "--stagehand-model=openai/wire-model",
        f"--stagehand-base-url={llm_server.openai_base_url}",
        "--stagehand-no-chromium",
    )

    result.assert_outcomes(passed=1)
    assert [body["model"] for body in llm_server.bodies] == ["wire-model"]


def test_environment_variables_stand_in_for_absent_options(
    pytestconfig: pytest.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAGEHAND_PY_MODEL", "anthropic/from-env")
    monkeypatch.setenv("STAGEHAND_PY_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("STAGEHAND_PY_FAKE", "1")
    monkeypatch.delenv("STAGEHAND_PY_NO_CHROMIUM", raising=False)
    assert _option(pytestconfig, "--stagehand-model", "STAGEHAND_PY_MODEL") == "anthropic/from-env"
    assert _option(pytestconfig, "--stagehand-base-url", "STAGEHAND_PY_BASE_URL") == (
        "http://127.0.0.1:9/v1"
    )
    assert _flag(pytestconfig, "--stagehand-fake", "STAGEHAND_PY_FAKE")
    assert not _flag(pytestconfig, "--stagehand-no-chromium", "STAGEHAND_PY_NO_CHROMIUM")


ASYNC_TEST = """
from playwright.async_api import Page
from stagehand_py import AsyncStagehandPage
from stagehand_py.testing import AsyncScriptedLLM, do_action

async def test_async_fixtures(async_stagehand, async_stagehand_page, page):
    assert isinstance(async_stagehand_page, AsyncStagehandPage)
    assert isinstance(async_stagehand_page, Page)
    assert async_stagehand_page.stagehand is async_stagehand
    await page.set_content("<p id=x>async</p>")
    assert await async_stagehand_page.locator("#x").inner_text() == "async"

async def test_async_act_with_the_fake(async_stagehand_page, stagehand_fake):
    assert isinstance(stagehand_fake, AsyncScriptedLLM)
    await async_stagehand_page.set_content("<button onclick=\\"document.title='ok'\\">Go</button>")
    stagehand_fake.queue(do_action("click", 0, completed=True), {"completed": True})
    await async_stagehand_page.act("press Go")
    assert await async_stagehand_page.title() == "ok"
    assert stagehand_fake.calls == 2

def test_no_sync_fixtures_under_the_async_plugin(request):
    assert "stagehand_page" not in request.fixturenames
    request.getfixturevalue("stagehand_page")
"""


@pytest.mark.skipif(
    importlib.util.find_spec("pytest_playwright_asyncio") is None,
    reason="pytest-playwright-asyncio is not installed",
)
def test_async_fixtures_under_pytest_playwright_asyncio(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_async=ASYNC_TEST)
    pytester.makeini(
        textwrap.dedent(
            """
            [pytest]
            asyncio_mode = auto
            asyncio_default_fixture_loop_scope = session
            asyncio_default_test_loop_scope = session
            """
        )
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:playwright", "-p", "no:cacheprovider", "--stagehand-fake"
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*fixture 'stagehand_page' not found*"])


# ---------------------------------------------------------------- the cache in a suite (#15)

CACHE_SUITE_CONFTEST = """
import pytest

@pytest.fixture(scope="session")
def stagehand_url_normalizer():
    # Drop the query: every product page shares one entry.
    return lambda url: url.split("?")[0]
"""

CACHE_SUITE_TESTS = """
import pytest
from stagehand_py import take_snapshot
from stagehand_py.testing import do_action, verify_answer

PAGE = '<button onclick="document.title=\\'done\\'">Go</button>'

def _act(stagehand_page, stagehand_fake, name):
    stagehand_page.goto("data:text/html," + PAGE)  # same "URL" for every test
    stagehand_page.set_content(PAGE)
    stagehand_fake.queue(do_action("click", 0, completed=True), verify_answer(True))
    return stagehand_page.act(f"press Go for {name}")

def test_passes(stagehand_page, stagehand_fake):
    assert _act(stagehand_page, stagehand_fake, "passes").success

def test_fails_after_acting(stagehand_page, stagehand_fake):
    _act(stagehand_page, stagehand_fake, "fails")
    assert stagehand_page.title() == "something else"

@pytest.fixture
def breaks_in_teardown():
    yield
    raise RuntimeError("teardown broke")

def test_teardown_fails(stagehand_page, stagehand_fake, breaks_in_teardown):
    _act(stagehand_page, stagehand_fake, "teardown")

def test_normalizer_fixture_is_used(stagehand):
    key = stagehand.cache.key_for("x", "https://shop.example/item?id=1")
    assert key.url == "https://shop.example/item"
"""


def test_only_passing_tests_write_to_the_cache(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CACHE_SUITE_CONFTEST)
    pytester.makepyfile(test_cache=CACHE_SUITE_TESTS)
    cache_dir = pytester.path / "cache"
    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}"
    )
    result.assert_outcomes(passed=3, failed=1, errors=1)
    entries = [json.loads(p.read_text("utf-8")) for p in cache_dir.glob("*.json")]
    assert [e["instruction"] for e in entries] == ["press Go for passes"]
    result.stdout.fnmatch_lines(["stagehand: 3 call(s), 6 model call(s), * tokens; cache:*"])

    # A second run in require mode: the recorded act replays, the others fail without a model.
    again = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}",
        "--stagehand-cache-mode=require", "-k", "passes or fails_after",
    )  # fmt: skip
    again.assert_outcomes(passed=1, failed=1)
    again.stdout.fnmatch_lines(["*CacheMissError*press Go for fails*", "*0 model call(s)*"])


CACHE_URL_TEST = """
import os
from stagehand_py.testing import do_action, verify_answer

def test_acts_on_the_served_page(stagehand_page, stagehand_fake):
    stagehand_page.goto(os.environ["INNER_PAGE_URL"])
    stagehand_fake.queue(do_action("click", 0, completed=True), verify_answer(True))
    assert stagehand_page.act("press Hi").success
"""


@pytest.mark.parametrize(
    ("option", "keyed_on"),
    [
        ("--stagehand-cache-url=full", "{page}"),  # the test server's random port included
        (None, "/hello.html?session=s1"),  # by default a loopback origin is left out
    ],
)
def test_the_cache_url_option_chooses_what_of_the_url_keys_the_entry(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    pages_url: str,
    option: str | None,
    keyed_on: str,
) -> None:
    page = pages_url + "hello.html?session=s1"
    monkeypatch.setenv("INNER_PAGE_URL", page)
    monkeypatch.delenv("STAGEHAND_PY_CACHE_URL", raising=False)
    pytester.makepyfile(test_cache_url=CACHE_URL_TEST)
    cache_dir = pytester.path / "cache"
    options = [option] if option else []
    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}", *options
    )
    result.assert_outcomes(passed=1)
    [entry] = [json.loads(p.read_text("utf-8")) for p in cache_dir.glob("*.json")]
    assert entry["url"] == keyed_on.format(page=page)
    assert entry["instruction"] == "press Hi"


MISSING_PLAYWRIGHT_TEST = """
def test_wants_the_page(stagehand_page):
    pass

def test_plain(tmp_path):
    pass
"""


def test_without_a_playwright_plugin_the_fixtures_say_what_to_install(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_missing=MISSING_PLAYWRIGHT_TEST)
    result = pytester.runpytest_subprocess(
        "-p", "no:playwright", "-p", "no:playwright-asyncio", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*install pytest-playwright*pytest-playwright-asyncio*"])
