"""The pytest session's spending caps and summary line, in inner sessions (``pytester``),
with and without pytest-xdist.

Inner sessions launch a browser, so they run as subprocesses (see test_plugin.py).
"""

from __future__ import annotations

import pytest

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


def test_a_cap_that_is_not_a_positive_number_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    result = pytester.runpytest_subprocess(*SYNC_ONLY, "--stagehand-max-cost=lots")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--stagehand-max-cost*max_cost_usd takes a positive number*"])
