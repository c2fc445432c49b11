"""act()'s loop on real Chromium: delayed UI, snapshot reuse, batches, replaced elements, tabs,
confidence and codes. Pages are under tests/pages/loop/."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, Snapshot
from stagehand_py.llm._messages import ChatResponse, ToolCall
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

BUTTON = r"^<button\b[^>]*>"
# Each test marked MODES runs once per snapshot mode (Stagehand(snapshot=mode)); its plan's
# patterns match an element's line in either view (``<input id="first-name"...>`` or
# ``<textbox name="First name">``).
MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
FIRST_NAME = r'^<(input\b[^>]*first|textbox name="First name")'
SELECT = r"^<(select|combobox)\b"


def _count_snapshots(
    monkeypatch: pytest.MonkeyPatch,
    after: Callable[[AsyncPage, int], Awaitable[None]] | None = None,
) -> list[int]:
    """Count the act loop's serializations (the returned list holds the count); ``after``,
    when given, runs after each one with its number: the page changes between the snapshot
    and the model's answer, in the act's own flow (sync Playwright allows no other thread)."""
    import stagehand_py._async.act.loop as act_module

    count = [0]
    original = act_module.take_snapshot

    async def counting(page: AsyncPage, **options: Any) -> Snapshot:
        count[0] += 1
        snapshot = await original(page, **options)
        if after is not None:
            await after(page, count[0])
        return snapshot

    monkeypatch.setattr(act_module, "take_snapshot", counting)
    return count


def _chats(llm: AsyncPlanLLM) -> list[str]:
    return [r.text() for r in llm.requests if r.kind == "chat"]


# ----------------------------------------------------------------- delayed UI (issue 12, item 3)
# DOM only: the tree folds "Ada Lovelace ▾" into the banner's text line (nothing to hover).
@pytest.mark.no_sync_twin
async def test_waits_for_a_hover_menu_that_opens_on_a_timer(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("hover", r"^Ada Lovelace"), Step("click", r"^<a\b[^>]*>Sign out")])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "loop/hover_menu.html")
    result = await page.act("sign out")
    assert result.success, result.message
    assert await page.locator("#status").inner_text() == "You have signed out."
    # The look after the hover already showed the menu the 300 ms timer opened.
    assert len(_chats(llm)) == 2 and "Sign out" in _chats(llm)[1]


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_waits_for_a_panel_that_fades_in_after_a_click(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", BUTTON + "Show filters"),
            Step("check", r"^(<input\b[^>]*in-stock|<checkbox\b.*[Ii]n stock)"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/fade_panel.html")
    result = await page.act("show only tents in stock")
    assert result.success, result.message
    assert await page.locator("#filter-status").inner_text() == "Showing tents in stock"
    assert len(_chats(llm)) == 2


@pytest.mark.parametrize(
    ("via", "mode"), [("timeout", "dom"), ("poll", "dom"), ("timeout", "aria")]
)
@pytest.mark.no_sync_twin
async def test_a_skipped_section_is_offered_again_once_the_page_changed(
    async_page: AsyncPage, pages_url: str, via: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The confirmation appears while the model looks at the page without it."""

    async def payment_confirmed_meanwhile(page: AsyncPage, snapshots: int) -> None:
        if snapshots == 1:
            await page.evaluate("confirmPayment()")
            await page.locator("#track").wait_for()

    _count_snapshots(monkeypatch, after=payment_confirmed_meanwhile)
    llm = AsyncPlanLLM([Step("click", BUTTON + "Track my parcel")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + f"loop/late.html?via={via}")
    result = await page.act("track my parcel")
    assert result.success, result.message
    assert await page.locator("#late-result").inner_text() == "Tracking: out for delivery"
    first, second = _chats(llm)
    assert "Track my parcel" not in first and "Track my parcel" in second
    assert result.chunks_seen == [0, 0]


# ----------------------------------------------------------------- snapshot reuse (item 9)
@MODES
@pytest.mark.no_sync_twin
async def test_a_page_that_changes_between_skips_is_serialized_again(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    async def heading_changes_meanwhile(page: AsyncPage, snapshots: int) -> None:
        if snapshots == 1:
            await page.evaluate("document.querySelector('h2').textContent += '!'")

    llm = AsyncPlanLLM([Step("click", r"not on the page")])
    page = AsyncStagehand(llm=llm, max_section_chars=0, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "long.html")
    serialized = _count_snapshots(monkeypatch, after=heading_changes_meanwhile)
    result = await page.act("press the rocket launch button", raise_on_failure=False)
    assert result.code == "ALL_SECTIONS_SKIPPED"
    # Once at the start, once after the first heading changed (its section is shown again).
    assert serialized == [2]
    assert len(result.chunks_seen) == len(set(result.chunks_seen)) + 1


# ----------------------------------------------------------------- batches (item 8)
@MODES
@pytest.mark.no_sync_twin
async def test_a_form_is_filled_in_one_reply_plus_verify(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", FIRST_NAME, ["Ada"], confidence=0.9),
            Step(
                "fill", r"^<(input\b[^>]*email|textbox name=\"Email)", ["<|EMAIL|>"], confidence=0.8
            ),
            Step("select_option", SELECT, ["France"], confidence=0.7),
            Step("click", BUTTON + "Submit", confidence=1.0),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act("sign up as Ada", variables={"email": secret_values.EMAIL})
    assert result.success, result.message
    assert [r.kind for r in llm.requests] == ["chat", "structured"]
    assert await page.locator("#result").get_attribute("data-country") == "fr"
    assert [a.confidence for a in result.actions] == [0.9, 0.8, 0.7, 1.0]
    assert result.confidence == pytest.approx(0.85)
    assert "batch" in llm.requests[0].messages[0].content.lower()


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_batch_stops_before_an_element_the_page_replaced(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("select_option", SELECT, ["United States"]),
            Step(
                "fill", r"^<(input\b[^>]*(postcode|zip)|textbox name=\"(Postcode|ZIP))", ["94103"]
            ),
            Step("click", BUTTON + "Save"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/postcode.html")
    result = await page.act("deliver to the United States, ZIP 94103")
    assert result.success, result.message
    assert await page.locator("#saved").inner_text() == "Saved: zip=94103"
    first, second = (r for r in llm.requests[:2])
    assert first.kind == second.kind == "chat"
    # The postcode field the first reply meant was rebuilt as a ZIP field: not filled, and
    # the model was told and shown the new field.
    new_field = 'name="zip"' if mode == "dom" else 'textbox name="ZIP'
    assert "not run" in second.text() and new_field in second.text()
    assert [a.method for a in result.actions] == ["select_option", "fill", "click"]


@MODES
@pytest.mark.no_sync_twin
async def test_a_batch_stops_when_an_action_navigates(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", r"^<(a\b[^>]*|link)>Skip to the contact form"),
            Step(
                "fill", r"^<(input\b[^>]*\"q\"|textbox name=\"Describe)", ["no signal since Monday"]
            ),
            Step("click", BUTTON + "Send"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/wizard_a.html")
    result = await page.act("ask support about no signal since Monday")
    assert result.success, result.message
    assert await page.locator("#sent").inner_text() == "Sent: no signal since Monday"
    chats = [r for r in llm.requests if r.kind == "chat"]
    # Both steps of the first reply were shown on page A; only the click ran there.
    assert len(chats) == 2 and "wizard_b.html" in chats[1].text()
    assert result.actions[1].url.endswith("wizard_b.html")


# ----------------------------------------------------------------- replaced targets (#13, 9)
@MODES
@pytest.mark.no_sync_twin
async def test_a_target_replaced_by_a_timer_is_looked_at_again(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    async def requoted_meanwhile(page: AsyncPage, snapshots: int) -> None:
        if snapshots == 1:
            await page.evaluate("requote(10)")
            await page.get_by_text("Pay £26.50").wait_for()

    _count_snapshots(monkeypatch, after=requoted_meanwhile)
    llm = AsyncPlanLLM([Step("click", BUTTON + "Pay")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/swap.html")
    result = await page.act("pay for the order")
    assert result.success, result.message
    first, second = _chats(llm)
    # The click waited for a look at the new button: the model saw £26.50 before paying it.
    assert "Pay £20.00" in first and "Pay £26.50" in second and "not run" in second
    assert await page.locator("#paid").inner_text() == "Paid £26.50"
    assert result.confidence == 0.0 or result.confidence is None


@MODES
@pytest.mark.no_sync_twin
async def test_a_list_reordered_before_the_click_removes_the_row_the_model_chose(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    async def sorted_meanwhile(page: AsyncPage, snapshots: int) -> None:
        await page.evaluate("sortByPrice()")

    _count_snapshots(monkeypatch, after=sorted_meanwhile)
    llm = AsyncPlanLLM([Step("click", r'^<button\b[^>]*"Remove Pears"')])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/reorder.html")
    result = await page.act("remove the pears")
    assert result.success, result.message
    assert await page.locator("#removed").inner_text() == "Removed Pears."
    # Found again by its label, with no second question to the model.
    assert len(_chats(llm)) == 1
    if mode == "dom":
        assert result.actions[0].selector == 'xpath=//button[@aria-label="Remove Pears"]'


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_a_target_that_keeps_being_replaced_stops_with_a_code(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    async def requoted_every_time(page: AsyncPage, snapshots: int) -> None:
        amount = await page.locator("#pay button").inner_text()
        await page.evaluate("requote(0)")
        await page.locator("#pay button").filter(has_not_text=amount).wait_for()

    _count_snapshots(monkeypatch, after=requoted_every_time)
    llm = AsyncPlanLLM([Step("click", BUTTON + "Pay")])
    page = AsyncStagehand(llm=llm, max_reasks=1, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/swap.html")
    result = await page.act("pay for the order", raise_on_failure=False)
    assert result.code == "ELEMENT_REPLACED" and not result.actions
    assert len(_chats(llm)) == 2
    assert await page.locator("#paid").inner_text() == ""


# ----------------------------------------------------------------- confidence and codes (#17)
@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_target_not_found_ends_the_act_at_once(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([])
    llm.extra = [
        ToolCall(
            id="nf", name="targetNotFound", arguments={"reason": "this is a review page, no cart"}
        )
    ]
    page = AsyncStagehand(llm=llm, max_section_chars=0, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "long.html")
    result = await page.act("add the boots to the cart", raise_on_failure=False)
    assert result.code == "TARGET_NOT_FOUND" and "no cart" in result.message
    assert llm.calls == 1 and len(result.chunks_seen) == 1


@MODES
@pytest.mark.no_sync_twin
async def test_failed_attempts_count_zero_in_the_confidence(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", FIRST_NAME, ["Grace"], confidence=0.9)])
    refused = {"method": "fill", "element": 9999, "args": ["x"], "step": "", "why": ""}
    llm.extra = [
        ChatResponse(
            tool_calls=[
                ToolCall(
                    id="bad",
                    name="doAction",
                    arguments={**refused, "completed": False, "confidence": 0.6},
                )
            ]
        )
    ]
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act("type Grace as the first name")
    assert result.success, result.message
    assert result.actions[0].confidence == 0.9
    assert result.confidence == pytest.approx(0.45)  # (0 for the refused element + 0.9) / 2


@pytest.mark.no_sync_twin
async def test_only_the_last_five_attempts_count_in_the_confidence(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", FIRST_NAME, ["Ada"], confidence=0.1),
            Step("fill", r"^<input\b[^>]*last", ["Lovelace"], confidence=0.8),
            Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"], confidence=0.9),
            Step("fill", r"^<input\b[^>]*phone", ["+1 555 0100"], confidence=1.0),
            Step("select_option", SELECT, ["France"], confidence=0.7),
            Step("check", r"^<input\b[^>]*terms", confidence=0.6),
        ]
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act("sign up as Ada", variables={"email": secret_values.EMAIL})
    assert result.success, result.message
    assert [a.confidence for a in result.actions] == [0.1, 0.8, 0.9, 1.0, 0.7, 0.6]
    # The first attempt (0.1) fell out of the window: (0.8 + 0.9 + 1.0 + 0.7 + 0.6) / 5.
    assert result.confidence == pytest.approx(0.8)


# ----------------------------------------------------------------- tabs (#13, item 7)
@MODES
@pytest.mark.no_sync_twin
async def test_only_a_tab_the_acts_own_page_opened_is_followed(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    """Another page of the context opens a look-alike tab while the act's click settles."""
    promo = await async_page.context.new_page()
    await promo.goto(pages_url + "loop/promo.html")
    llm = AsyncPlanLLM(
        [
            Step("click", BUTTON + "Open the order form"),
            Step("fill", r"^<(input\b[^>]*code|textbox name=\"Delivery code)", ["<|CODE|>"]),
            Step("click", BUTTON + "Confirm"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "loop/tab_opener.html?n=7")
    async with promo.expect_popup() as promo_popup:
        result = await page.act(
            "open the order form and confirm the code", variables={"code": secret_values.PASSWORD}
        )
    assert result.success, result.message
    assert result.page is not None and result.page.url.endswith("tab_form.html?n=7")
    confirmation = result.page.locator("#confirmation")
    assert await confirmation.get_attribute("data-code") == secret_values.PASSWORD
    # The look-alike tab opened meanwhile, and got nothing.
    lookalike = await promo_popup.value
    assert lookalike.url.endswith("n=promo")
    assert await lookalike.locator("#code").input_value() == ""
    assert [p for p in result.opened_pages] == [result.page.url]
