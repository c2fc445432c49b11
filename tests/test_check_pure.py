"""check()'s pure parts: the allow-list checked on load, the strength rules, the entries a
check writes (and what the cache commands show of them), the code it generates, and how a
Playwright selector is told from a statement. No browser."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from stagehand_py import CheckError, CheckResult, StagehandError
from stagehand_py.cache import ActionCache, CachedAction, CacheEntry, CacheKey
from stagehand_py.cache._entry import format_entry_summary
from stagehand_py.cache._manage import entry_diff, list_entries
from stagehand_py.check import CheckAssertion
from stagehand_py.check._code import check_code
from stagehand_py.check._selector import looks_like_selector
from stagehand_py.check._strength import weaker_than
from stagehand_py.prompts.check import CHECK_SYSTEM, build_check_messages
from stagehand_py.testing import check_answer, expectation

TOTAL = CheckAssertion(
    kind="to_have_text",
    selectors=['internal:testid=[data-testid="total"s]', "xpath=/html/body[1]/p[1]/span[1]"],
    expected="42.00 EUR",
    description='5:<span id="total">42.00 EUR</span>',
)


def _a(kind: str, expected: str | int | None = None, *, page: bool = False) -> CheckAssertion:
    selectors = [] if page else ["css=#x"]
    return CheckAssertion(kind=kind, selectors=selectors, expected=expected)


# ---------------------------------------------------------------- the allow-list, on load


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"kind": "to_look_nice", "selectors": ["css=#x"]}, r"not on check\(\)'s allow-list"),
        ({"kind": "to_have_text", "selectors": ["css=#x"], "expected": 3}, "expects text"),
        ({"kind": "to_have_count", "selectors": ["css=li"], "expected": "3"}, "whole number"),
        ({"kind": "to_have_count", "selectors": ["css=li"], "expected": True}, "not true/false"),
        ({"kind": "to_be_checked", "selectors": ["css=#x"], "expected": "yes"}, "no expected"),
        ({"kind": "to_have_text", "selectors": [], "expected": "x"}, "has no selector"),
        ({"kind": "to_have_url", "selectors": ["css=#x"], "expected": "/a"}, "takes no element"),
        ({"kind": "to_contain_text", "selectors": ["css=#x"], "expected": " "}, "non-empty"),
        ({"kind": "to_be_visible", "selectors": ['text="<|PIN|>"']}, "cannot hold a variable"),
        ({"kind": "to_be_visible", "selectors": ["css=#x"], "extra": 1}, "Extra inputs"),
    ],
)
def test_an_assertion_off_the_rules_is_refused(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        CheckAssertion.model_validate(fields)


def test_a_placeholder_may_be_expected_never_a_selector() -> None:
    greeting = _a("to_have_text", "Hello <|NAME|>")
    assert greeting.uses_variables and not TOTAL.uses_variables


# ---------------------------------------------------------------- not weaker than the statement


@pytest.mark.parametrize(
    ("statement", "assertions", "gap"),
    [
        ("the total is 42.00 EUR", [_a("to_be_visible")], "'42.00'"),
        ("the total is 42.00 EUR", [_a("to_contain_text", "41.00")], "'42.00'"),
        ('the banner says "Welcome back"', [_a("to_contain_text", "Welcome")], "Welcome back"),
        ("the greeting names <|NAME|>", [_a("to_contain_text", "Hello")], "<|NAME|>"),
        ("the status text reads ready", [_a("to_be_visible")], "only presence"),
        ("the newsletter box is checked", [_a("to_be_visible")], "checked state"),
        ("the Pay button is disabled", [_a("to_be_visible")], "enabled or disabled"),
        ("the URL shows the receipt page", [_a("to_be_visible")], "the URL"),
        ("no error is shown", [_a("to_be_visible")], "negated"),
        ("the form isn't sent", [_a("to_contain_text", "Form")], "negated"),
        ("the cart lists 3 items", [_a("to_have_count", 2)], "'3'"),
        ("anything at all", [], "no assertion"),
    ],
)
def test_weaker_assertions_are_named(
    statement: str, assertions: list[CheckAssertion], gap: str
) -> None:
    why = weaker_than(statement, assertions)
    assert why is not None and gap in why


@pytest.mark.parametrize(
    ("statement", "assertions"),
    [
        ("the total is 42.00 EUR", [_a("to_contain_text", "Total: 42.00 EUR")]),
        ("the cart lists 3 items", [_a("to_have_count", 3)]),
        ('the "No thanks" button is visible', [_a("to_contain_text", "No thanks")]),
        ("the user's cart is shown", [_a("to_be_visible")]),
        ("the greeting names <|NAME|>", [_a("to_have_text", "Hello <|NAME|>")]),
        ("no error is shown", [_a("not_to_contain_text", "error")]),
        ("the list is empty: no items", [_a("to_have_count", 0)]),
        ("the Pay button is not disabled", [_a("to_be_enabled")]),
        ("the newsletter box is unchecked", [_a("not_to_be_checked")]),
        ("the URL ends with /done", [_a("to_have_url", "/done", page=True)]),
    ],
)
def test_assertions_as_strong_as_the_statement_pass(
    statement: str, assertions: list[CheckAssertion]
) -> None:
    assert weaker_than(statement, assertions) is None


# ---------------------------------------------------------------- entries and the cache commands


def _key(statement: str = "the total is 42.00 EUR") -> CacheKey:
    return CacheKey.create(statement, "http://127.0.0.1:5000/cart", kind="check")


def test_a_check_entry_holds_assertions_or_why_it_has_none(tmp_path: object) -> None:
    key = _key()
    compiled = CacheEntry.create(key, assertions=[TOTAL])
    judged = CacheEntry.create(_key("the cart looks tidy"), uncompiled="it is about looks")
    step = CachedAction(method="click", selectors=["css=#x"])
    for broken in (
        {"assertions": None, "uncompiled": None},  # neither
        {"uncompiled": "why"},  # both
        {"actions": [step.model_dump()]},  # an act's steps in a check entry
    ):
        with pytest.raises(ValidationError, match="check entry"):
            CacheEntry.model_validate({**compiled.model_dump(), **broken})
    act = CacheEntry.create(CacheKey.create("click x", "/"), [step])
    with pytest.raises(ValidationError, match="holds actions, not assertions"):
        CacheEntry.model_validate({**act.model_dump(), "assertions": [TOTAL.model_dump()]})
    assert "assertions" not in json.loads(act.to_json())  # act files stay as they were

    cache = ActionCache(tmp_path)  # type: ignore[arg-type]
    cache.put(compiled)
    cache.put(judged)
    assert cache.get(key) == compiled
    listing = list_entries(cache)
    assert '1 assertion  "check: the total is 42.00 EUR"' in listing
    assert 'model judges  "check: the cart looks tidy"' in listing
    assert format_entry_summary(act).endswith('1 action  "click x"  /')


def test_a_healed_check_entry_keeps_its_previous_version_for_the_diff() -> None:
    entry = CacheEntry.create(_key(), assertions=[TOTAL])
    moved = TOTAL.model_copy(
        update={"selectors": ["xpath=/html/body[1]/section[1]/strong[1]"], "description": ""}
    )
    healed = entry.with_assertions([moved], reason="assertion 1 did not pass")
    assert healed.previous is not None and healed.previous.assertions == [TOTAL]
    assert healed.created_at == entry.created_at
    diff = entry_diff(healed)
    assert diff.startswith("healed because: assertion 1 did not pass\n")
    assert '-   selector: internal:testid=[data-testid="total"s]' in diff
    assert "+   selector: xpath=/html/body[1]/section[1]/strong[1]" in diff
    judged = healed.with_assertions(None, uncompiled="it is about looks", reason="r")
    assert "+not compiled, the model judges it on every run: it is about looks" in entry_diff(
        judged
    )


# ---------------------------------------------------------------- results, errors, code


def test_check_error_is_an_assertion_error_carrying_the_result() -> None:
    result = CheckResult(statement="s", passed=False, reason="no")
    error = CheckError("check('s') failed: no", result)
    assert isinstance(error, AssertionError) and isinstance(error, StagehandError)
    assert error.result is result and not result


def test_generated_code_uses_expect_and_reads_variables_from_the_environment() -> None:
    greeting = CheckAssertion(
        kind="to_have_text", selectors=['internal:role=heading[name="Hi"s]'], expected="Hi <|NAME|>"
    )
    done = CheckAssertion(kind="to_have_url", expected="/order/done")
    count = CheckAssertion(kind="to_have_count", selectors=["internal:role=listitem"], expected=3)
    code = check_code([TOTAL, greeting, done, count], title="check: it holds")
    assert code.splitlines()[:4] == [
        "# check: it holds",
        "import os",
        "import re",
        "",
    ]
    assert "from playwright.sync_api import Page, expect" in code
    assert 'expect(page.get_by_test_id("total")).to_have_text("42.00 EUR")' in code
    expected_greeting = 'to_have_text("Hi " + os.environ["NAME"])'
    assert f'expect(page.get_by_role("heading", name="Hi", exact=True)).{expected_greeting}' in code
    assert 'expect(page).to_have_url(re.compile(re.escape("/order/done")))' in code
    assert 'expect(page.get_by_role("listitem")).to_have_count(3)' in code
    compile(code, "<generated>", "exec")
    async_code = check_code([TOTAL], style="async", variables="params")
    assert 'await expect(page.get_by_test_id("total")).to_have_text("42.00 EUR")' in async_code


# ---------------------------------------------------------------- the prompt and the fakes


def test_the_prompt_lists_every_allowed_kind_and_the_fake_answer_builds() -> None:
    messages = build_check_messages(
        "the total is <|AMOUNT|>", page_text="5:<span>42</span>", variable_names=["AMOUNT"]
    )
    assert messages[0].content == CHECK_SYSTEM and "to_have_count:" in CHECK_SYSTEM
    assert "Statement: the total is <|AMOUNT|>" in messages[1].content
    answer = check_answer(True, expectation("to_have_text", 5, "42"), reason="it reads 42")
    assert answer.evidence == [5] and answer.compilable and answer.why_not is None
    judged = check_answer(True, why_not="about looks")
    assert not judged.compilable and judged.assertions == []


@pytest.mark.parametrize(
    ("text", "is_selector"),
    [
        ("#agree", True),
        ("input[name=terms]", True),
        ("text=I agree", True),
        ('internal:role=checkbox[name="Terms"s]', True),
        ("form >> nth=0", True),
        ("label:has-text('Terms') input", True),
        ("//input[@id='agree']", True),
        ("the cart total is 42.00 EUR", False),
        ("Item #3 is selected", False),
        ("Total: 3 items are listed", False),
        ("the page says 'Thanks'", False),
        ("   ", False),
    ],
)
def test_a_selector_is_told_from_a_statement(text: str, is_selector: bool) -> None:
    assert looks_like_selector(text) is is_selector
