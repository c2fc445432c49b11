"""workflow() through the action cache on real Chromium: the checklist and each item's actions
are one entry of the same store act, check and agent use; a second run replays them with zero
model calls, a changed step hands that item to the model and heals the entry, and
``cache_mode="require"`` raises at the step that fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage, CacheMissError
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests.agent_plan import Do
from tests.workflow_plan import WorkflowPlan

URL = "replay/signup.html"
REQUEST = "Open an account for <|EMAIL|> with the password <|PASSWORD|>."
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
CHECKLIST = ["Fill in the email and the password, then go on", "Create the account"]
WELCOME = f"Welcome, {secret_values.EMAIL} (password of {len(secret_values.PASSWORD)} characters)."


def signup_plan() -> WorkflowPlan:
    # The workflow reads the accessibility tree (its default view).
    return WorkflowPlan(
        CHECKLIST,
        steps={
            1: [[
                Do("fill", r'^<textbox name="Email"', text="<|EMAIL|>"),
                Do("fill", r'^<textbox name="Choose a password"', text="<|PASSWORD|>"),
                Do("click", r"^<button>Next"),
            ]],
            2: [[Do("click", r"^<button>(Create account|Open my account)")]],
        },
        done_when={1: "Check your details", 2: "Welcome"},
    )  # fmt: skip


async def _signup_page(
    async_page: AsyncPage, pages_url: str, llm: Any, cache_dir: Path, **settings: Any
) -> AsyncStagehandPage:
    page = AsyncStagehand(llm=llm, cache_dir=cache_dir, **settings).wrap(async_page)
    await page.goto(pages_url + URL)
    return page


async def _record(async_page: AsyncPage, pages_url: str, tmp_path: Path) -> Path:
    llm = AsyncFunctionLLM(structured=signup_plan())
    page = await _signup_page(async_page, pages_url, llm, tmp_path / "cache")
    history = tmp_path / "history"
    result = await page.workflow(REQUEST, variables=VARIABLES, history_dir=history)
    assert result.success and result.cache == "miss", result.summary()
    assert result.not_cached is None and llm.calls == 7
    # One store: with an action cache, the history keeps no flow or checklist of its own.
    assert not history.exists() or not any(history.iterdir())
    [entry_file] = list((tmp_path / "cache").glob("*.json"))
    return entry_file


async def _redesign(page: AsyncStagehandPage) -> None:
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


def _no_values_in(directory: Path) -> None:
    for path in directory.rglob("*.json"):
        text = path.read_text("utf-8")
        leaked = [form for form in secret_values.FORMS if form in text]
        assert not leaked, f"{path.name} holds {leaked}"


async def test_a_second_workflow_replays_with_zero_model_calls(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    stored = json.loads(entry_file.read_text("utf-8"))
    assert stored["kind"] == "workflow" and not stored.get("actions")
    assert [item["text"] for item in stored["items"]] == CHECKLIST
    assert [len(item["actions"]) for item in stored["items"]] == [3, 1]
    _no_values_in(tmp_path)

    silent = AsyncFunctionLLM()  # any request would fail, and is counted
    page = await _signup_page(
        async_page, pages_url, silent, tmp_path / "cache", cache_mode="require"
    )
    result = await page.workflow(REQUEST, variables=VARIABLES)
    assert result.success and result.cache == "hit", result.summary()
    assert result.checklist_replayed and result.replayed == [1, 2]
    assert silent.calls == 0 and result.usage.requests == 0
    assert await page.locator("#result").inner_text() == WELCOME


async def test_a_changed_step_hands_its_item_to_the_model_and_heals(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    before = json.loads(entry_file.read_text("utf-8"))

    plan = signup_plan()
    healer = AsyncFunctionLLM(structured=plan)
    page = await _signup_page(async_page, pages_url, healer, tmp_path / "cache")
    await _redesign(page)
    result = await page.workflow(REQUEST, variables=VARIABLES)
    assert result.success and result.cache == "healed", result.summary()
    assert "item 2 (Create the account), step 1 of 1" in result.cache_note
    assert result.replayed == [1] and result.checklist_replayed
    assert [item for item, _ in plan.states] == [2, 2]  # no checklist request, no item 1
    assert healer.calls == 3  # item 2's click, its done, and its completion check
    assert await page.locator("#result").inner_text() == WELCOME

    after = json.loads(entry_file.read_text("utf-8"))
    assert after["items"][0] == before["items"][0]
    assert any("open-account" in s for s in after["items"][1]["actions"][0]["selectors"])
    assert after["previous"]["items"] == before["items"]
    _no_values_in(tmp_path)


@pytest.mark.no_sync_twin
async def test_require_mode_raises_at_the_workflow_step_that_fails(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    entry_file = await _record(async_page, pages_url, tmp_path)
    stored = entry_file.read_text("utf-8")
    silent = AsyncFunctionLLM()
    stagehand = AsyncStagehand(llm=silent, cache_dir=tmp_path / "cache", cache_mode="require")
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + URL)
    await _redesign(page)
    with pytest.raises(CacheMissError) as missed:
        await page.workflow(REQUEST, variables=VARIABLES)
    message = str(missed.value)
    assert missed.value.reason == "stale" and "item 2 (Create the account)" in message
    assert "cache_mode='require'" in message and silent.calls == 0
    assert not any(form in message for form in secret_values.FORMS)
    assert entry_file.read_text("utf-8") == stored
    assert [(r.kind, r.success, r.llm_calls) for r in stagehand.history] == [("workflow", False, 0)]
