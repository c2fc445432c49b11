"""agent() through the action cache on real Chromium: a second run replays with zero model
calls, a changed step hands the rest of the task to the model and heals the entry,
``cache_mode="require"`` raises at the step that fails, no value reaches the cache, and a
planted entry is refused against the live page.

The fake model reads the page it is shown (``RequestContext``), so it can start anywhere:
from the first step, or from wherever a replay stopped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, AsyncStagehandPage, CacheMissError, ElementNotFoundError
from stagehand_py._async.cache.fingerprint import fingerprint_of_locator
from stagehand_py.cache._manage import entry_diff
from stagehand_py.cache._store import ActionCache
from stagehand_py.llm import Message
from stagehand_py.testing import AsyncFunctionLLM, RequestContext, agent_output
from tests import secret_values

URL = "replay/signup.html"
TASK = "open an account for <|EMAIL|> with the password <|PASSWORD|>"
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
WELCOME = f"Welcome, {secret_values.EMAIL} (password of {len(secret_values.PASSWORD)} characters)."
CONFIRM_BUTTONS = ("Create account", "Open my account")


def signup_plan(
    messages: list[Message], schema: type[BaseModel], context: RequestContext
) -> dict[str, Any]:
    """A model that does the next thing the page it sees needs."""
    assert context.kind == "agent" and context.snapshot is not None
    if any(e.text.startswith("Welcome") for e in context.snapshot.elements):
        return agent_output({"action": "done", "success": True, "text": "account opened"})
    for name in CONFIRM_BUTTONS:
        try:
            return agent_output({"action": "click", "index": context.find(name, tag="button")})
        except ElementNotFoundError:
            continue
    return agent_output(
        {"action": "fill", "index": context.find("email", tag="input"), "text": "<|EMAIL|>"},
        {"action": "fill", "index": context.find("password", tag="input"),
         "text": "<|PASSWORD|>"},
        {"action": "click", "index": context.find("Next", tag="button")},
    )  # fmt: skip


async def _signup_page(
    async_page: AsyncPage, pages_url: str, llm: Any, cache_dir: Path, **settings: Any
) -> AsyncStagehandPage:
    page = AsyncStagehand(llm=llm, cache_dir=cache_dir, **settings).wrap(async_page)
    await page.goto(pages_url + URL)
    return page


async def _record(async_page: AsyncPage, pages_url: str, cache_dir: Path) -> Path:
    """The first run (the model does it), stored; returns the entry's file."""
    llm = AsyncFunctionLLM(structured=signup_plan)
    page = await _signup_page(async_page, pages_url, llm, cache_dir)
    result = await page.agent(TASK, variables=VARIABLES)
    assert result.success and result.cache == "miss", result.summary()
    assert llm.calls == 3 and result.not_cached is None
    [entry_file] = list(cache_dir.glob("*.json"))
    return entry_file


async def _redesign(page: AsyncStagehandPage) -> None:
    """The confirm button is renamed and moved: the stored click no longer holds."""
    await page.evaluate(
        """() => {
            const old = document.getElementById('create');
            const button = document.createElement('button');
            button.type = 'button'; button.id = 'open-account';
            button.textContent = 'Open my account';
            const box = document.createElement('div');
            box.append(button);
            old.closest('section').prepend(box);
            old.remove();
        }"""
    )


def _no_values_in(cache_dir: Path) -> None:
    for path in cache_dir.rglob("*"):
        if path.is_file():
            text = path.read_text("utf-8")
            leaked = [form for form in secret_values.FORMS if form in text]
            assert not leaked, f"{path.name} holds {leaked}"


