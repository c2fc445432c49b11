"""A saved agent run as plain Playwright code, run on a fresh page with no model.

The fake model answers through ``AsyncFunctionLLM``'s request context: it picks elements by
their text in the snapshot it was shown (``context.find``), never by parsing the prompt.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand
from stagehand_py.agent import AgentResult
from stagehand_py.llm import Message
from stagehand_py.testing import AsyncFunctionLLM, RequestContext, agent_output
from tests import secret_values

VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}


async def _probe() -> None: ...


STYLE = "async" if inspect.iscoroutinefunction(_probe) else "sync"  # "sync" in the twin


def sign_in_plan(
    messages: list[Message], schema: type[BaseModel], context: RequestContext
) -> dict[str, Any]:
    assert context.kind == "agent" and context.snapshot is not None
    if context.step == 1:
        return agent_output(
            {"action": "fill", "index": context.find("Email", tag="input"), "text": "<|EMAIL|>"},
            {"action": "fill", "index": context.find("pw", tag="input"), "text": "<|PASSWORD|>"},
            {"action": "select_option", "index": context.find("Basic", tag="select"),
             "option": "Pro"},
        )  # fmt: skip
    if context.step == 2:
        return agent_output({"action": "click", "index": context.find("Sign in", tag="button")})
    return agent_output({"action": "done", "success": True, "text": "signed in"})


@pytest.mark.no_sync_twin
async def test_generated_code_redoes_a_saved_agent_run(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pages_url + "ci/signin.html"
    llm = AsyncFunctionLLM(structured=sign_in_plan)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(url)
    result = await page.agent("sign in as <|EMAIL|> on the Pro plan", variables=VARIABLES)
    assert result.success, result.summary()
    by_agent = await page.locator("#result").inner_text()
    assert by_agent.startswith(f"Signed in as {secret_values.EMAIL}")

    saved = AgentResult.load(result.save(tmp_path / "run.json"))  # a saved run, read back
    code = saved.to_playwright_code(STYLE, url=url)
    for secret in secret_values.ALL:
        assert secret not in code
    assert 'os.environ["EMAIL"]' in code and 'os.environ["PASSWORD"]' in code
    assert 'page.locator("#email")' in code and "select_option(" in code

    monkeypatch.setenv("EMAIL", secret_values.EMAIL)
    monkeypatch.setenv("PASSWORD", secret_values.PASSWORD)
    namespace: dict[str, Any] = {}
    exec(compile(code, "<generated>", "exec"), namespace)
    fresh = await async_page.context.new_page()
    await namespace["run"](fresh)
    assert await fresh.locator("#result").inner_text() == by_agent
