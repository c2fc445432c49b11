"""Habits a Playwright user brings: ``timeout=`` in milliseconds is refused by name on every
verb (a wrapped page's ``check`` with a selector is still Playwright's own), a call's timeout
is a builtin ``TimeoutError``, and a call with no model says what to set."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError, StagehandTimeoutError
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py.testing import AsyncScriptedLLM
from tests.llm_wire_server import LLMWireServer, openai_completion

Verb = Callable[..., Awaitable[Any]]


def _verbs(page: Any, stagehand: AsyncStagehand, raw: AsyncPage) -> dict[str, Verb]:
    """Every verb, on the wrapped page and on the Stagehand (which takes the page first)."""
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    return {
        "page.act": lambda **kw: page.act("click Go", **kw),
        "page.extract": lambda **kw: page.extract("the title", schema, **kw),
        "page.observe": lambda **kw: page.observe("the Go button", **kw),
        "page.agent": lambda **kw: page.agent("click Go", **kw),
        "page.workflow": lambda **kw: page.workflow("click Go", **kw),
        "page.check": lambda **kw: page.check("a Go button is shown", **kw),
        "stagehand.act": lambda **kw: stagehand.act(raw, "click Go", **kw),
        "stagehand.extract": lambda **kw: stagehand.extract(raw, "the title", schema, **kw),
        "stagehand.observe": lambda **kw: stagehand.observe(raw, "the Go button", **kw),
        "stagehand.agent": lambda **kw: stagehand.agent(raw, "click Go", **kw),
        "stagehand.workflow": lambda **kw: stagehand.workflow(raw, "click Go", **kw),
        "stagehand.check": lambda **kw: stagehand.check(raw, "a Go button is shown", **kw),
    }


VERBS = [
    f"{owner}.{verb}"
    for owner in ("page", "stagehand")
    for verb in ("act", "extract", "observe", "agent", "workflow", "check")
]


@pytest.mark.parametrize("verb", VERBS)
async def test_playwrights_timeout_in_milliseconds_is_refused_by_name(
    async_page: AsyncPage, verb: str
) -> None:
    llm = AsyncScriptedLLM()  # never asked: the call is refused before it starts
    stagehand = AsyncStagehand(llm=llm)
    page = stagehand.wrap(async_page)
    await page.set_content("<h1>Report</h1><button>Go</button>")
    with pytest.raises(ConfigurationError) as raised:
        await _verbs(page, stagehand, async_page)[verb](timeout=5000)
    message = str(raised.value)
    assert "did you mean timeout_s (seconds)?" in message and "timeout_s=5" in message
    assert llm.calls == 0 and stagehand.history == []
    assert await page.locator("button").count() == 1  # nothing ran


@pytest.mark.parametrize("verb", VERBS)
@pytest.mark.no_sync_twin(keep=["page.observe"])
async def test_a_call_with_no_model_says_which_option_or_variable_to_set(
    async_page: AsyncPage, verb: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("STAGEHAND_PY_MODEL", "STAGEHAND_PY_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    stagehand = AsyncStagehand()
    page = stagehand.wrap(async_page)
    await page.set_content("<h1>Report</h1><button>Go</button>")
    with pytest.raises(ConfigurationError) as raised:
        await _verbs(page, stagehand, async_page)[verb]()
    message = str(raised.value)
    assert "model=" in message and "STAGEHAND_PY_MODEL=" in message
    assert "--stagehand-model" in message


@pytest.mark.parametrize("verb", ["extract", "act"])
async def test_a_calls_timeout_is_caught_as_the_builtin_timeout_error(
    async_page: AsyncPage, llm_server: LLMWireServer, verb: str
) -> None:
    llm_server.reply(openai_completion(content="{}"), delay=30.0)
    llm = AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, timeout=30)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.set_content("<h1>Report</h1><button>Go</button>")
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    try:
        if verb == "extract":
            await page.extract("the title", schema, timeout_s=1)
        else:
            await page.act("click Go", timeout_s=1)
    except TimeoutError as caught:  # what `except TimeoutError` around Playwright code catches
        assert isinstance(caught, StagehandTimeoutError)
        assert "ran out of time" in str(caught)
    else:
        pytest.fail(f"{verb}() with a hung model returned")


async def test_a_checkbox_selector_with_timeout_is_still_playwrights_check(
    async_page: AsyncPage,
) -> None:
    page = AsyncStagehand(llm=AsyncScriptedLLM()).wrap(async_page)
    await page.set_content('<input type="checkbox" id="agree">')
    await page.check("#agree", timeout=5000)
    assert await page.locator("#agree").is_checked()
