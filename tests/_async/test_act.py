"""act() on real Chromium with fake models, on the project's own pages."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ActError, ActTimeoutError, AsyncStagehand, PageError, Snapshot
from stagehand_py._async.browser.executor import scroll
from stagehand_py.llm._messages import ChatResponse, Message, ToolCall, ToolSpec
from stagehand_py.prompts.act import VerifyAnswer
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM, do_action
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

# Plans below find their element in either view: the DOM line (``<input id=...>``) or the
# accessibility-tree line (``<textbox name="...">``), so the same plan runs in both modes.
INPUT = r"^<(?:input|textbox)\b"
SELECT = r"^<(?:select|combobox)\b"
# Each test marked MODES runs once per snapshot mode (Stagehand(snapshot=mode)).
MODES = pytest.mark.parametrize("mode", ["dom", "aria"])


def _field(name: str) -> str:
    """A pattern for the form field whose attributes (DOM) or name (aria) mention ``name``."""
    return rf"(?i)^<(?:input\b[^>]*|(?:textbox|checkbox|searchbox)\b.*){name}"


async def _open(page: AsyncPage, url: str) -> None:
    await page.goto(url)


def _count_snapshots(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the act loop's serializations: the returned list holds the count."""
    import stagehand_py._async.act.loop as act_module

    count = [0]
    original = act_module.take_snapshot

    async def counting(page: AsyncPage, **options: Any) -> Snapshot:
        count[0] += 1
        return await original(page, **options)

    monkeypatch.setattr(act_module, "take_snapshot", counting)
    return count


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_fills_a_labelled_form_with_variables_that_never_reach_the_model(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", _field("first"), ["Ada"]),
            Step("fill", _field("email"), ["<|EMAIL|>"]),
            Step("fill", _field("password"), ["%password%"]),
            Step("fill", _field("phone"), ["<|PHONE|>"]),
            Step("select_option", SELECT, ["United Kingdom"]),
            Step("check", _field("terms")),
            Step("click", r"^<button\b[^>]*>.*Submit"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    variables = {
        "email": secret_values.EMAIL,
        "password": secret_values.PASSWORD,
        "phone": secret_values.PHONE,
    }
    result = await page.act("fill the signup form and submit it", variables=variables)

    assert result.success, result.message
    assert [a.method for a in result.actions] == [
        "fill",
        "fill",
        "fill",
        "fill",
        "select_option",
        "check",
        "click",
    ]
    summary = await page.locator("#result").inner_text()
    assert secret_values.EMAIL in summary and "Ada" in summary
    assert await page.locator("input[type=password]").input_value() == secret_values.PASSWORD
    # The model saw names only; results and history carry placeholders.
    assert "<|EMAIL|>" in llm.requests[0].text()
    outgoing = [r.text() for r in llm.requests]
    published = [result.model_dump_json(), *(r.summary() for r in page.stagehand.history)]
    for secret in secret_values.ALL:
        assert not any(secret in text for text in outgoing + published), secret
    assert result.actions[1].arguments == ["<|EMAIL|>"]
    assert result.actions[2].arguments == ["<|PASSWORD|>"] or result.actions[2].arguments == [
        "%password%"
    ]
    if mode == "aria":  # the record shows the ladder, most user-facing rung first
        assert result.actions[0].ladder[0] == (
            'page.get_by_role("textbox", name="First name", exact=True)'
        )
        assert len(result.actions[0].ladder) == len(result.actions[0].selectors)
    else:
        assert not result.actions[0].ladder


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_picks_a_radio_hidden_behind_its_styled_label(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"(?i)^<(?:input\b[^>]*radio[^>]*|radio\b.*)express")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "radios.html")
    result = await page.act("choose express shipping")
    assert result.success
    assert await page.locator("input[type=radio][value*=express i]").is_checked()


@MODES
@pytest.mark.no_sync_twin
async def test_native_select_and_custom_dropdown(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("select_option", SELECT, ["Large"], completed=False),
            Step(
                "click",
                r"(?i)^<((button|div)\b[^>]*(combobox|haspopup|dropdown)|button\b.*Choose a)",
                completed=False,
            ),
            Step("click", r"(?i)^<(div\b[^>]*option[^>]*>.*|option\b.*)Blue"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "dropdowns.html")
    result = await page.act("choose size Large and colour Blue")
    assert result.success, result.message
    assert await page.locator("#size").input_value() in {"l", "L", "large", "Large"}
    assert "blue" in (await page.locator("#custom-value").inner_text()).lower()


@MODES
@pytest.mark.no_sync_twin
async def test_acts_inside_nested_shadow_dom(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", INPUT, ["deep value"]), Step("click", r"^<button\b")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "shadow.html")
    result = await page.act("type 'deep value' in the field and press the button")
    assert result.success, result.message
    assert "deep value" in await page.locator("#shadow-result").inner_text()


@MODES
@pytest.mark.no_sync_twin
async def test_acts_inside_a_nested_iframe(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", INPUT, ["framed"]), Step("click", r"^<button\b")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "frames.html")
    result = await page.act("type 'framed' in the inner frame's field and press its button")
    assert result.success, result.message
    assert result.actions[0].frame, "the action should record its frame path"
    inner = page.frame_locator("iframe").first.frame_locator("iframe").first
    assert "framed" in await inner.locator("#frame-result").inner_text()


@MODES
@pytest.mark.no_sync_twin
async def test_finds_an_element_only_present_in_the_third_chunk(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>.*Load more reviews")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "long.html")
    result = await page.act("load more reviews")
    assert result.success, result.message
    assert result.chunks_seen[:3] == [0, 1, 2]
    skips = [r for r in llm.requests if r.kind == "chat"][:2]
    assert all("Section" in r.text() for r in skips)
    assert await page.locator("#long-result").inner_text() != ""


@MODES
@pytest.mark.no_sync_twin
async def test_skipping_every_section_fails_clearly(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"a button that is not there")])
    page = AsyncStagehand(llm=llm, max_section_chars=0, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "long.html")
    snapshot = await page.snapshot()
    serialized = _count_snapshots(monkeypatch)
    with pytest.raises(ActError) as caught:
        await page.act("press the rocket launch button")
    result = caught.value.result
    assert not result.success and "skipped all" in result.message
    assert caught.value.code == result.code == "ALL_SECTIONS_SKIPPED"
    assert sorted(result.chunks_seen) == sorted(c.index for c in snapshot.chunks)
    assert llm.calls == len(snapshot.chunks)  # max_section_chars=0: one chunk per prompt
    # The page did not change while the model skipped: one serialization served every chunk.
    assert serialized == [1]


@MODES
@pytest.mark.no_sync_twin
async def test_dismisses_the_cookie_banner_first(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", r"^<button\b[^>]*>.*Accept all", completed=False),
            Step("click", r"^<button\b[^>]*>.*Subscribe"),
        ]
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "cookie.html")
    before = await page.snapshot()
    if mode == "dom":  # the tree lists a covered button too; the click waits for the banner
        assert "Subscribe" not in before.render_all(), "the banner should cover Subscribe at first"
    result = await page.act("subscribe to the newsletter")
    assert result.success, result.message
    assert [a.method for a in result.actions] == ["click", "click"]


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_follows_a_link_that_opens_a_new_tab(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"^<(a|link)\b")])
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "new_tab.html")
    result = await page.act("open the link")
    assert result.success, result.message
    assert result.opened_pages and result.opened_pages[0].endswith("new_tab_target.html")
    assert result.page is not None and await result.page.title() == "Opened tab"
    assert await result.page.snapshot() is not None  # the new tab is wrapped too


