"""A variable's value written into the instruction itself (by mistake, or copied from a test's
data) reaches the model only as its placeholder: in act's prompts (each turn and the check
that the goal is done) and in observe's."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.testing import AsyncScriptedLLM, do_action, skip_section, verify_answer
from tests import secret_values

pytestmark = pytest.mark.no_sync_twin  # the path is generated code; the async test covers it

EMAIL, PASSWORD = secret_values.EMAIL, secret_values.PASSWORD
SECRETS = {"email": EMAIL, "password": PASSWORD}


def _sent(llm: AsyncScriptedLLM) -> str:
    return "\n".join(m.content or "" for r in llm.requests for m in r.messages)


# As given, and as a person might type it again (upper-cased).
@pytest.mark.parametrize("written", [EMAIL, EMAIL.upper()], ids=["as-given", "upper-cased"])
async def test_act_sends_a_value_written_into_its_instruction_as_a_placeholder(
    async_page: AsyncPage, pages_url: str, written: str
) -> None:
    llm = AsyncScriptedLLM(
        do_action("fill", 0, ["<|EMAIL|>"], completed=True),
        verify_answer(True, "the email is in"),
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.set_content('<label>Email <input type="email" name="email"></label>')
    result = await page.act(f"type {written} into the email field", variables=SECRETS)
    assert result.success, result.message
    assert await page.locator("input").input_value() == EMAIL  # typed where it was meant
    assert [r.kind for r in llm.requests] == ["chat", "structured"]  # the turn and the check
    sent = _sent(llm)
    assert "type <|EMAIL|> into the email field" in sent
    assert not [form for form in secret_values.FORMS if form in sent]


@pytest.mark.parametrize("written", [EMAIL, PASSWORD], ids=["email", "password"])
async def test_observe_sends_a_value_written_into_its_instruction_as_a_placeholder(
    async_page: AsyncPage, pages_url: str, written: str
) -> None:
    llm = AsyncScriptedLLM({"elements": []}, {"elements": []})
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    await page.observe(f"the field where {written} goes", variables=SECRETS)
    sent = _sent(llm)
    assert llm.requests and "<|" in sent
    assert not [form for form in secret_values.FORMS if form in sent]


async def test_a_turn_with_nothing_to_do_still_shows_only_the_placeholder(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM(skip_section(), skip_section(), skip_section())
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act(f"log in with {PASSWORD}", variables=SECRETS, raise_on_failure=False)
    assert not result.success
    sent = _sent(llm)
    assert llm.requests and "log in with <|PASSWORD|>" in sent
    assert not [form for form in secret_values.FORMS if form in sent]
