"""Generated code uses the user-facing locator Playwright's codegen picks for each element an
act() touched (test id, role and name, label...), in both views, when it found exactly that
element; otherwise the step's durable selector. Never one that quotes a variable's value.

Each test runs the generated module as plain Playwright on a fresh page (``style="async"``
here, ``"sync"`` in the generated twin).
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ActResult, AsyncStagehand
from tests._async.plan_llm import AsyncPlanLLM, Step

MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
RECIPIENT = "Ada Lovelace"
FILL_RECIPIENT = Step("fill", r'^<(input\b[^>]*id="recipient"|textbox\b)', ["<|RECIPIENT|>"])
SAVE_DRAFT = Step("click", r"^<button\b.*Keep for later")
REMOVE = Step("click", r"^<button\b.*Remove")  # the first of two buttons alike
CONFIRM = Step("check", r'^<(input\b[^>]*type="checkbox"|checkbox\b)')


async def _probe() -> None: ...


STYLE = "async" if inspect.iscoroutinefunction(_probe) else "sync"  # "sync" in the twin


async def _run_code(code: str, page: AsyncPage, **params: str) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(code, "<generated>", "exec"), namespace)
    await namespace["run"](page, **params)


async def _act(
    async_page: AsyncPage, url: str, mode: str, steps: list[Step], **options: Any
) -> ActResult:
    page = AsyncStagehand(llm=AsyncPlanLLM(steps), snapshot=mode, **options).wrap(async_page)
    await page.goto(url)
    result = await page.act("do the steps", variables={"recipient": RECIPIENT})
    assert result.success, result.message
    return result


@MODES
@pytest.mark.no_sync_twin
async def test_unique_elements_get_user_facing_locators_and_the_code_runs(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    url = pages_url + "ci/codegen.html"
    result = await _act(async_page, url, mode, [FILL_RECIPIENT, SAVE_DRAFT, REMOVE])
    by_sdk = await async_page.locator("#result").inner_text()
    assert by_sdk == "draft saved; removed row 1"

    code = result.to_playwright_code(STYLE, variables="params")
    assert RECIPIENT not in code
    lines = [line.strip().removeprefix("await ") for line in code.splitlines()]
    # The aria view's own ladder rung when its tree is current (an exact name), else
    # Playwright's pick, as its codegen writes it.
    exact = ", exact=True" if mode == "aria" else ""
    assert f'page.get_by_role("textbox", name="Recipient"{exact}).fill(recipient)' in lines
    assert 'page.get_by_test_id("save-draft").click()' in lines
    # Two "Remove" buttons: no user-facing locator finds one alone; no position either.
    remove = lines[-1]
    assert remove.endswith(".click()") and "get_by_" not in remove, remove
    assert ".nth(" not in code and ".first" not in code

    fresh = await async_page.context.new_page()
    await fresh.goto(url)
    await _run_code(code, fresh, recipient=RECIPIENT)
    assert await fresh.locator("#recipient").input_value() == RECIPIENT
    assert await fresh.locator("#result").inner_text() == by_sdk


@MODES
@pytest.mark.no_sync_twin
async def test_a_label_that_shows_a_typed_value_is_never_used(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    url = pages_url + "ci/codegen.html"
    page = AsyncStagehand(llm=AsyncPlanLLM([FILL_RECIPIENT]), snapshot=mode).wrap(async_page)
    await page.goto(url)
    assert (await page.act("send it to <|RECIPIENT|>", variables={"recipient": RECIPIENT})).success
    # The checkbox's label now reads "Send to Ada Lovelace".
    confirm = await page.act(
        "confirm", variables={"recipient": RECIPIENT}, llm=AsyncPlanLLM([CONFIRM])
    )
    assert confirm.success, confirm.message
    assert await page.locator("#confirm").is_checked()
    [action] = confirm.actions
    assert action.user_facing_selector is None

    code = confirm.to_playwright_code(STYLE)
    assert RECIPIENT not in code and "Lovelace" not in code
    assert "get_by_role" not in code and "get_by_label" not in code

    fresh = await async_page.context.new_page()
    await fresh.goto(url)
    await fresh.fill("#recipient", RECIPIENT)
    await _run_code(code, fresh)
    assert await fresh.locator("#confirm").is_checked()


@pytest.mark.no_sync_twin
async def test_a_cache_entry_keeps_the_locator_and_its_replay_writes_it(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "ci/codegen.html"
    recorded = await _act(async_page, url, "dom", [FILL_RECIPIENT, SAVE_DRAFT], cache_dir=tmp_path)
    [entry_file] = tmp_path.rglob("*.json")
    stored = json.loads(entry_file.read_text())
    assert RECIPIENT not in entry_file.read_text()
    assert [a.get("user_facing_selector") for a in stored["actions"]] == [
        'internal:role=textbox[name="Recipient"i]',
        'internal:testid=[data-testid="save-draft"s]',
    ]

    page = AsyncStagehand(cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(url)
    replayed = await page.act("do the steps", variables={"recipient": RECIPIENT})
    assert replayed.cache == "hit" and replayed.llm_calls == 0
    assert replayed.to_playwright_code(STYLE) == recorded.to_playwright_code(STYLE)
    assert 'page.get_by_test_id("save-draft").click()' in replayed.to_playwright_code(STYLE)


@MODES
@pytest.mark.no_sync_twin
async def test_inside_nested_frames_the_locator_is_the_frame_s_own(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    url = pages_url + "frames.html"
    steps = [
        Step("fill", r'^<(input\b[^>]*id="frame-input"|textbox\b)', ["Hello"]),
        Step("click", r"^<button\b.*Send"),
    ]
    page = AsyncStagehand(llm=AsyncPlanLLM(steps), snapshot=mode).wrap(async_page)
    await page.goto(url)
    result = await page.act("say hello in the chat")
    assert result.success, result.message
    code = result.to_playwright_code(STYLE)
    assert 'get_by_role("button", name="Send"' in code
    assert code.count(".frame_locator(") == 4 and "enter-frame" not in code

    fresh = await async_page.context.new_page()
    await fresh.goto(url)
    await _run_code(code, fresh)
    chat = fresh.frame_locator("#outer-frame").frame_locator("#inner-frame")
    assert await chat.locator("#frame-result").inner_text() == "Sent: Hello"
