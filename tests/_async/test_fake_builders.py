"""Every reply builder of stagehand_py.testing drives the real call it is meant for."""

from __future__ import annotations

from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand
from stagehand_py.testing import (
    AsyncScriptedLLM,
    do_action,
    extract_answer,
    observe_answer,
    observed,
    verify_answer,
)


class Heading(BaseModel):
    title: str


async def test_act_verify_observe_and_extract_from_builders(
    async_page: AsyncPage, pages_url: str
) -> None:
    fake = AsyncScriptedLLM()
    page = AsyncStagehand(llm=fake).wrap(async_page)
    await page.goto(pages_url + "ci/signin.html")
    numbers = {e.attributes.get("id"): e.index for e in (await page.snapshot()).elements}

    fake.queue(
        do_action("check", numbers["remember"], completed=True),
        verify_answer(False, "not yet saved"),
        do_action("check", numbers["remember"], completed=True),
        verify_answer(True, "the box is ticked"),
    )
    result = await page.act("stay signed in")
    assert [v.completed for v in result.verifications] == [False, True]
    assert [r.options.kind for r in fake.requests] == ["act", "verify", "act", "verify"]

    fake.queue(observe_answer(observed(numbers["email"], "the email field", "fill", ["<|E|>"])))
    [field] = await page.observe("the email field")
    assert field.method == "fill" and field.arguments == ["<|E|>"]

    fake.queue(extract_answer(Heading(title="Sign in")))
    assert await page.extract("the page heading", schema=Heading) == Heading(title="Sign in")
    assert fake.remaining == 0
