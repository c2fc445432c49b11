"""Bad input through the public API on a real page: typed errors before anything runs, or a
re-ask where the model wrote it (issue #13, item 5, API half)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, ConfigurationError, ObserveResult
from stagehand_py.testing import AsyncScriptedLLM, do_action
from tests import secret_values


@pytest.mark.no_sync_twin
async def test_act_through_the_stagehand_on_things_that_are_not_pages(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    stagehand = AsyncStagehand(llm=llm)
    await async_page.goto(pages_url + "form.html")
    for wrong in (async_page.locator("#email"), async_page.context, None, "form.html"):
        with pytest.raises(ConfigurationError, match=r"AsyncStagehand\.act\(\) needs a"):
            await stagehand.act(wrong, "type an email")  # type: ignore[arg-type]
    assert llm.calls == 0


@pytest.mark.no_sync_twin
async def test_bad_variables_schema_and_observe_results_are_refused_up_front(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    for bad in ([("email", secret_values.EMAIL)], secret_values.EMAIL, {secret_values.EMAIL}):
        with pytest.raises(ConfigurationError, match="variables must be a mapping") as caught:
            await page.act("type <|EMAIL|>", variables=bad)  # type: ignore[arg-type]
        assert secret_values.EMAIL not in str(caught.value)
    with pytest.raises(ConfigurationError, match="pydantic's base class"):
        await page.extract("everything", schema=BaseModel)
    observed = ObserveResult(selector="xpath=//*[@id='email']", description="email", method="fill")
    with pytest.raises(ConfigurationError, match="needs 1 argument"):
        await page.act(observed)
    with pytest.raises(ConfigurationError, match="undefined variable"):
        await page.act("search for %query%", variables={"q": "lamp"})
    assert llm.calls == 0
    assert await page.locator("#email").input_value() == ""


@pytest.mark.no_sync_twin
async def test_an_undefined_percent_placeholder_from_the_model_is_re_asked(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    snapshot = await page.snapshot()
    first = next(e.index for e in snapshot.elements if e.attributes.get("id") == "first-name")
    llm.queue(
        do_action("fill", first, ["%firstname%"], completed=True),  # not a variable
        do_action("fill", first, ["<|NAME|>"], completed=True),
        {"completed": True},
    )
    result = await page.act("type the first name", variables={"name": "Ada"})
    assert result.success, result.message
    assert await page.locator("#first-name").input_value() == "Ada"
    reask = llm.requests[1].messages[-1]
    assert reask.is_error and "Unknown variable(s) FIRSTNAME" in reask.content
