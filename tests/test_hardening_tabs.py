"""Concurrent acts on pages of one browser context stay apart (issue #13, item 7).

Async only (the sync API runs one call at a time): a dozen acts run at once, each on its own
page of one context. Each clicks a button whose page opens an order form in a new tab on a
timer, then types its own delivery code there. Without following only the act's own popups,
acts ended in one another's tabs and typed their codes there, all reporting success.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, Secret
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

BUTTON = r"^<button\b[^>]*>"
ACTS = 12


def _code(n: int) -> str:
    return f"{secret_values.PASSWORD}-{n:02d}"


async def _order(page: AsyncPage, pages_url: str, n: int) -> tuple[int, object]:
    llm = AsyncPlanLLM(
        [
            Step("click", BUTTON + "Open the order form"),
            Step("fill", r"^<input\b[^>]*code", ["<|CODE|>"]),
            Step("click", BUTTON + "Confirm"),
        ]
    )
    wrapped = AsyncStagehand(llm=llm).wrap(page)
    await wrapped.goto(f"{pages_url}loop/tab_opener.html?n={n}")
    result = await wrapped.act(
        "open the order form and confirm the code",
        variables={"code": Secret(_code(n))},
        raise_on_failure=False,
    )
    return n, result


@pytest.mark.asyncio
async def test_concurrent_acts_on_pages_of_one_context_each_follow_their_own_tab(
    async_page: AsyncPage, pages_url: str
) -> None:
    context = async_page.context
    pages = [async_page, *[await context.new_page() for _ in range(ACTS - 1)]]
    # A page of the shop that pops up its own look-alike form whenever an order form opens.
    promo = await context.new_page()
    await promo.goto(pages_url + "loop/promo.html")

    outcomes = await asyncio.gather(*(_order(p, pages_url, n) for n, p in enumerate(pages)))

    for n, result in outcomes:
        assert result.success, (n, result.message)  # type: ignore[attr-defined]
        tab = result.page  # type: ignore[attr-defined]
        # Each act ended in the tab its own page opened, and typed its own code only there.
        assert tab.url.endswith(f"tab_form.html?n={n}"), (n, tab.url)
        assert await tab.locator("#confirmation").get_attribute("data-code") == _code(n)
    forms = [p for p in context.pages if "tab_form.html" in p.url]
    typed = {p.url.rsplit("=", 1)[-1]: await p.locator("#code").input_value() for p in forms}
    for n in range(ACTS):
        assert typed[str(n)] == _code(n)
    # The look-alike windows got nothing.
    assert all(value == "" for key, value in typed.items() if key == "promo")
