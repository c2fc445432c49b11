"""Per call: another model (``model=`` / ``llm=``) and the user's own ``instructions=``.

Every assertion is on the requests the fakes (or the loopback wire server) received.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

import stagehand_py.testing as fakes
from stagehand_py import AsyncStagehand, CacheMissError, ConfigurationError, Settings
from stagehand_py.prompts.user_instructions import USER_INSTRUCTIONS_HEADER
from stagehand_py.testing import (
    AsyncScriptedLLM,
    agent_output,
    do_action,
    extract_answer,
    observe_answer,
    skip_section,
    verify_answer,
)
from tests import secret_values
from tests.llm_wire_server import (
    LLMWireServer,
    openai_completion,
    openai_tool_call,
)


async def _probe() -> None: ...


ASYNC = inspect.iscoroutinefunction(_probe)  # False in the generated sync twin


class Greeting(BaseModel):
    text: str


def _system(llm: AsyncScriptedLLM) -> list[str]:
    return [r.messages[0].content for r in llm.requests if r.messages[0].role == "system"]


@pytest.mark.no_sync_twin
async def test_llm_on_each_call_overrides_the_sessions(
    async_page: AsyncPage, pages_url: str
) -> None:
    session = AsyncScriptedLLM()  # empty: any request to it fails the call
    page = AsyncStagehand(llm=session).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    acting = AsyncScriptedLLM(do_action("click", 0, completed=True), verify_answer(True))
    assert (await page.act("click Hi", llm=acting)).success
    observing = AsyncScriptedLLM(observe_answer(0))
    assert len(await page.observe("the Hi button", llm=observing)) == 1
    extracting = AsyncScriptedLLM(extract_answer({"text": "Hi"}))
    assert await page.extract("the greeting", Greeting, llm=extracting) == Greeting(text="Hi")
    driving = AsyncScriptedLLM(agent_output({"action": "done", "text": "seen"}))
    assert (await page.agent("look at the page", llm=driving)).success
    assert session.calls == 0
    assert [r.options.kind for r in acting.requests] == ["act", "verify"]
    assert [r.options.kind for r in observing.requests] == ["observe"]
    assert [r.options.kind for r in extracting.requests] == ["extract"]
    assert [r.options.kind for r in driving.requests] == ["agent"]


async def test_model_string_on_a_call_is_resolved_like_the_sessions(
    async_page: AsyncPage, pages_url: str, llm_server: LLMWireServer
) -> None:
    session = AsyncScriptedLLM()
    stagehand = AsyncStagehand(llm=session, base_url=llm_server.openai_base_url, api_key="k")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hello.html")
    answer = openai_tool_call(
        "ObserveAnswer", {"elements": [{"element": 0, "description": "the Hi button"}]}
    )
    llm_server.reply(openai_completion(tool_calls=[answer]))
    [found] = await page.observe("the Hi button", model="openai/gpt-per-call")
    assert found.element == 0
    [body] = llm_server.bodies
    assert body["model"] == "gpt-per-call" and session.calls == 0


async def test_instructions_of_session_and_call_reach_every_system_prompt_redacted(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM(do_action("click", 0, completed=True), verify_answer(True))
    llm.queue(observe_answer(0))
    stagehand = AsyncStagehand(llm=llm, instructions="Answer in English. Never buy anything.")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hello.html")
    await page.act(
        "click Hi",
        instructions=f"The user is {secret_values.EMAIL}.",
        variables={"email": secret_values.EMAIL},
    )
    await page.observe("the Hi button")
    systems = _system(llm)
    assert len(systems) == 3  # act, verify, observe
    for system in systems:
        assert USER_INSTRUCTIONS_HEADER in system and "Never buy anything." in system
        assert secret_values.EMAIL not in system
    assert systems[0].endswith("Never buy anything.\nThe user is <|EMAIL|>.")
    assert "The user is" not in systems[2]  # the call's own instructions were for that call
    # And from Settings too.
    assert Settings(instructions="x").instructions == "x"


@pytest.mark.no_sync_twin
async def test_instructions_of_a_call_reach_extracts_and_agents_system_prompts(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM(
        extract_answer({"text": "Hi"}),
        agent_output({"action": "done", "text": "seen"}),
        extract_answer({"text": "Hi"}),  # a later call without instructions of its own
    )
    stagehand = AsyncStagehand(llm=llm, instructions="Never buy anything.")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hello.html")
    variables = {"email": secret_values.EMAIL}
    assert await page.extract(
        "the greeting",
        Greeting,
        instructions="Keep the greeting's case.",
        variables=variables,
    ) == Greeting(text="Hi")
    run = await page.agent(
        "look at the page",
        instructions=f"Report to {secret_values.EMAIL}.",
        variables=variables,
    )
    assert run.success
    await page.extract("the greeting", Greeting)
    assert [r.options.kind for r in llm.requests] == ["extract", "agent", "extract"]
    extract_system, agent_system, later_system = _system(llm)
    assert extract_system.endswith("Never buy anything.\nKeep the greeting's case.")
    assert agent_system.endswith("Never buy anything.\nReport to <|EMAIL|>.")
    for system in (extract_system, agent_system, later_system):
        assert USER_INSTRUCTIONS_HEADER in system and secret_values.EMAIL not in system
    assert later_system.endswith("Never buy anything.")  # a call's own were for that call


@pytest.mark.no_sync_twin
async def test_no_instructions_leave_the_prompt_as_it_was(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM(observe_answer(0))
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    await page.observe("the Hi button")
    assert not any(USER_INSTRUCTIONS_HEADER in m.content for m in llm.requests[0].messages)


async def test_a_wrong_model_on_a_call_is_a_configuration_error(
    async_page: AsyncPage, pages_url: str
) -> None:
    session = AsyncScriptedLLM()
    page = AsyncStagehand(llm=session).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    # The other flavour of fake: a sync one here, an async one in the generated sync twin.
    wrong_flavour = fakes.FunctionLLM() if ASYNC else getattr(fakes, "Async" + "FunctionLLM")()
    with pytest.raises(ConfigurationError, match="twin"):
        await page.act("click Hi", llm=wrong_flavour)
    with pytest.raises(ConfigurationError, match="both model="):
        await page.observe("x", model="openai/a", llm=session)
    with pytest.raises(ConfigurationError, match="bogus"):
        await page.extract("x", model="bogus/model")
    assert session.calls == 0


@pytest.mark.no_sync_twin
async def test_a_cache_miss_in_require_mode_is_in_the_history(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    llm = AsyncScriptedLLM(skip_section())
    stagehand = AsyncStagehand(llm=llm, cache_dir=tmp_path, cache_mode="require")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hello.html")
    with pytest.raises(CacheMissError):
        await page.act("click Hi", variables={"email": secret_values.EMAIL})
    with pytest.raises(CacheMissError):
        await page.extract("the greeting", Greeting)
    act, extract = stagehand.history
    assert (act.kind, act.success, act.instruction) == ("act", False, "click Hi")
    assert act.message.startswith("CacheMissError: ")
    assert (extract.kind, extract.success) == ("extract", False)
    assert llm.calls == 0
