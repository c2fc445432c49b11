"""check() in a user's pytest suite (the plugin, run with ``pytester``): a statement that does
not hold fails the test as an assertion, with the model's reason in the report; the second
run in require mode replays the compiled check with no model call."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

SYNC_ONLY = ("-p", "no:playwright-asyncio", "-p", "no:cacheprovider")

CHECK_SUITE = """
import os
from stagehand_py import take_snapshot
from stagehand_py.testing import check_answer, expectation


def _cart(stagehand_page):
    stagehand_page.goto(os.environ["INNER_PAGE_URL"])
    return stagehand_page


def test_the_total_holds(stagehand_page, stagehand_fake):
    page = _cart(stagehand_page)
    total = next(e.index for e in take_snapshot(page).elements if "42.00" in e.text)
    stagehand_fake.queue(check_answer(True, expectation("to_contain_text", total, "42.00 EUR")))
    result = page.check("the cart total is 42.00 EUR")
    assert result.passed


def test_a_wrong_total_fails(stagehand_page, stagehand_fake):
    page = _cart(stagehand_page)
    stagehand_fake.queue(check_answer(False, reason="the total reads 42.00 EUR"))
    page.check("the cart total is 99.00 EUR")
"""


def test_a_failed_check_fails_the_test_and_a_passed_one_replays_for_free(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, pages_url: str
) -> None:
    monkeypatch.setenv("INNER_PAGE_URL", pages_url + "check/cart.html")
    monkeypatch.delenv("STAGEHAND_PY_CACHE_MODE", raising=False)
    pytester.makepyfile(test_cart=CHECK_SUITE)
    cache_dir = pytester.path / "cache"

    result = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}"
    )

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E*CheckError: check('the cart total is 99.00 EUR') failed: the total reads 42.00 EUR",
            "*- stagehand -*",
            "check('the cart total is 99.00 EUR') -> FAILED*",
            "*FAILED test_cart.py::test_a_wrong_total_fails*",
        ]
    )
    [entry] = [json.loads(p.read_text("utf-8")) for p in cache_dir.glob("*.json")]
    assert (entry["kind"], entry["instruction"]) == ("check", "the cart total is 42.00 EUR")

    again = pytester.runpytest_subprocess(
        *SYNC_ONLY, "--stagehand-fake", f"--stagehand-cache-dir={cache_dir}",
        "--stagehand-cache-mode=require", "-k", "holds",
    )  # fmt: skip
    again.assert_outcomes(passed=1)
    again.stdout.fnmatch_lines(["*: 1 call(s), 0 model call(s), 0 tokens; cache: 1 hit(s)*"])
