"""act(), observe(), extract() and the agent in both snapshot modes on the pages of
tests/pages/aria: controls told apart by role and label only, duplicated labels, a virtualised
list (found, not found, stuck), canvases, shadow roots and frames, a re-rendered target."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

import stagehand_py._async.act.checked as act_batch_module
import stagehand_py._async.act.loop as act_module
from stagehand_py import (
    ActError,
    AsyncStagehand,
    ConfigurationError,
    ElementNotFoundError,
    Snapshot,
)
from stagehand_py._async.browser.locate import frame_scope
from stagehand_py._types import ActionRecord
from stagehand_py.llm import Message
from stagehand_py.testing import AsyncFunctionLLM
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests.agent_plan import AgentPlan, Do, done

MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
# The "Call" button of a row, in either view (aria-label attribute, or the tree's name).
CALL = r'^<button\b[^>]*(aria-label|name)="Call contact {}"'


def _chats(llm: AsyncPlanLLM) -> list[str]:
    return [r.text() for r in llm.requests if r.kind == "chat"]


async def _rungs_hold(page: AsyncPage, action: ActionRecord, marker: str) -> None:
    """Every stored rung matches exactly one element, and it is the one ``marker`` (a JS
    predicate on the element) says was acted on."""
    scope = await frame_scope(page, action.frame)
    for selector in action.selectors:
        located = scope.locator(selector)
        assert await located.count() == 1, selector
        assert await located.evaluate(marker), selector


# ----------------------------------------------------------------- no ids, duplicated labels
@MODES
@pytest.mark.no_sync_twin
async def test_controls_that_differ_only_by_role_and_label(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("check", r"^<(input\b[^>]*checkbox|checkbox\b.*Digest)"),
            Step("fill", r'^<(input\b[^>]*type="search"|searchbox\b)', ["Blue team"]),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/roles.html")
    result = await page.act("subscribe to the digest and search teams for Blue team")
    assert result.success, result.message
    assert await page.locator("input[type=checkbox]").is_checked()
    assert await page.locator("[role=switch]").get_attribute("aria-checked") == "false"
    assert await page.locator("input[type=search]").input_value() == "Blue team"
    assert await page.locator("input[type=text]").input_value() == ""
    await _rungs_hold(page, result.actions[1], "e => e.type === 'search'")
    if mode == "aria":
        assert result.actions[0].ladder[0] == (
            'page.get_by_role("checkbox", name="Digest", exact=True)'
        )
        assert result.actions[1].ladder[0] == (
            'page.get_by_role("searchbox", name="Team name", exact=True)'
        )


@MODES
@pytest.mark.no_sync_twin
async def test_duplicated_labels_act_through_the_first_unique_lower_rung(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", r'placeholder="Who receives the parcel"', ["Grace"])])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/duplicates.html")
    result = await page.act("the parcel goes to Grace")
    assert result.success, result.message
    [action] = result.actions
    await _rungs_hold(page, action, "e => e.value === 'Grace'")
    if mode == "aria":
        # Role and label ("Name") are shared by two fields: the placeholder is the first
        # unique rung, and neither shared rung was stored.
        assert action.ladder[0] == 'page.get_by_placeholder("Who receives the parcel", exact=True)'
        assert not any("get_by_label" in r or "get_by_role" in r for r in action.ladder)


# ----------------------------------------------------------------- virtualised lists
@MODES
@pytest.mark.no_sync_twin
async def test_row_150_of_a_virtual_list_is_scrolled_into_view_and_clicked(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", CALL.format(150))])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/vlist.html")
    result = await page.act("call contact 150")
    assert result.success, result.message
    assert await page.evaluate("document.activeElement.getAttribute('aria-label')") == (
        "Call contact 150"
    )
    chats = _chats(llm)
    # Shown the first rows, then one view per scroll until row 150 came into view.
    assert 3 <= len(chats) <= 12 and "Call contact 150" in chats[-1]
    assert "Call contact 150" not in chats[0]


@MODES
@pytest.mark.no_sync_twin
async def test_a_row_that_is_not_in_the_list_ends_with_vlist_not_reached(
    async_page: AsyncPage, pages_url: str, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    llm = AsyncPlanLLM([Step("click", CALL.format(9999))])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/vlist.html")
    with caplog.at_level(logging.INFO, logger="stagehand_py"), pytest.raises(ActError) as caught:
        await page.act("call contact 9999")
    error = caught.value
    assert error.code == error.result.code == "VLIST_NOT_REACHED"
    assert not error.result.actions
    details = error.details
    assert details is not None and details == error.result.details
    assert details["containerSelector"]
    located = page.locator(details["containerSelector"])
    assert await located.get_attribute("aria-label") == "All contacts"
    assert details["clientHeight"] == 600 and details["scrollHeight"] == 300_000
    assert details["ratio"] == pytest.approx(500)
    assert details["attemptCount"] == 10
    positions = details["scrollPositions"]
    assert len(positions) == 10 and positions == sorted(positions)
    assert positions[0] == pytest.approx(480, abs=2)  # 0.8 x clientHeight per scroll
    assert details["viewportMatchCounts"] == [0] * 10
    logged = [r.getMessage() for r in caplog.records if "VLIST_NOT_REACHED" in r.getMessage()]
    assert logged and all(
        key in logged[0]
        for key in (
            "containerSelector",
            "clientHeight",
            "scrollHeight",
            "ratio",
            "attemptCount",
            "scrollPositions",
            "viewportMatchCounts",
        )
    )


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_list_whose_scroll_stops_moving_ends_the_search_early(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"Entry 500 was updated")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/vlist_stuck.html")
    result = await page.act("open entry 500", raise_on_failure=False)
    assert result.code == "VLIST_NOT_REACHED"
    details = result.details
    assert details is not None and details["attemptCount"] < 10
    last = details["scrollPositions"][-3:]
    assert max(last) - min(last) < 5  # the guard: three positions that did not move
    assert len(details["viewportMatchCounts"]) == details["attemptCount"]


def _button(label: str) -> str:
    """The line of the button named ``label``, in either view."""
    return rf'^<button\b[^>]*(aria-label|name)="{label}"'


@MODES
@pytest.mark.no_sync_twin
async def test_a_list_that_runs_out_of_scrolls_hands_over_to_the_next_list(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", _button("Open message 40"))])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/two_lists.html")
    result = await page.act("open message 40")
    assert result.success, result.message
    assert await page.locator("#opened").inner_text() == "Open message 40"
    # The archive (ranked first: taller) was scrolled its 10 times, then the inbox.
    assert await page.locator("#archive").evaluate("e => e.scrollTop") == pytest.approx(2400)
    assert await page.locator("#inbox").evaluate("e => e.scrollTop") > 0
    chats = _chats(llm)
    assert 12 <= len(chats) <= 16 and "Open message 40" in chats[-1]


async def test_two_lists_searched_in_vain_report_each(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("click", _button("Open message 9999"))])
    page = AsyncStagehand(llm=llm, snapshot="aria").wrap(async_page)
    await page.goto(pages_url + "aria/two_lists.html")
    result = await page.act("open message 9999", raise_on_failure=False)
    assert result.code == "VLIST_NOT_REACHED"
    details = result.details
    assert details is not None
    archive, inbox = details["containers"]
    # The documented fields are the first list's; each searched list has its own.
    assert {k: details[k] for k in archive} == archive
    assert archive["attemptCount"] == inbox["attemptCount"] == 10
    assert await page.locator(archive["containerSelector"]).get_attribute("id") == "archive"
    assert await page.locator(inbox["containerSelector"]).get_attribute("id") == "inbox"


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_list_is_searched_after_an_action_that_showed_it(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", r"^<button\b.*Show people", completed=False),
            Step("click", _button("Call person 60")),
        ],
        verdicts=[False, True],  # not done after the first action: the list is searched
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/vlist_after.html")
    result = await page.act("show the people and call person 60")
    assert result.success, result.message
    assert await page.locator("#called").inner_text() == "Calling person 60"
    assert len(result.actions) == 2


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_list_inside_a_same_origin_iframe_is_searched(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", _button("Close ticket 40"))])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/vlist_framed.html")
    result = await page.act("close ticket 40")
    assert result.success, result.message
    frame = page.frame_locator("iframe")
    assert await frame.locator("#closed").inner_text() == "Closed ticket 40"
    assert "Close ticket 40" not in _chats(llm)[0]


@pytest.mark.no_sync_twin
async def test_a_page_without_a_scrollable_list_still_ends_all_sections_skipped(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"not on the page")])
    page = AsyncStagehand(llm=llm, snapshot="aria").wrap(async_page)
    await page.goto(pages_url + "aria/duplicates.html")
    result = await page.act("launch the rocket", raise_on_failure=False)
    assert result.code == "ALL_SECTIONS_SKIPPED" and result.details is None


# ----------------------------------------------------------------- canvases
@MODES
@pytest.mark.no_sync_twin
async def test_choosing_a_canvas_ends_at_once_with_canvas_unsupported(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r'^<canvas\b[^>]*"Seat map"')])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/canvas.html")
    result = await page.act("pick seat 3C", raise_on_failure=False)
    assert result.code == "CANVAS_UNSUPPORTED"
    assert "Seat map" in result.message and "482x202" in result.message
    assert len(_chats(llm)) == 1 and not result.actions  # no re-ask, no click
    assert await page.locator("#seat").inner_text() == "none"
    shown = '<canvas name="Seat map" size="482x202">' if mode == "aria" else 'size="482x202"'
    assert shown in _chats(llm)[0]


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_target_only_an_unnamed_canvas_holds_ends_with_canvas_unsupported(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    # The signature pad has no name and no listener: both views still list it, with its size.
    llm = AsyncPlanLLM([Step("click", r'^<canvas\b[^>]*size="302x82"')])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/canvas.html")
    result = await page.act("sign the form", raise_on_failure=False)
    assert result.code == "CANVAS_UNSUPPORTED" and "302x82" in result.message


# ----------------------------------------------------------------- shadow roots and frames
@pytest.mark.no_sync_twin
async def test_nested_shadow_root_and_same_origin_iframe_in_aria_mode(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", r'^<textbox name="Postcode', ["N1 9GU"]),
            Step("click", r"^<button\b.*Look up"),
            Step("fill", r'^<textbox name="Coupon code', ["SPRING24"]),
            Step("click", r"^<button\b.*Apply"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot="aria").wrap(async_page)
    await page.goto(pages_url + "aria/shadow_frame.html")
    snap = await page.snapshot()
    coupon = next(e for e in snap.elements if e.name == "Coupon code")
    assert coupon.ref.startswith("f1e") and coupon.frame
    result = await page.act("look up N1 9GU and apply coupon SPRING24")
    assert result.success, result.message
    assert await page.get_by_text("Found 1 address for N1 9GU").count() == 1
    frame = page.frame_locator("iframe")
    assert await frame.locator("p").inner_text() == "Applied SPRING24"
    postcode, _, code, _ = result.actions
    assert not postcode.frame and code.frame
    assert code.ladder[0].startswith("page.frame_locator(") and "get_by_role" in code.ladder[0]
    await _rungs_hold(page, postcode, "e => e.value === 'N1 9GU'")
    await _rungs_hold(page, code, "e => e.value === 'SPRING24'")


# ----------------------------------------------------------------- the aria-ref for the action
VIA_REF = "located through aria-ref"


def _ladder_spy(monkeypatch: pytest.MonkeyPatch, *, broken: bool) -> list[list[str]]:
    """Record every ladder lookup of the act; ``broken``: each one finds nothing."""
    original = act_batch_module.locate_fingerprinted
    calls: list[list[str]] = []

    async def spy(page: AsyncPage, frame: Any, selectors: Any, *args: Any, **kw: Any) -> Any:
        calls.append(list(selectors))
        if broken:
            raise ElementNotFoundError("ladder disabled by the test", list(selectors))
        return await original(page, frame, selectors, *args, **kw)

    monkeypatch.setattr(act_batch_module, "locate_fingerprinted", spy)
    return calls


@pytest.mark.parametrize(
    ("url", "step", "done"),
    [
        ("aria/roles.html", Step("check", r"^<checkbox\b.*Digest"), "input[type=checkbox]"),
        # A frame's ref (f1eN) resolves inside the frame's scope.
        ("aria/shadow_frame.html", Step("fill", r'^<textbox name="Coupon code', ["X1"]), ""),
    ],
)
@pytest.mark.no_sync_twin
async def test_a_current_snapshot_acts_through_its_aria_ref_and_records_the_ladder(
    async_page: AsyncPage,
    pages_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    url: str,
    step: Step,
    done: str,
) -> None:
    caplog.set_level(logging.DEBUG, logger="stagehand_py")
    ladder = _ladder_spy(monkeypatch, broken=True)  # only the ref can find the element
    page = AsyncStagehand(llm=AsyncPlanLLM([step]), snapshot="aria").wrap(async_page)
    await page.goto(pages_url + url)
    result = await page.act("do it")
    assert result.success, result.message
    assert not ladder and VIA_REF in caplog.text
    if done:
        assert await page.locator(done).is_checked()
    else:
        assert await page.frame_locator("iframe").get_by_label("Coupon code").input_value() == "X1"
    [action] = result.actions
    # Records and the cache keep the durable ladder, never the snapshot's ref.
    assert action.selector == action.selectors[0]
    assert not any("aria-ref" in s for s in [action.selector, *action.selectors, *action.ladder])


@pytest.mark.no_sync_twin
async def test_a_page_changed_after_the_snapshot_acts_through_the_ladder(
    async_page: AsyncPage,
    pages_url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="stagehand_py")
    original = act_module.take_snapshot

    async def changed_after_the_look(page: AsyncPage, **options: Any) -> Snapshot:
        snapshot = await original(page, **options)
        await page.evaluate("document.querySelector('output').textContent = 'edited'")
        return snapshot

    monkeypatch.setattr(act_module, "take_snapshot", changed_after_the_look)
    ladder = _ladder_spy(monkeypatch, broken=False)
    llm = AsyncPlanLLM([Step("check", r"^<checkbox\b.*Digest")])
    page = AsyncStagehand(llm=llm, snapshot="aria").wrap(async_page)
    await page.goto(pages_url + "aria/roles.html")
    result = await page.act("subscribe to the digest")
    assert result.success, result.message
    assert await page.locator("input[type=checkbox]").is_checked()
    assert ladder and VIA_REF not in caplog.text  # the ref was not trusted


# ----------------------------------------------------------------- pre-check and retry
@pytest.mark.no_sync_twin
async def test_an_element_without_a_unique_locator_is_never_offered(
    async_page: AsyncPage, pages_url: str
) -> None:
    # The tree's bare text "Trail shoes, size 42" has no element of its own: no rung at all.
    llm = AsyncPlanLLM([Step("click", r"^Trail shoes, size 42", confidence=0.8)])
    page = AsyncStagehand(llm=llm, snapshot="aria", max_reasks=1).wrap(async_page)
    await page.goto(pages_url + "aria/duplicates.html")
    snap = await page.snapshot()
    [text] = [e for e in snap.elements if e.text == "Trail shoes, size 42"]
    assert not text.selectors
    result = await page.act("click the trail shoes", raise_on_failure=False)
    assert result.code == "NO_USABLE_REPLY" and not result.actions
    assert (
        "has no locator that finds exactly it on the page, so it cannot be acted on"
        in (_chats(llm)[1])
    )
    assert result.confidence == 0.0  # each refused attempt counts 0


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_a_target_re_rendered_out_of_reach_is_retried_without_the_model(
    async_page: AsyncPage, pages_url: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = act_module.take_snapshot
    taken = [0]

    async def upgraded_after_the_first_look(page: AsyncPage, **options: Any) -> Snapshot:
        snapshot = await original(page, **options)
        taken[0] += 1
        if taken[0] == 1:  # the model is shown the plain button; then the component upgrades
            await page.evaluate("upgrade()")
        return snapshot

    monkeypatch.setattr(act_module, "take_snapshot", upgraded_after_the_first_look)
    llm = AsyncPlanLLM([Step("click", r"^<button\b.*Pay now", confidence=0.9)])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "aria/rerender.html")
    result = await page.act("pay")
    assert result.success, result.message
    assert await page.locator("#paid").inner_text() == "Paid with the upgraded button"
    assert len(_chats(llm)) == 1  # never asked again
    if mode == "dom":
        # No stored XPath reaches into the new shadow root: the pre-check failed (counted 0),
        # and the same button was found in a fresh look and clicked without a model call.
        assert result.confidence == pytest.approx(0.45)
    else:
        # The old button is gone (re-rendered): the ladder's role rung pierces the shadow root
        # and finds its one copy, the same role and name, at once.
        assert result.confidence == pytest.approx(0.9)


# ----------------------------------------------------------------- extract and the agent
class _Page(BaseModel):
    heading: str
    shop_url: str


@pytest.mark.no_sync_twin
async def test_extract_reads_the_tree_with_numbered_links(
    async_page: AsyncPage, pages_url: str
) -> None:
    sent: list[str] = []

    def structured(messages: list[Message], schema: type[BaseModel]) -> Any:
        text = messages[-1].content
        sent.append(text)
        return {"data": {"heading": "Create your account", "shop_url": 1}, "complete": True}

    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=structured)).wrap(async_page)
    await page.goto(pages_url + "form.html")
    found = await page.extract("the heading and the shop link", _Page, snapshot="aria")
    assert found.heading == "Create your account"
    assert found.shop_url == pages_url + "form.html#shop"
    assert "# Create your account" in sent[0] and "[link 1: Shop]" in sent[0]
    assert "[textbox: First name]" in sent[0] and "<input" not in sent[0]


@pytest.mark.no_sync_twin
async def test_the_agent_reads_the_tree_when_asked(async_page: AsyncPage, pages_url: str) -> None:
    plan = AgentPlan(
        [Do("fill", r'^<textbox name="First name"', text="Ada")],
        done("filled"),
    )
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.agent("type Ada as the first name", snapshot="aria", max_steps=3)
    assert result.success, result.final_text
    assert await page.locator("#first-name").input_value() == "Ada"
    assert '<combobox name="Country"' in plan.states[0]


# ----------------------------------------------------------------- the cache replays the ladder
@pytest.mark.no_sync_twin
async def test_the_cache_stores_the_ladder_and_replays_it_without_the_model(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    llm = AsyncPlanLLM([Step("fill", r'^<textbox name="Email address"', ["ada@example.com"])])
    page = AsyncStagehand(llm=llm, snapshot="aria", cache_dir=tmp_path).wrap(async_page)
    await page.goto(pages_url + "form.html")
    first = await page.act("type ada@example.com as the email")
    assert first.cache == "miss" and first.success
    [stored] = [json.loads(p.read_text()) for p in tmp_path.rglob("*.json")]
    assert stored["actions"][0]["selectors"] == first.actions[0].selectors
    assert stored["actions"][0]["selectors"][0] == 'internal:role=textbox[name="Email address"s]'
    calls = llm.calls
    await page.goto(pages_url + "form.html")
    again = await page.act("type ada@example.com as the email")
    assert again.cache == "hit" and llm.calls == calls
    assert again.actions[0].selector == 'internal:role=textbox[name="Email address"s]'
    assert await page.locator("#email").input_value() == "ada@example.com"
    # Relabelled: the role rung finds nothing now, the replay walks down the stored ladder.
    await page.goto(pages_url + "form.html")
    await page.locator("label[for=email]").evaluate("label => label.textContent = 'E-mail'")
    third = await page.act("type ada@example.com as the email")
    assert third.cache == "hit" and llm.calls == calls
    assert third.actions[0].selector == stored["actions"][0]["selectors"][1]
    assert third.actions[0].selector == 'internal:attr=[placeholder="you@example.com"s]'
    assert await page.locator("#email").input_value() == "ada@example.com"


async def test_an_unknown_snapshot_mode_is_a_configuration_error(
    async_page: AsyncPage, pages_url: str
) -> None:
    page = AsyncStagehand(llm=AsyncPlanLLM([])).wrap(async_page)
    await page.goto(pages_url + "aria/roles.html")
    calls: list[Callable[[], Any]] = [
        lambda: page.act("x", snapshot="html"),
        lambda: page.observe("x", snapshot="html"),  # type: ignore[arg-type]
        lambda: page.extract("x", snapshot="html"),  # type: ignore[call-overload]
        lambda: page.agent("x", snapshot="html"),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(ConfigurationError, match="snapshot"):
            await call()
