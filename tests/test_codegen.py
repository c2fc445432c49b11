"""stagehand_py.codegen: plain Playwright code from recorded steps (pure, no browser)."""

from __future__ import annotations

import ast

import pytest
from pydantic import ValidationError

from stagehand_py import ActionRecord, ActResult, ConfigurationError, ObserveResult
from stagehand_py.cache import CachedAction
from stagehand_py.codegen import (
    argument_expression,
    durable_selector,
    playwright_code,
    user_facing_call,
)
from stagehand_py.codegen_locator import locator_expression

POSITIONAL = "xpath=/html/body[1]/main[1]/form[1]/input[2]"


def _step(*selectors: str, method: str = "click", arguments: tuple[str, ...] = ()) -> ActionRecord:
    return ActionRecord(
        method=method, selector=selectors[0], selectors=list(selectors), arguments=list(arguments)
    )


@pytest.mark.parametrize(
    ("selectors", "expected"),
    [
        ((POSITIONAL, 'xpath=//*[@id="email"]', 'xpath=//input[@name="email"]'), "#email"),
        ((POSITIONAL, 'xpath=//input[@name="pw"]'), "input[name='pw']"),
        ((POSITIONAL, 'xpath=//button[normalize-space(.)="Sign in"]'), "normalize-space"),
        ((POSITIONAL,), "/html/body"),  # nothing better: positional it is
        # The aria mode's ladder rungs beat everything but a test id.
        ((POSITIONAL, 'xpath=//*[@id="save"]', 'internal:role=button[name="Save"s]'), "role"),
        (('internal:role=button[name="Save"s]', 'internal:testid=[data-testid="save"s]'), "testid"),
    ],
)
def test_the_most_durable_selector_wins(selectors: tuple[str, ...], expected: str) -> None:
    chosen = durable_selector(_step(*selectors))
    assert chosen is not None
    assert expected in locator_expression(chosen) or expected in chosen


def test_a_selector_that_carries_a_placeholder_is_never_used() -> None:
    # A page echo of a value, redacted: useless as a selector, and it names a secret.
    echo = 'xpath=//button[normalize-space(.)="Continue as <|EMAIL|>"]'
    assert durable_selector(_step(POSITIONAL, echo)) == POSITIONAL
    lines = playwright_code([_step(echo)]).splitlines()
    assert lines[-1].strip().startswith("# click: every selector of this step holds a variable")


@pytest.mark.parametrize(
    ("selector", "python"),
    [
        ('internal:role=button[name="Save"s]', 'get_by_role("button", name="Save", exact=True)'),
        ('internal:role=link[name="Next page"i]', 'get_by_role("link", name="Next page")'),
        ("internal:role=checkbox[checked=true]", 'get_by_role("checkbox", checked=True)'),
        ("internal:role=heading[level=2]", 'get_by_role("heading", level=2)'),
        ('internal:label="Email"s', 'get_by_label("Email", exact=True)'),
        ('internal:attr=[placeholder="Search books"i]', 'get_by_placeholder("Search books")'),
        ('internal:attr=[alt="Logo"s]', 'get_by_alt_text("Logo", exact=True)'),
        ('internal:testid=[data-testid="buy"s]', 'get_by_test_id("buy")'),
        ('internal:text="Hello \\"you\\""i', 'get_by_text("Hello \\"you\\"")'),
        ('xpath=//*[@id="a b"]', 'locator("xpath=//*[@id=\\"a b\\"]")'),  # not a CSS id
        ("css=#cart > li.item", 'locator("#cart > li.item")'),
        ('internal:role=button[name="x"s] >> nth=1', 'locator("internal:role=button'),
    ],
)
def test_locator_expressions(selector: str, python: str) -> None:
    assert python in locator_expression(selector)


def test_frames_become_frame_locators() -> None:
    expression = locator_expression('xpath=//*[@id="pay"]', ['xpath=//*[@id="card-frame"]'])
    assert expression == 'page.frame_locator("xpath=//*[@id=\\"card-frame\\"]").locator("#pay")'


