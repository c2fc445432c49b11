"""The pytest session's spending caps and summary line, in inner sessions (``pytester``),
with and without pytest-xdist.

Inner sessions launch a browser, so they run as subprocesses (see test_plugin.py).
"""

from __future__ import annotations

import pytest

from stagehand_py.testing import observe_answer
from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call

pytest_plugins = ["pytester"]

SYNC_ONLY = ("-p", "no:playwright-asyncio", "-p", "no:cacheprovider")

PRICED_CONFTEST = """
import pytest
from stagehand_py import PriceTable

PRICES = PriceTable.of({"fake": {"input": 1.0, "output": 4.0}})  # US dollars per 1M tokens

@pytest.fixture(scope="session")
def stagehand_prices():
    return PRICES
"""

SESSION_CAP_TESTS = """
import pytest
from conftest import PRICES
from stagehand_py import BudgetExceededError, ConfigurationError, Stagehand
from stagehand_py.testing import ScriptedLLM, do_action, verify_answer

PAGE = "<button onclick=\\"document.title='done'\\">Go</button>"

def test_the_fixtures_stagehand_acts_within_the_cap(stagehand_page, stagehand_fake):
    stagehand_page.set_content(PAGE)
    stagehand_fake.queue(do_action("click", 0, completed=True), verify_answer(True))
    assert stagehand_page.act("press Go", max_tokens=64).success

def test_a_stagehand_of_the_test_shares_the_sessions_cap(page):
    llm = ScriptedLLM(do_action("click", 0, completed=True), verify_answer(True), model="fake")
    mine = Stagehand(llm=llm, prices=PRICES).wrap(page)
    mine.set_content(PAGE)
    with pytest.raises(BudgetExceededError) as refused:
        mine.act("press Go", max_tokens=20_000)  # its worst case: over $0.08
    assert llm.calls == 0 and page.title() == ""
    assert refused.value.scope == "pytest session" and refused.value.limit == 0.05
    assert refused.value.spent > 0  # what the other Stagehand spent in the first test
    assert "--stagehand-max-cost" in str(refused.value)

def test_a_stagehand_without_prices_cannot_spend_under_a_cost_cap(page):
    llm = ScriptedLLM(model="fake")
    unpriced = Stagehand(llm=llm).wrap(page)
    unpriced.set_content(PAGE)
    with pytest.raises(ConfigurationError, match="no prices were given"):
        unpriced.act("press Go")
    assert llm.calls == 0
"""


def test_the_sessions_cost_cap_holds_for_every_stagehand_and_the_summary_shows_the_spend(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(PRICED_CONFTEST)
    pytester.makepyfile(test_capped=SESSION_CAP_TESTS)

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", "--stagehand-max-cost=0.05"
    )

    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["stagehand: 3 call(s), 2 model call(s), * tokens, $0.00* (of $0.0500 max)"]
    )


SPLIT_TESTS = """
import pytest
from stagehand_py.llm._caps import session_cap
from stagehand_py.testing import do_action, verify_answer

@pytest.mark.parametrize("n", range(4))
def test_act(stagehand_page, stagehand_fake, n):
    assert session_cap().max_total_tokens == 50_000  # this worker's share of the session's
    stagehand_page.set_content("<button>Go</button>")
    stagehand_fake.queue(do_action("click", 0, completed=True), verify_answer(True))
    assert stagehand_page.act(f"press Go {n}").success
"""


def test_under_xdist_the_workers_share_the_cap_and_the_controller_prints_the_total(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")  # in the test extra; a user's run may not have it
    pytester.makepyfile(test_split=SPLIT_TESTS)

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", "--stagehand-max-total-tokens=100000", "-n", "2"
    )

    result.assert_outcomes(passed=4)
    # Four acts of two requests each, added up from both workers; the session's whole cap.
    result.stdout.fnmatch_lines(["stagehand: 4 call(s), 8 model call(s), * (of 100,000 max)"])


WIRE_SESSION_TESTS = """
import pytest
from stagehand_py import BudgetExceededError

def test_the_sessions_cap_refuses_before_the_server_sees_the_request(stagehand_page):
    stagehand_page.set_content("<button>Go</button>")
    assert len(stagehand_page.observe("the Go button", max_tokens=100)) == 1  # billed 5,905
    with pytest.raises(BudgetExceededError) as refused:
        stagehand_page.observe("the Go button", max_tokens=100)
    assert (refused.value.scope, refused.value.spent) == ("pytest session", 5_905)
"""


def test_the_sessions_token_cap_refuses_over_the_real_client_before_the_server_sees_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, llm_server: LLMWireServer
) -> None:
    found = observe_answer(0).model_dump(mode="json")
    call = openai_tool_call("ObserveAnswer", found)
    llm_server.reply(openai_completion(tool_calls=[call], prompt_tokens=5_900))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-secret")
    monkeypatch.setenv("STAGEHAND_PY_BLOCK_REAL_LLM", "1")
    pytester.makepyfile(test_wire_session=WIRE_SESSION_TESTS)

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY,
        "--stagehand-model=openai/wire-model",
        f"--stagehand-base-url={llm_server.openai_base_url}",
        "--stagehand-max-total-tokens=6000",
    )

    result.assert_outcomes(passed=1)
    assert len(llm_server.requests) == 1  # the second request never went out
    result.stdout.fnmatch_lines(
        ["stagehand: 2 call(s), 1 model call(s), 5,905 tokens (of 6,000 max)"]
    )


SHARE_TEST = """
from stagehand_py.testing import observe_answer

def test_observe(stagehand_page, stagehand_fake):
    stagehand_page.set_content("<button>Go</button>")
    stagehand_fake.queue(observe_answer(0))
    # Its worst case: a few hundred prompt tokens and an answer of up to 10,000.
    assert stagehand_page.observe("the Go button", max_tokens=10_000)
"""


def test_under_xdist_each_worker_may_spend_only_its_share_of_the_sessions_cap(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(test_share=SHARE_TEST)
    capped = (*SYNC_ONLY, "--stagehand-fake", "--stagehand-max-total-tokens=16000")

    alone = pytester.runpytest_subprocess(*capped)
    alone.assert_outcomes(passed=1)  # the request fits the session's 16,000 tokens

    split = pytester.runpytest_subprocess(*capped, "-n", "2")
    # The same request does not fit a worker's half, though the other worker spent nothing.
    split.assert_outcomes(failed=1)
    split.stdout.fnmatch_lines(
        [
            "*BudgetExceededError*past its max_total_tokens of 8,000 tokens*"
            "(this pytest-xdist worker's share: the session's cap split 2 ways)*",
            "stagehand: 1 call(s), 0 model call(s), 0 tokens (of 16,000 max)",
        ]
    )


def test_a_cap_that_is_not_a_positive_number_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess(*SYNC_ONLY, "--stagehand-max-cost=lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--stagehand-max-cost*max_cost_usd takes a positive number*"])
