"""A page that locks its globals (its own ``Object.defineProperty`` refuses ``window``, as some
anti-tamper scripts do) is still seen and driven. Two ways of refusing: it throws, or
(``?silent``) it does nothing. The SDK's page scripts then run without being kept, and the
page watcher lives in a plain symbol-keyed property instead."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, take_snapshot
from stagehand_py.testing import AsyncScriptedLLM
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

LOCKED = ["hostile/locked_globals.html", "hostile/locked_globals.html?silent"]
WATCHER_DOC = "window[Symbol.for('stagehand_py.watch')].doc"
OUR_KEYS = "Object.keys(window).filter((key) => key.includes('stagehand'))"


@pytest.mark.parametrize("url", LOCKED)
@pytest.mark.no_sync_twin
async def test_act_types_a_variable_into_a_page_that_locks_its_globals(
    async_page: AsyncPage, pages_url: str, url: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
            Step("fill", r"^<input\b[^>]*password", ["<|PASSWORD|>"]),
        ],
        batch=False,
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + url)
    variables = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
    result = await page.act("sign in as <|EMAIL|> with <|PASSWORD|>", variables=variables)

    assert result.success, result.message
    assert [action.method for action in result.actions] == ["fill", "fill"]
    assert await async_page.input_value("#user-email") == secret_values.EMAIL
    assert await async_page.input_value("#user-password") == secret_values.PASSWORD
    # One watcher for the document, not a new one (wrapping the timers again) per look.
    watcher = await async_page.evaluate(WATCHER_DOC)
    assert (await page.snapshot()).elements
    assert await async_page.evaluate(WATCHER_DOC) == watcher
    # Nothing of ours shows up when the page lists window's keys.
    assert await async_page.evaluate(OUR_KEYS) == []


@pytest.mark.parametrize("url", LOCKED)
@pytest.mark.parametrize("mode", ["dom", "aria"])
@pytest.mark.no_sync_twin
async def test_both_views_read_a_page_that_locks_its_globals(
    async_page: AsyncPage, pages_url: str, url: str, mode: str
) -> None:
    await async_page.goto(pages_url + url)
    snapshot = await take_snapshot(async_page, mode=mode, timeout_s=10)  # type: ignore[arg-type]
    controls = [e.name for e in snapshot.elements if e.interactive and e.tag != "label"]
    assert controls == ["Email", "Password", "Sign in"], controls
    assert await async_page.evaluate(OUR_KEYS) == []


@pytest.mark.no_sync_twin
async def test_extract_and_observe_read_a_page_that_locks_its_globals(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    llm.queue({"data": {"text": "Sign in"}, "complete": True}, {"elements": []})
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + LOCKED[0])
    assert await page.extract("the page heading") == "Sign in"
    assert await page.observe("the sign-in button") == []
    assert "Sign in" in llm.requests[0].text()