def test_arguments_become_lookups_never_values() -> None:
    assert argument_expression("<|EMAIL|>", "env") == 'os.environ["EMAIL"]'
    assert argument_expression("Hi %name%!", "env") == '"Hi " + os.environ["NAME"] + "!"'
    assert argument_expression("<|CARD_NUMBER|>", "params") == "card_number"
    assert argument_expression("Enter", "env") == '"Enter"'
    assert argument_expression("", "env") == '""'


def _result(*actions: ActionRecord) -> ActResult:
    return ActResult(success=True, message="", instruction="check out", actions=list(actions))


def test_sync_and_async_modules_are_valid_python() -> None:
    result = _result(
        _step('xpath=//*[@id="email"]', method="fill", arguments=("<|EMAIL|>",)),
        _step('xpath=//select[@name="plan"]', method="select_option", arguments=("pro", "gift")),
        _step('xpath=//*[@id="remember"]', method="check"),
        _step('xpath=//*[@id="q"]', method="press", arguments=("Enter",)),
        _step('xpath=//*[@id="list"]', method="scroll", arguments=("down",)),
        _step('xpath=//*[@id="go"]', method="double_click"),
    )
    sync = result.to_playwright_code(url="https://shop.example/")
    ast.parse(sync)
    assert "import os" in sync and "from playwright.sync_api import Page" in sync
    assert 'page.goto("https://shop.example/")' in sync
    assert '.select_option(["pro", "gift"])' in sync and ".dblclick()" in sync
    assert "page.mouse.wheel(0, 600)" in sync
    asynchronous = result.to_playwright_code("async", variables="params")
    ast.parse(asynchronous)
    assert "async def run(page: Page, email: str) -> None:" in asynchronous
    assert 'await page.locator("#email").fill(email)' in asynchronous
    assert "import os" not in asynchronous


def test_an_observed_result_gives_its_one_call() -> None:
    found = ObserveResult(
        selector="xpath=/html/body[1]/input[1]",
        selectors=["xpath=/html/body[1]/input[1]", 'internal:label="Search"i'],
        description="the search box",
        method="fill",
        arguments=["<|QUERY|>"],
    )
    code = found.to_playwright_code()
    assert code.startswith("# observe: the search box\n")
    assert 'page.get_by_label("Search").fill(os.environ["QUERY"])' in code


def test_bad_options_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="style must be"):
        _result().to_playwright_code("callback")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="variables must be"):
        _result().to_playwright_code(variables="inline")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="not a Python identifier"):
        _result().to_playwright_code(function_name="run it")
    assert "pass  # nothing was done" in _result().to_playwright_code()


def test_the_recorded_user_facing_selector_wins_over_every_other() -> None:
    step = _step(POSITIONAL, 'internal:testid=[data-testid="save"s]')
    step.user_facing_selector = 'internal:role=button[name="Sign in"i]'
    assert durable_selector(step) == 'internal:role=button[name="Sign in"i]'
    assert 'page.get_by_role("button", name="Sign in").click()' in playwright_code([step])


@pytest.mark.parametrize(
    "recorded",
    [
        'internal:role=button[name="Save"i] >> nth=1',  # a position: not one get_by_* call
        "internal:role=listitem >> internal:role=button",  # a chain
        'internal:role=button[name="Continue as <|EMAIL|>"i]',  # a placeholder
        "internal:text=/^save$/i",  # a regular expression
        "css=#save",  # not user-facing
    ],
)
def test_a_user_facing_selector_that_is_not_one_call_falls_back(recorded: str) -> None:
    assert user_facing_call(recorded) is None
    step = _step(POSITIONAL, 'xpath=//*[@id="save"]')
    step.user_facing_selector = recorded
    assert durable_selector(step) == 'xpath=//*[@id="save"]'


def test_cache_entries_load_with_and_without_a_user_facing_selector() -> None:
    old = {"method": "click", "selectors": ["xpath=//*[@id='go']"]}  # written before the field
    assert CachedAction.model_validate(old).user_facing_selector is None
    new = {**old, "user_facing_selector": 'internal:testid=[data-testid="go"s]'}
    assert CachedAction.model_validate(new).user_facing_selector is not None
    for planted in ("css=#go", 'internal:label="<|EMAIL|>"i', "internal:role=button >> nth=2"):
        with pytest.raises(ValidationError, match="user_facing_selector"):
            CachedAction.model_validate({**old, "user_facing_selector": planted})
