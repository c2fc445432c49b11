"""Every reply builder of stagehand_py.testing drives the real call it is meant for."""

from __future__ import annotations

from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand
from stagehand_py.llm import Message, ToolSpec
from stagehand_py.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    RequestContext,
    do_action,
    extract_answer,
    observe_answer,
    observed,
    skip_section,
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


async def test_function_llm_answers_from_the_request_context(
    async_page: AsyncPage, pages_url: str
) -> None:
    seen: list[RequestContext] = []

    def chat(messages: list[Message], tools: list[ToolSpec], context: RequestContext) -> object:
        seen.append(context)
        if context.attempt == 1:
            return "no tool call"  # an unusable reply: the loop re-asks (attempt 2)
        return do_action("click", context.find("Save", exact=True, tag="button"), completed=True)

    def structured(messages: list[Message], schema: type, context: RequestContext) -> object:
        seen.append(context)
        return verify_answer(True, "saved")

    page = AsyncStagehand(llm=AsyncFunctionLLM(chat, structured)).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    await page.set_content(
        "<button onclick=\"document.title='draft'\">Save draft</button>"
        "<button onclick=\"document.title='saved'\">Save</button>"
    )
    result = await page.act("save the document")
    assert result.success and await page.title() == "saved"
    first, second, verify = seen
    assert (first.kind, first.attempt, first.step) == ("act", 1, 0)
    assert (second.kind, second.attempt) == ("act", 2)
    assert first.instruction == "save the document" and first.section
    assert first.snapshot is not None and all(e.selectors for e in first.elements())
    assert (verify.kind, verify.step) == ("verify", 1)


async def test_two_argument_functions_still_work(async_page: AsyncPage, pages_url: str) -> None:
    fake = AsyncFunctionLLM(chat=lambda messages, tools: skip_section("not here"))
    page = AsyncStagehand(llm=fake).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    result = await page.act("find the moon", raise_on_failure=False)
    assert result.code == "ALL_SECTIONS_SKIPPED" and fake.calls == 1
