"""Two async agents running at the same time on tabs of one browser context keep their secrets
apart (async only: the sync API cannot run two agents at once).

Each run lists the other's tab, whose URL and title carry the values the other typed there;
the session's memory of the context redacts them, whichever session or run used them.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Browser as AsyncBrowser

from stagehand_py import AsyncStagehand
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_sign_in import USERS, SignInModel, leaks, task


@pytest.mark.asyncio
@pytest.mark.parametrize("sessions", [1, 2])
async def test_two_agents_at_once_on_one_context_keep_their_secrets_apart(
    async_browser: AsyncBrowser, pages_url: str, sessions: int
) -> None:
    model = SignInModel()
    stagehands = [AsyncStagehand(llm=AsyncFunctionLLM(structured=model)) for _ in range(sessions)]
    context = await async_browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        tabs = [await context.new_page() for _ in USERS]
        pages = [stagehands[n % sessions].wrap(tab) for n, tab in enumerate(tabs)]
        for page in pages:
            await page.goto(pages_url + "agent/signin.html")
        runs = [
            page.agent(task(who), variables=USERS[who], timeout_s=30)
            for who, page in zip(USERS, pages, strict=True)
        ]
        results = dict(zip(USERS, await asyncio.gather(*runs), strict=True))
    finally:
        await context.close()

    assert all(result.success for result in results.values()), results
    for who, other in (("A", "B"), ("B", "A")):
        assert model.saw_the_other_tab_signed_in(who), model.sent[who][-1]
        assert leaks("\n".join(model.sent[who]), of=other) == []
        assert leaks(results[who].model_dump_json(), of=other) == []
