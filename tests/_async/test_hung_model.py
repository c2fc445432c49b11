"""A hung model over the wire (the real OpenAI client against the loopback server): extract,
observe and act end at ``timeout_s`` as the call's timeout, every time, whichever of the two
clocks fires first (the client's request timeout, set to the time the call had left, or the
call's own deadline); the abandoned request is counted in the history and the session total."""

from __future__ import annotations

import time

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import ActTimeoutError, AsyncStagehand, StagehandTimeoutError
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from tests.llm_wire_server import LLMWireServer, openai_completion

RUNS = 10  # the race decides differently from run to run: each verb ends the same way 10 times
TIMEOUT_S = 1.0


class Title(BaseModel):
    title: str


async def _hung_call(page: AsyncPage, verb: str) -> None:
    if verb == "extract":
        await page.extract("the title", schema=Title, timeout_s=TIMEOUT_S)  # type: ignore[attr-defined]
    elif verb == "observe":
        await page.observe("the Hi button", timeout_s=TIMEOUT_S)  # type: ignore[attr-defined]
    else:
        await page.act("click Hi", timeout_s=TIMEOUT_S)  # type: ignore[attr-defined]


@pytest.mark.parametrize("verb", ["extract", "observe", "act"])
async def test_a_hung_model_is_always_the_calls_timeout(
    verb: str, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    llm_server.reply(openai_completion(content="{}"), delay=60.0, times=RUNS)
    llm = AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, timeout=60, max_retries=2)
    stagehand = AsyncStagehand(llm=llm)
    page = stagehand.wrap(async_page)
    await page.set_content("<h1>Report</h1><button>Hi</button>")
    raised = []
    for run in range(1, RUNS + 1):
        started = time.monotonic()
        with pytest.raises(StagehandTimeoutError) as caught:
            await _hung_call(page, verb)
        raised.append(type(caught.value).__name__)
        assert time.monotonic() - started < TIMEOUT_S + 1.0, f"run {run}"
        if verb == "act":
            assert isinstance(caught.value, ActTimeoutError)
        record = stagehand.history[-1]
        assert not record.success and record.llm_calls == 1, f"run {run}: {record}"
        assert stagehand.usage.total.requests == run, f"run {run}"
    assert len(set(raised)) == 1, raised
    assert len(llm_server.wait_for_requests(RUNS, timeout=5.0)) == RUNS
