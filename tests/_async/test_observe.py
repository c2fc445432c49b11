"""observe(), and act() on an observed result: no model call, self-healing when stale."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, ObserveResult, StructuredOutputError
from stagehand_py._async.browser.locate import locate_selectors
from stagehand_py.llm._messages import Message
from stagehand_py.prompts.observe import ObserveAnswer
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element

# The email field's line in either view (DOM attributes or the tree's name).
EMAIL_FIELD = r"(?i)^<(?:input\b[^>]*|textbox\b.*)email"
MODES = pytest.mark.parametrize("mode", ["dom", "aria"])


def _finder(*wanted: tuple[str, str, list[str]]) -> AsyncFunctionLLM:
    """A model that answers observe requests by finding lines in the page text it was sent."""

    def structured(messages: list[Message], schema: type[BaseModel]) -> Any:
        assert schema is ObserveAnswer
        page_text = messages[-1].content
        elements = []
        for pattern, method, arguments in wanted:
            number = find_element(page_text, pattern)
            if number is not None:
                elements.append(
                    {
                        "element": number,
                        "description": f"element matching {pattern}",
                        "method": method,
                        "arguments": arguments,
                    }
                )
        return {"elements": elements}

    return AsyncFunctionLLM(structured=structured)


async def _resolves_to_one(page: AsyncPage, result: ObserveResult) -> None:
    for selector in result.selectors:
        locator, used = await locate_selectors(page, result.frame, [selector])
        assert used == selector and await locator.count() == 1


@MODES
@pytest.mark.no_sync_twin
async def test_observe_returns_resolvable_selectors_and_suggested_methods(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = _finder(
        (EMAIL_FIELD, "fill", ["<|EMAIL|>"]),
        (r"^<button\b[^>]*>.*Submit", "click", []),
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    results = await page.observe("the email field and the submit button")
    assert [r.method for r in results] == ["fill", "click"]
    assert results[0].arguments == ["<|EMAIL|>"]
    for result in results:
        assert result.selector == result.selectors[0]
        await _resolves_to_one(page, result)
        assert len(result.ladder) == (len(result.selectors) if mode == "aria" else 0)
    assert llm.calls == 1
    if mode == "aria":
        assert results[1].ladder[0] == 'page.get_by_role("button", name="Submit", exact=True)'


@MODES
@pytest.mark.no_sync_twin
async def test_observe_sees_into_shadow_dom_and_nested_frames(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    for name in ("shadow.html", "frames.html"):
        llm = _finder((r"^<button\b", "click", []))
        # The mode per call overrides the Stagehand's (dom here).
        page = AsyncStagehand(llm=llm).wrap(async_page)
        await page.goto(pages_url + name)
        [result] = await page.observe("the button", snapshot=mode)
        await _resolves_to_one(page, result)
        if name == "frames.html":
            assert len(result.frame) == 2


@pytest.mark.no_sync_twin
async def test_observe_without_instruction_lists_controls(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _finder((r"^<input\b", "fill", ["x"]), (r"^<select\b", "select_option", ["France"]))
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    results = await page.observe()
    assert {r.method for r in results} == {"fill", "select_option"}
    assert "interactive elements" in llm.requests[0].text()


async def test_observe_drops_unshown_elements_and_unknown_methods(
    async_page: AsyncPage, pages_url: str
) -> None:
    def structured(messages: list[Message], schema: type[BaseModel]) -> Any:
        first = int(re.search(r"^(\d+):", messages[-1].content, re.M).group(1))  # type: ignore[union-attr]
        return {
            "elements": [
                {"element": 99999, "description": "made up", "method": "click"},
                {"element": first, "description": "first", "method": "evaluate"},
            ]
        }

    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=structured)).wrap(async_page)
    await page.goto(pages_url + "form.html")
    [result] = await page.observe("anything")
    assert result.method == "click"  # an unknown method never survives


@MODES
@pytest.mark.no_sync_twin
async def test_act_on_an_observed_result_makes_no_model_call(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = _finder((EMAIL_FIELD, "fill", ["<|EMAIL|>"]))
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    [field] = await page.observe("the email field")
    calls = llm.calls
    result = await page.act(field, variables={"email": secret_values.EMAIL})
    assert llm.calls == calls
    assert result.success and result.llm_calls == 0
    assert result.actions[0].arguments == ["<|EMAIL|>"]
    assert await page.locator(field.selector).input_value() == secret_values.EMAIL
    assert secret_values.EMAIL not in result.model_dump_json()


async def test_act_on_a_stale_observed_result_heals_with_a_normal_act(
    async_page: AsyncPage, pages_url: str
) -> None:
    finder = _finder((r"^<button\b[^>]*>.*Next", "click", []))
    stagehand = AsyncStagehand(llm=finder)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "changes.html")
    [next_button] = await page.observe("the Next button")
    # A redesign: the button is replaced by a differently built one with another label.
    await page.evaluate(
        """() => {
            const old = document.getElementById('next');
            const wrapper = document.createElement('section');
            const replacement = document.createElement('button');
            replacement.textContent = 'Continue';
            replacement.className = 'primary';
            replacement.addEventListener('click', () => old.click());
            wrapper.append(replacement);
            old.replaceWith(wrapper);
        }"""
    )
    for selector in next_button.selectors:
        assert await page.locator(selector).count() == 0
    healer = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>.*Continue")])
    stagehand._llm = healer
    result = await page.act(next_button)
    assert result.success and result.healed
    assert "no longer resolved" in result.message
    assert healer.calls >= 1
    assert await page.locator("button", has_text="Finish").count() == 1


@pytest.mark.no_sync_twin
async def test_an_observed_result_runs_without_any_model_configured(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("STAGEHAND_PY_MODEL", raising=False)
    page = AsyncStagehand().wrap(async_page)
    await page.goto(pages_url + "form.html")
    saved = ObserveResult(
        selector="xpath=//*[@id='first-name']",
        selectors=["xpath=//*[@id='first-name']", "css=#first-name"],
        description="first name field",
        method="fill",
        arguments=["Lin"],
    )
    result = await page.act(saved)
    assert result.success and result.llm_calls == 0
    assert await page.locator("#first-name").input_value() == "Lin"


# ----------------------------------------------------------------- malformed answers
def _hi_button() -> dict[str, Any]:
    return {"elements": [{"element": 0, "description": "the Hi button", "method": "click"}]}


# An answer without the list (one element alone), and one naming only unshown elements.
MALFORMED = pytest.mark.parametrize(
    "malformed",
    [
        {"element": 0, "description": "the Hi button"},
        {"elements": [{"element": 9999, "description": "made up", "method": "click"}]},
    ],
    ids=["no-list", "only-unshown"],
)


@MALFORMED
@pytest.mark.no_sync_twin
async def test_a_malformed_observe_answer_is_asked_again(
    async_page: AsyncPage, malformed: dict[str, Any]
) -> None:
    llm = AsyncScriptedLLM(malformed, _hi_button())
    stagehand = AsyncStagehand(llm=llm)
    page = stagehand.wrap(async_page)
    await page.set_content("<button>Hi</button>")
    [found] = await page.observe("the Hi button")
    assert found.description == "the Hi button"
    assert llm.calls == 2
    assert stagehand.history[-1].llm_calls == 2 and stagehand.usage.total.requests == 2


@MALFORMED
@pytest.mark.no_sync_twin(keep=["only-unshown"])
async def test_an_always_malformed_observe_answer_is_a_typed_error(
    async_page: AsyncPage, malformed: dict[str, Any]
) -> None:
    llm = AsyncScriptedLLM(*[malformed] * 3)
    stagehand = AsyncStagehand(llm=llm, max_reasks=2)
    page = stagehand.wrap(async_page)
    await page.set_content("<button>Hi</button>")
    with pytest.raises(StructuredOutputError, match="ObserveAnswer"):
        await page.observe("the Hi button")
    assert llm.calls == 3  # the first answer and max_reasks re-asks, no more
    record = stagehand.history[-1]
    assert not record.success and record.llm_calls == 3
    assert stagehand.usage.total.requests == 3


async def test_a_well_formed_empty_observe_answer_is_no_element(async_page: AsyncPage) -> None:
    llm = AsyncScriptedLLM({"elements": []})
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.set_content("<button>Hi</button>")
    assert await page.observe("the error banner") == []
    assert llm.calls == 1