async def test_a_second_run_replays_with_zero_model_calls(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    stored = json.loads(entry_file.read_text("utf-8"))
    assert stored["kind"] == "agent" and stored["variable_names"] == ["EMAIL", "PASSWORD"]
    assert [a["method"] for a in stored["actions"]] == ["fill", "fill", "click", "click"]
    assert [a["arguments"] for a in stored["actions"][:2]] == [["<|EMAIL|>"], ["<|PASSWORD|>"]]
    _no_values_in(tmp_path)

    silent = AsyncFunctionLLM()  # no functions: any request would fail, and is counted
    page = await _signup_page(async_page, pages_url, silent, tmp_path, cache_mode="require")
    result = await page.agent(TASK, variables=VARIABLES)
    assert result.success and result.cache == "hit", result.summary()
    assert silent.calls == 0 and result.usage.requests == 0
    assert await page.locator("#result").inner_text() == WELCOME
    [replayed] = result.steps
    assert [o.action for o in replayed.results] == ["fill", "fill", "click", "click"]
    assert all(o.note == "replayed from the action cache" for o in replayed.results)
    assert secret_values.EMAIL not in result.model_dump_json()
    code = result.to_playwright_code("async", url=pages_url + URL)  # the replayed steps
    assert 'os.environ["EMAIL"]' in code and 'os.environ["PASSWORD"]' in code
    assert 'page.locator("#next").click()' in code
    assert not any(form in code for form in secret_values.FORMS)


@pytest.mark.no_sync_twin
async def test_a_changed_step_hands_the_rest_to_the_model_and_heals(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    before = json.loads(entry_file.read_text("utf-8"))

    healer = AsyncFunctionLLM(structured=signup_plan)
    page = await _signup_page(async_page, pages_url, healer, tmp_path)
    await _redesign(page)
    result = await page.agent(TASK, variables=VARIABLES)
    assert result.success and result.cache == "healed", result.summary()
    assert "step 4 of 4" in result.cache_note
    assert healer.calls == 2  # the click the redesign broke, then done: not the whole task
    told = "\n".join(m.content for m in healer.requests[0].messages)
    assert "replayed from a stored run of this task" in told and "step 4 of 4" in told
    assert await page.locator("#result").inner_text() == WELCOME
    replayed = result.steps[0]
    assert [o.action for o in replayed.results] == ["fill", "fill", "click"]

    after = json.loads(entry_file.read_text("utf-8"))
    assert after["created_at"] == before["created_at"]
    assert after["actions"][:3] == before["actions"][:3]  # the steps that held are kept
    assert any("open-account" in s for s in after["actions"][3]["selectors"])
    assert after["previous"]["actions"] == before["actions"]
    cache = ActionCache(tmp_path)
    diff = entry_diff(cache.find(after["key"][:12]))
    assert "step 4 of 4" in diff and "Open my account" in diff
    _no_values_in(tmp_path)

    # The healed entry replays the redesigned page with no model call.
    silent = AsyncFunctionLLM()
    page = await _signup_page(async_page, pages_url, silent, tmp_path, cache_mode="require")
    await _redesign(page)
    again = await page.agent(TASK, variables=VARIABLES)
    assert again.cache == "hit" and silent.calls == 0, again.summary()


@pytest.mark.no_sync_twin
async def test_require_mode_raises_at_the_step_that_fails(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    stored = entry_file.read_text("utf-8")
    silent = AsyncFunctionLLM()
    page = await _signup_page(async_page, pages_url, silent, tmp_path, cache_mode="require")
    await _redesign(page)
    with pytest.raises(CacheMissError) as missed:
        await page.agent(TASK, variables=VARIABLES)
    error = missed.value
    assert error.reason == "stale" and "step 4 of 4" in str(error)
    assert "cache_mode='require'" in str(error) and "No model was called" in str(error)
    assert silent.calls == 0
    for form in secret_values.FORMS:
        assert form not in str(error)
    assert entry_file.read_text("utf-8") == stored  # require mode never writes
    # The steps before it did run (the replay stops where the page no longer matches).
    assert await page.locator("#email").input_value() == secret_values.EMAIL
    assert await page.locator("#result").inner_text() == ""


async def test_require_mode_with_no_entry_raises_before_any_request(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    silent = AsyncFunctionLLM()
    stagehand = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + URL)
    with pytest.raises(CacheMissError) as missed:
        await page.agent(TASK, variables=VARIABLES)
    assert missed.value.reason == "miss" and silent.calls == 0
    assert [(r.kind, r.success, r.llm_calls) for r in stagehand.history] == [("agent", False, 0)]


async def test_a_planted_step_is_refused_against_the_live_page(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    # Someone edits the entry: the password step now aims at the search box, and carries the
    # search box's own fingerprint, so the fingerprint check alone would let it through.
    stored = json.loads(entry_file.read_text("utf-8"))
    page = await _signup_page(async_page, pages_url, AsyncFunctionLLM(), tmp_path)
    search = page.locator("#site-search")
    print_ = await fingerprint_of_locator(search, timeout_ms=2000)
    stored["actions"][1]["selectors"] = ['xpath=//*[@id="site-search"]']
    stored["actions"][1]["fingerprint"] = print_.model_dump(mode="json", exclude_none=True)
    entry_file.write_text(json.dumps(stored), "utf-8")

    silent = AsyncFunctionLLM()
    page = await _signup_page(async_page, pages_url, silent, tmp_path, cache_mode="require")
    with pytest.raises(CacheMissError) as missed:
        await page.agent(TASK, variables=VARIABLES)
    assert "step 2 of 4" in str(missed.value) and "search box" in str(missed.value)
    assert await search.input_value() == "" and silent.calls == 0

    # With the model allowed, it finishes from there; the value still never reaches the box.
    healer = AsyncFunctionLLM(structured=signup_plan)
    page = await _signup_page(async_page, pages_url, healer, tmp_path)
    result = await page.agent(TASK, variables=VARIABLES)
    assert result.success and result.cache == "healed", result.summary()
    assert await page.locator("#site-search").input_value() == ""
    assert await page.locator("#result").inner_text() == WELCOME
    healed = json.loads(entry_file.read_text("utf-8"))
    assert not any("site-search" in s for a in healed["actions"] for s in a["selectors"])
    _no_values_in(tmp_path)


async def test_a_run_a_replay_cannot_redo_is_not_stored(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    def navigate_then_answer(
        messages: list[Message], schema: type[BaseModel], context: RequestContext
    ) -> dict[str, Any]:
        if context.step == 1:
            return agent_output({"action": "navigate", "url": pages_url + URL + "?from=help"})
        return agent_output(
            {"action": "done", "success": True, "text": "read", "data": {"bank": "Fernhill"}}
        )

    llm = AsyncFunctionLLM(structured=navigate_then_answer)
    page = await _signup_page(async_page, pages_url, llm, tmp_path)
    result = await page.agent("find the bank's name")
    assert result.success and result.cache == "miss", result.summary()
    assert result.not_cached is not None and "data read from the page" in result.not_cached
    assert not list(tmp_path.glob("*.json"))

    clicks_then_navigates = AsyncFunctionLLM(structured=lambda m, s, context: (
        agent_output({"action": "click", "index": context.find("Next", tag="button")})
        if context.step == 1 else
        agent_output({"action": "navigate", "url": pages_url + URL + "?again=1"})
        if context.step == 2 else
        agent_output({"action": "done", "success": True, "text": "went on"})
    ))  # fmt: skip
    page = await _signup_page(async_page, pages_url, clicks_then_navigates, tmp_path)
    result = await page.agent("go on, then reload the page")
    assert result.success and result.not_cached is not None, result.summary()
    assert "step 2 ran navigate" in result.not_cached
    assert not list(tmp_path.glob("*.json"))