@MODES
@pytest.mark.no_sync_twin
async def test_verify_says_not_yet_then_done(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("click", r"^<button\b[^>]*>.*Next", completed=True),
            Step("fill", INPUT, ["finished"], completed=False),
            Step("click", r"^<button\b[^>]*>.*Finish", completed=True),
        ],
        verdicts=[False, True],
    )
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "changes.html")
    result = await page.act("go through both steps")
    assert result.success, result.message
    assert [v.completed for v in result.verifications] == [False, True]
    assert len(result.actions) == 3
    verify_requests = [r for r in llm.requests if r.kind == "structured"]
    assert "Finish" in verify_requests[0].text()  # a fresh snapshot after the click


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_max_steps_stops_the_loop(async_page: AsyncPage, pages_url: str, mode: str) -> None:
    llm = AsyncPlanLLM(
        [Step("fill", _field("first"), ["A"]), Step("fill", _field("last"), ["B"])] * 3,
        complete_on_last=False,
    )
    page = AsyncStagehand(llm=llm, max_steps=2, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act("keep typing", raise_on_failure=False)
    assert not result.success and "max_steps=2" in result.message
    assert result.code == "MAX_STEPS"
    assert len(result.actions) == 2


class _SlowPlanLLM(AsyncPlanLLM):
    delay_s = 0.25

    async def chat(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        await asyncio.sleep(self.delay_s)
        return await super().chat(*args, **kwargs)


@MODES
async def test_timeout_stops_the_loop_within_a_second(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = _SlowPlanLLM([Step("click", r"never matches")])
    page = AsyncStagehand(llm=llm, timeout_s=1.0, max_section_chars=0, snapshot=mode).wrap(
        async_page
    )
    await page.goto(pages_url + "long.html")
    started = time.monotonic()
    with pytest.raises(ActTimeoutError) as caught:
        await page.act("find the hidden treasure")
    assert time.monotonic() - started < 2.0
    assert caught.value.result.timed_out
    assert caught.value.code == "TIMEOUT"


async def test_a_model_that_hangs_is_cut_off_at_the_deadline(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _SlowPlanLLM([Step("click", r"^<button\b")])
    llm.delay_s = 30
    page = AsyncStagehand(llm=llm, timeout_s=2.0).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    started = time.monotonic()
    result = await page.act("click", raise_on_failure=False)
    assert time.monotonic() - started < 3.0
    assert result.timed_out and not result.success
    # The model used the time up: the message says so and names the model-side fixes.
    assert "while waiting for the model" in result.message and "max_tokens" in result.message


async def test_a_page_that_uses_the_time_up_is_named_as_the_slow_part(
    async_page: AsyncPage, pages_url: str
) -> None:
    """Playwright waits for a button that never stops moving to be stable, to the deadline."""
    llm = AsyncPlanLLM([Step("click", r"^<button\b")])
    page = AsyncStagehand(llm=llm, timeout_s=1.0).wrap(async_page)
    await page.goto(pages_url + "loop/wobble.html")
    started = time.monotonic()
    result = await page.act("claim the voucher", raise_on_failure=False)
    assert time.monotonic() - started < 2.0
    assert result.code == "TIMEOUT" and llm.calls == 1 and not result.actions
    assert "while working on the page" in result.message
    assert "settle_timeout_ms" in result.message and "max_tokens" not in result.message


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=f"bad_{name}", name=name, arguments=arguments)


@pytest.mark.parametrize(
    "bad_reply",
    [
        ChatResponse(text="Sure! I'd click the button."),
        _call("runScript", code="document.body.remove()"),
        _call(
            "doAction", method="evaluate", element=0, args=["1"], step="", why="", completed=True
        ),
        _call("doAction", method="click", element=9999, args=[], step="", why="", completed=True),
        _call("doAction", method="fill", element=0, args=[], step="", why="", completed=True),
        ToolCall(id="bad_json", name="doAction", raw_arguments="{oops", arguments_error="bad"),
        _call(
            "doAction", method="fill", element=0, args=["<|NOPE|>"], step="", why="", completed=True
        ),
    ],
    ids=[
        "no-tool",
        "unknown-tool",
        "evaluate",
        "unknown-element",
        "missing-arg",
        "bad-json",
        "var",
    ],
)
@pytest.mark.no_sync_twin(keep=["var"])
async def test_malformed_replies_are_fed_back_then_the_act_goes_on(
    async_page: AsyncPage, pages_url: str, bad_reply: ChatResponse | ToolCall
) -> None:
    llm = AsyncPlanLLM([Step("fill", _field("first"), ["Grace"])])
    llm.extra = [bad_reply]
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "form.html")
    result = await page.act("type Grace as the first name")
    assert result.success, result.message
    second = llm.requests[1].messages
    assert second[-1].role in {"tool", "user"}
    if second[-1].role == "tool":
        assert second[-1].is_error
    assert await page.locator("input").first.input_value() == "Grace"


@pytest.mark.no_sync_twin
async def test_a_model_that_keeps_answering_badly_fails_clearly(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", _field("first"), ["x"])])
    llm.extra = [_call("doAction", method="eval", element=0, args=[], step="", why="", completed=1)]
    llm.extra *= 3
    page = AsyncStagehand(llm=llm, max_reasks=2).wrap(async_page)
    await page.goto(pages_url + "form.html")
    with pytest.raises(ActError, match="no usable action after 3 tries") as caught:
        await page.act("type x")
    assert "not allowed" in str(caught.value)
    assert caught.value.code == "NO_USABLE_REPLY"
    assert llm.calls == 3


def _obey_the_page(messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
    """A gullible model: does whatever the page text tells it to, tool name included."""
    seen = "\n".join(m.content for m in messages)
    method = re.search(r'method "(\w+)" and args \["([^"]*)"\]', seen)
    script = re.search(r'runScript with code "([^"]*)"', seen)
    assert method and script, "the page's text should have reached the model"
    if sum(m.role == "tool" for m in messages) % 2 == 0:
        return _call(
            "doAction",
            method=method.group(1),
            element=0,
            args=[method.group(2)],
            step="as the page said",
            why="the page said so",
            completed=True,
        )
    return _call("runScript", code=script.group(1))


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_page_text_cannot_make_the_model_run_anything_off_the_allow_list(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = AsyncFunctionLLM(chat=_obey_the_page)
    page = AsyncStagehand(llm=llm, max_reasks=3, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "injection.html")
    with pytest.raises(ActError) as caught:
        await page.act("add the shoe to the cart")
    assert "no usable action after 4 tries" in str(caught.value)
    # The first answer and three re-asks, each refused. In aria mode the third refusal in a
    # row switches to the DOM view (emergency mode), where four more are refused.
    assert llm.calls == (4 if mode == "dom" else 3 + 4)
    # Nothing the page asked for ran: no script, no title change, the cart untouched.
    assert await page.title() == "Trail Runner 3 - reviews"
    assert await page.evaluate("window.pwned") is None
    assert await page.locator("#cart-status").text_content() == ""
    # Each refusal went back to the model as an error naming what is allowed.
    errors = [m.content for m in llm.requests[-1].messages if m.role == "tool" and m.is_error]
    assert errors[0].startswith("Method 'evaluate' is not allowed. Use one of: click")
    assert errors[1].startswith("Unknown tool 'runScript'. The only tools are doAction,")
    assert len(errors) == 3


async def test_scroll_moves_the_page_and_an_inner_scroller(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "long.html")
    snapshot = await page.snapshot()
    first = snapshot.elements[0].index
    llm.queue(do_action("scroll", first, ["bottom"], completed=True), VerifyAnswer(completed=True))
    result = await page.act("scroll to the end of the page")
    assert result.success, result.message
    assert await page.evaluate("window.scrollY") > 0
    assert [r.options.kind for r in llm.requests] == ["act", "verify"]
    assert all(r.options.timeout_s is not None for r in llm.requests)

    await page.goto(pages_url + "scroll_div.html")
    inner = page.locator("#main-scroll")
    await scroll(inner, "down")
    assert await inner.evaluate("el => el.scrollTop") > 0
    assert await page.evaluate("window.scrollY") == 0
    moved = await scroll(inner, "top")
    assert moved.after == 0 and moved.before > 0 and not moved.page
    with pytest.raises(PageError, match="Cannot scroll 'sideways'"):
        await scroll(inner, "sideways")


@MODES
@pytest.mark.no_sync_twin
async def test_a_disabled_control_the_model_picks_is_refused_with_the_reason(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    # disabled.html: "Delete account" is a disabled button; "Continue" is enabled. A model
    # that picks the disabled one is told why and picks again; nothing waits on the button.
    def chat(messages: list[Message], tools: list[ToolSpec], context: Any) -> ToolCall:
        if context.attempt == 1:  # shown, but not among the elements offered
            elements = context.snapshot.elements
            [disabled] = [e for e in elements if "Delete account" in e.text + e.name]
            return do_action("click", disabled.index, completed=True)
        return do_action("click", context.find("Continue", exact=True), completed=True)

    llm = AsyncFunctionLLM(chat=chat, structured=lambda m, s: VerifyAnswer(completed=True))
    page = AsyncStagehand(llm=llm, snapshot=mode).wrap(async_page)
    await page.goto(pages_url + "disabled.html")
    started = time.monotonic()
    result = await page.act("continue", timeout_s=20)
    assert result.success, result.message
    assert await page.locator("#disabled-result").text_content() == "Continued"
    assert [a.element for a in result.actions] != []
    assert len(result.actions) == 1
    assert time.monotonic() - started < 10  # refused at once, not after a click timeout
    reask = [m.content for m in llm.requests[1].messages if m.role == "tool" and m.is_error]
    assert reask and "is disabled, so it cannot be acted on" in reask[0]
