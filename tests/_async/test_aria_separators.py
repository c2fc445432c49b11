"""Page text holding line separators other than "\\n" (U+0085, U+2028, U+2029, \\r) in an
aria-label, a placeholder and a text, each followed by what reads like a line of Playwright's
snapshot: both views list exactly the page's elements, one line each, and act() and observe()
work on the page (tests/pages/aria/separators.html)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand
from stagehand_py._async.browser.inspect import take_snapshot
from stagehand_py._single_line import LINE_BREAKS
from stagehand_py.llm._messages import Message
from stagehand_py.testing import AsyncFunctionLLM
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element

# set=nel: U+0085 everywhere; set=ls: U+2028, U+2029 and \r.
CASES = pytest.mark.parametrize(
    ("separators", "mode"),
    [("nel", "aria"), ("ls", "aria"), ("nel", "dom"), ("ls", "dom")],
)
# What the page text writes as if it were snapshot lines: none of it is an element.
FORGED = {
    ("textbox", "Password"),
    ("button", "Pay now"),
    ("link", "Forged"),
    ("button", "Delete account"),
    ("checkbox", "Agree"),
    ("link", "Home"),
}
EMAIL = r'^<(textbox|input)\b[^>]*(name|aria-label)="Email address"'
SUBSCRIBE = r"^<(button)\b[^>]*>Subscribe"
PASSWORD = r'^<(textbox|input)\b[^>]*(name|aria-label|placeholder)="Password"'


async def _open(page: AsyncPage, pages_url: str, separators: str) -> None:
    await page.goto(f"{pages_url}aria/separators.html?set={separators}")


@CASES
@pytest.mark.no_sync_twin
async def test_each_element_is_one_line_and_none_is_forged(
    async_page: AsyncPage, pages_url: str, separators: str, mode: str
) -> None:
    await _open(async_page, pages_url, separators)
    snapshot = await take_snapshot(async_page, mode=mode)  # type: ignore[arg-type]
    rendered = snapshot.render_all()
    lines = rendered.split("\n")
    assert len(lines) == len(snapshot.elements), rendered
    assert all(re.match(r"^\d+:", line) for line in lines), rendered
    assert not any(char in rendered for char in LINE_BREAKS if char != "\n"), repr(rendered)
    assert len(rendered.splitlines()) == len(lines)
    assert not {(e.role, e.name) for e in snapshot.elements} & FORGED, rendered
    fields = [e for e in snapshot.elements if e.tag == "input"]
    assert len(fields) == 3, rendered  # email, search, code: no fourth field
    assert find_element(rendered, PASSWORD) is None, rendered


@CASES
@pytest.mark.no_sync_twin
async def test_act_fills_and_clicks_on_the_page(
    async_page: AsyncPage, pages_url: str, separators: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", EMAIL, ["ada@example.com"]), Step("click", SUBSCRIBE)])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)  # type: ignore[arg-type]
    await _open(page, pages_url, separators)
    result = await page.act("subscribe ada@example.com")
    assert result.success, result.message
    assert await page.locator("#out").text_content() == "subscribed ada@example.com"


@CASES
@pytest.mark.no_sync_twin
async def test_observe_finds_the_real_button_and_no_forged_field(
    async_page: AsyncPage, pages_url: str, separators: str, mode: str
) -> None:
    shown: list[str] = []

    def structured(messages: list[Message], schema: type[BaseModel]) -> Any:
        page_text = messages[-1].content
        shown.append(page_text)
        found = [
            {"element": number, "description": pattern, "method": "click"}
            for pattern in (PASSWORD, SUBSCRIBE)
            if (number := find_element(page_text, pattern)) is not None
        ]
        return {"elements": found}

    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=structured), snapshot=mode).wrap(  # type: ignore[arg-type]
        async_page
    )
    await _open(page, pages_url, separators)
    results = await page.observe("the subscribe button and the password field")
    assert [r.description for r in results] == [SUBSCRIBE], shown
    assert await page.locator(results[0].selector).get_attribute("id") == "subscribe"
