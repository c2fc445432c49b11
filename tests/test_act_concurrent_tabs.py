"""Concurrent async acts on pages of one browser context stay apart (issue 13, item 7).

Async only: the sync API cannot run acts concurrently. Each act clicks a button that opens its
own order form in a new tab a moment later, then types its own secret code there. With the
context-wide tab listener every act saw the other acts' tabs open while its click settled.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Browser as AsyncBrowser

from stagehand_py import AsyncStagehand
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

ACTS = 20
BUTTON = r"^<button\b[^>]*>"


@pytest.mark.asyncio
async def test_twenty_concurrent_acts_each_end_in_their_own_tab(
    async_browser: AsyncBrowser, pages_url: str
) -> None:
    context = await async_browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        pages = [await context.new_page() for _ in range(ACTS)]
        for n, page in enumerate(pages):
            await page.goto(pages_url + f"loop/tab_opener.html?n={n}")

        async def one_act(n: int) -> tuple[int, str, str | None]:
            llm = AsyncPlanLLM(
                [
                    Step("click", BUTTON + "Open the order form"),
                    Step("fill", r"^<input\b[^>]*code", ["<|CODE|>"]),
                    Step("click", BUTTON + "Confirm"),
                ]
            )
            page = AsyncStagehand(llm=llm).wrap(pages[n])
            result = await page.act(
                "open the order form and confirm the code",
                variables={"code": f"{secret_values.PASSWORD}-{n}"},
                raise_on_failure=False,
            )
            assert result.page is not None, result.message
            if "tab_form" not in result.page.url:
                return n, f"{result.page.url} ({result.message})", None
            code = await result.page.locator("#confirmation").get_attribute("data-code")
            return n, result.page.url, code

        outcomes = await asyncio.gather(*(one_act(n) for n in range(ACTS)))
        for n, url, code in outcomes:
            assert url.endswith(f"tab_form.html?n={n}"), (n, url, outcomes)
            assert code == f"{secret_values.PASSWORD}-{n}", n
        # Every secret went to its own tab only.
        forms = [p for p in context.pages if "tab_form.html" in p.url]
        assert len(forms) == ACTS
        for form in forms:
            n = form.url.rsplit("=", 1)[1]
            typed = await form.locator("#code").input_value()
            assert typed == f"{secret_values.PASSWORD}-{n}", form.url
    finally:
        await context.close()
