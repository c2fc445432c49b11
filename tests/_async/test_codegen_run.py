"""Generated Playwright code, run: it redoes what the act (or an observe() result) did on a
fresh page, with no model.

The async test runs ``style="async"`` code; its generated sync twin runs ``style="sync"``.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.testing import AsyncScriptedLLM, observe_answer, observed
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element

SIGN_IN = [
    Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"]),
    Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"]),
    Step("select_option", r"^<select\b", ["pro"]),
    Step("check", r"^<input\b[^>]*checkbox"),
    Step("click", r"^<button\b[^>]*>Sign in"),
]
INSTRUCTION = "sign in as <|EMAIL|> with <|PASSWORD|> on the Pro plan and stay signed in"
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}


async def _probe() -> None: ...


STYLE = "async" if inspect.iscoroutinefunction(_probe) else "sync"  # "sync" in the twin


@pytest.mark.no_sync_twin
async def test_generated_code_redoes_the_act_on_a_fresh_page(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pages_url + "ci/signin.html"
    page = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN)).wrap(async_page)
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    by_sdk = await page.locator("#result").inner_text()
    assert by_sdk.startswith(f"Signed in as {secret_values.EMAIL} (password of 21 characters)")

    code = result.to_playwright_code(STYLE, url=url)
    for secret in secret_values.ALL:
        assert secret not in code
    assert 'os.environ["EMAIL"]' in code and 'os.environ["PASSWORD"]' in code
    # The locators Playwright's codegen picks, each found unique when the act recorded it.
    assert 'page.get_by_role("textbox", name="Email").fill(' in code
    assert 'page.get_by_role("textbox", name="Password").fill(' in code
    assert 'page.get_by_label("Membership").select_option("pro")' in code
    assert 'page.get_by_role("button", name="Sign in").click()' in code
    assert "/html/body" not in code

    monkeypatch.setenv("EMAIL", secret_values.EMAIL)
    monkeypatch.setenv("PASSWORD", secret_values.PASSWORD)
    namespace: dict[str, Any] = {}
    exec(compile(code, "<generated>", "exec"), namespace)
    fresh = await async_page.context.new_page()
    await namespace["run"](fresh)
    assert await fresh.locator("#result").inner_text() == by_sdk


@pytest.mark.no_sync_twin
async def test_generated_code_with_variables_as_parameters(
    async_page: AsyncPage, pages_url: str
) -> None:
    url = pages_url + "ci/signin.html"
    stagehand = AsyncStagehand(llm=AsyncPlanLLM(SIGN_IN[:1]))
    page = stagehand.wrap(async_page)
    await page.goto(url)
    result = await page.act("type <|EMAIL|> as the email", variables={"email": "grace@navy.test"})
    code = result.to_playwright_code(STYLE, variables="params", function_name="fill_email")
    assert "grace@navy.test" not in code and "email: str" in code
    namespace: dict[str, Any] = {}
    exec(compile(code, "<generated>", "exec"), namespace)
    await page.goto(url)
    await namespace["fill_email"](page, email="someone@else.test")
    assert await page.locator("#email").input_value() == "someone@else.test"


@pytest.mark.no_sync_twin
async def test_generated_code_of_observe_results_redoes_them_on_a_fresh_page(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pages_url + "ci/signin.html"
    page = AsyncStagehand(llm=AsyncPlanLLM([])).wrap(async_page)
    await page.goto(url)
    shown = (await page.snapshot()).render_all()
    email = observed(
        find_element(shown, r'^<input\b[^>]*type="email"'), "the email field", "fill", ["<|EMAIL|>"]
    )
    button = observed(find_element(shown, r"^<button\b[^>]*>Sign in"), "the Sign in button")
    model = AsyncScriptedLLM(observe_answer(email), observe_answer(button))
    [fill] = await page.observe("the email field", variables=VARIABLES, llm=model)
    [click] = await page.observe("the sign-in button", llm=model)
    acted = [await page.act(found, variables=VARIABLES) for found in (fill, click)]
    assert all(result.success for result in acted)
    # The act on an observed element records the user-facing locator, as a model's act does.
    assert 'page.get_by_role("button", name="Sign in").click()' in acted[1].to_playwright_code()
    by_sdk = await page.locator("#result").inner_text()
    assert by_sdk.startswith(f"Signed in as {secret_values.EMAIL}")

    codes = [found.to_playwright_code(STYLE) for found in (fill, click)]
    assert secret_values.EMAIL not in "".join(codes)
    assert 'os.environ["EMAIL"]' in codes[0] and 'page.locator("#email")' in codes[0]
    assert "/html/body" not in codes[0]
    monkeypatch.setenv("EMAIL", secret_values.EMAIL)
    fresh = await async_page.context.new_page()
    await fresh.goto(url)
    for code in codes:
        namespace: dict[str, Any] = {}
        exec(compile(code, "<generated>", "exec"), namespace)
        await namespace["run"](fresh)
    assert await fresh.locator("#email").input_value() == secret_values.EMAIL
    assert await fresh.locator("#result").inner_text() == by_sdk
