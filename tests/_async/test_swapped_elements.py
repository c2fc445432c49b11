"""The page changes while the model thinks: act() and the agent act only on the element the
model saw, in both views (tests/pages/swap/account.html; the change lands between the look and
the action on a cue the fake model gives, never by timing).

- Element swaps: "Delete account" moves to where "Go" stood, a public comment box to where
  the e-mail field stood (swapped, or a second one inserted). The element found again must
  carry the fingerprint of the one seen.
- A label moves (the accessibility-tree view): the "Go" label lands on a button that deletes
  the account. The element found again must be the very node the tree showed, not only one
  with the same role and name.
- The page leaves for another site (a meta refresh, a script): with ``allowed_domains``,
  nothing runs there; the agent goes back.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py._async.browser import tracing
from stagehand_py.agent import AgentControls
from stagehand_py.llm import Message, ToolSpec
from stagehand_py.testing import AsyncFunctionLLM, RequestContext, do_action, skip_section
from tests import secret_values
from tests.agent_plan import AgentPlan, Do, answer, done
from tests.page_cue import PageCue, page_cue

MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
GO = r"^<button\b[^>]*>Go(<|$)"
EMAIL = r'^<(input|textbox)\b[^>]*(name="email"|Email for receipts)'
UNTOUCHED = "Nothing done yet."


def _cued(cue: PageCue, *actions: Do) -> Callable[[str], dict[str, Any]]:
    """A planned step that lets the page change while it is being answered."""

    def step(state: str) -> dict[str, Any]:
        chosen = [action.resolve(state) for action in actions]  # from the look, as a model
        cue.give()
        return answer(*chosen)

    return step


def _shown(states: list[str], site: str) -> list[str]:
    """The states whose current tab is on ``site``."""
    return [s for s in states if re.search(r"^Current tab: .* - " + re.escape(site), s, re.M)]


def _gave_up(state: str) -> dict[str, Any]:
    return done("the page changed under me", success=False)


async def _agent_on_a_changing_page(
    async_page: AsyncPage, pages_url: str, mode: str, change: str, *actions: Do
) -> tuple[Any, AsyncPage]:
    with page_cue() as cue:
        plan = AgentPlan(_cued(cue, *actions), _gave_up)
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
        await page.goto(cue.page_url(pages_url + "swap/account.html", change=change))
        result = await page.agent(
            "Save the e-mail or go on.",
            variables={"email": secret_values.EMAIL},
            snapshot=mode,  # type: ignore[arg-type]
        )
    return result, page


@MODES
@pytest.mark.parametrize("change", ["button-swap", "button-insert"])
@pytest.mark.no_sync_twin
async def test_the_agent_clicks_the_button_it_saw_after_a_swap(
    async_page: AsyncPage, pages_url: str, mode: str, change: str
) -> None:
    result, page = await _agent_on_a_changing_page(
        async_page, pages_url, mode, change, Do("click", GO)
    )
    assert await page.locator("#status").inner_text() == "WENT ON", result.summary()
    [clicked] = result.steps[0].results
    assert clicked.status == "ok", clicked.line()


@MODES
@pytest.mark.parametrize("change", ["field-swap", "field-insert"])
@pytest.mark.no_sync_twin
async def test_the_agent_types_the_email_into_the_field_it_saw_after_a_swap(
    async_page: AsyncPage, pages_url: str, mode: str, change: str
) -> None:
    result, page = await _agent_on_a_changing_page(
        async_page, pages_url, mode, change, Do("fill", EMAIL, text="<|EMAIL|>")
    )
    assert await page.locator("input[name=email]").input_value() == secret_values.EMAIL
    for box in await page.locator("input[name=comment]").all():
        assert await box.input_value() == "", result.summary()
    assert await page.locator("#status").inner_text() == UNTOUCHED
    [filled] = result.steps[0].results
    assert filled.status == "ok", filled.line()


@pytest.mark.parametrize("change", ["label-swap", "label-insert"])
@pytest.mark.no_sync_twin(keep=["label-insert"])
async def test_the_agent_never_follows_a_label_that_moved_to_another_node(
    async_page: AsyncPage, pages_url: str, change: str
) -> None:
    result, page = await _agent_on_a_changing_page(
        async_page, pages_url, "aria", change, Do("click", GO)
    )
    assert await page.locator("#status").inner_text() == UNTOUCHED, result.summary()
    [refused] = result.steps[0].results
    assert refused.status == "error" and refused.error is not None
    assert "changed since you saw it" in refused.error
    assert (result.reason, len(result.steps)) == ("failed", 2)  # the model looked again


def _click_go_once(cue: PageCue) -> Callable[..., Any]:
    """act's model: clicks "Go" in the look it is shown, while the page moves the label;
    asked again, it finds nothing it wants in what it was shown."""

    def chat(messages: list[Message], tools: list[ToolSpec], context: RequestContext) -> Any:
        if cue.given.is_set():
            return skip_section("the page changed")
        go = context.find("Go", exact=True)
        cue.give()
        return do_action("click", go, step="click Go", completed=True)

    return chat


@pytest.mark.parametrize("change", ["label-swap", "label-insert"])
@pytest.mark.no_sync_twin
async def test_act_never_follows_a_label_that_moved_while_the_model_thought(
    async_page: AsyncPage, pages_url: str, change: str
) -> None:
    with page_cue() as cue:
        llm = AsyncFunctionLLM(chat=_click_go_once(cue))
        page = AsyncStagehand(llm=llm, snapshot="aria").wrap(async_page)
        await page.goto(cue.page_url(pages_url + "swap/account.html", change=change))
        result = await page.act("click Go", raise_on_failure=False)

    assert await page.locator("#status").inner_text() == UNTOUCHED, result.message
    assert not result.success and not result.actions
    reasked = [r.text() for r in llm.requests if r.kind == "chat"][1]
    assert "changed since you saw it" in reasked


@pytest.mark.parametrize("how", ["meta", "script"])
# The check must not lean on the trace group opened around each action: it holds when the
# group's answer is not waited for too.
@pytest.mark.parametrize("group_wait_s", [0.1, 0.0], ids=["group-awaited", "group-not-awaited"])
@pytest.mark.no_sync_twin(keep=["group-awaited-meta"])
async def test_a_redirect_that_lands_while_the_model_thinks_gets_no_action(
    async_page: AsyncPage,
    pages_url: str,
    other_origin_url: str,
    how: str,
    group_wait_s: float,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tracing, "GROUP_WAIT_S", group_wait_s)
    with page_cue() as cue:
        elsewhere = cue.page_url(other_origin_url + "swap/elsewhere.html")
        plan = AgentPlan(_cued(cue, Do("click", GO)), done("stayed on the shop"))
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
        await page.goto(cue.page_url(pages_url + "swap/leaving.html", how=how, to=elsewhere))
        start = page.url
        shop = urlsplit(pages_url).netloc
        result = await page.agent("Go on.", allowed_domains=[shop])

    assert "/done" in cue.paths  # the other site was reached while the model thought...
    assert "/clicked-go" not in cue.paths  # ...and nothing ran there
    [refused] = result.steps[0].results
    assert refused.status == "error" and refused.error is not None
    assert refused.error.endswith(
        "outside allowed_domains, before this action could run; went back"
    )
    assert result.success, result.summary()
    assert page.url == start and all(step.url == start for step in result.steps)
    assert not _shown(plan.states, other_origin_url)  # the model never saw that site


def _driver_lags(async_page: AsyncPage, monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Once called, Playwright reports the page's URL as it was then, until the page goes
    back: the state of a driver that has not yet processed the event of a navigation that
    committed (seen on a loaded machine, where that event came after the new document had
    loaded). By the time the page goes back, the driver has caught up."""
    main = async_page.main_frame._impl_obj
    frame_class = type(main)
    real = frame_class.url
    held: list[str] = []

    def url(frame: Any) -> str:
        return held[0] if held and frame is main else str(real.fget(frame))

    page_class = type(async_page._impl_obj)
    go_back = page_class.go_back

    async def caught_up(page: Any, *args: Any, **options: Any) -> Any:
        held.clear()
        return await go_back(page, *args, **options)

    monkeypatch.setattr(frame_class, "url", property(url))
    monkeypatch.setattr(page_class, "go_back", caught_up)
    return lambda: held.append(str(real.fget(main)))


@pytest.mark.parametrize("how", ["meta", "script"])
@pytest.mark.no_sync_twin(keep=["meta"])
async def test_a_redirect_the_driver_has_not_reported_yet_gets_no_action(
    async_page: AsyncPage,
    pages_url: str,
    other_origin_url: str,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The model answers once the other site has loaded, but Playwright still reports the shop:
    # the page itself, asked where it is right before the action, says otherwise.
    lag = _driver_lags(async_page, monkeypatch)
    with page_cue() as cue:
        elsewhere = cue.page_url(other_origin_url + "swap/elsewhere.html")
        cued = _cued(cue, Do("click", GO))

        def step(state: str) -> dict[str, Any]:
            lag()  # from the look the model answers: the URL it had then
            return cued(state)

        plan = AgentPlan(step, done("stayed on the shop"))
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
        await page.goto(cue.page_url(pages_url + "swap/leaving.html", how=how, to=elsewhere))
        start = page.url
        result = await page.agent("Go on.", allowed_domains=[urlsplit(pages_url).netloc])

    assert "/done" in cue.paths and "/clicked-go" not in cue.paths, result.summary()
    [refused] = result.steps[0].results
    assert refused.error is not None and refused.error.endswith(
        "outside allowed_domains, before this action could run; went back"
    )
    assert result.success, result.summary()
    assert page.url == start
    assert await page.locator("#status").inner_text() == ""  # the shop's Go was not run either


class _PauseAfter(logging.Handler):
    """Pauses the run when a log line containing ``when`` is emitted."""

    def __init__(self, when: str, controls: AgentControls) -> None:
        super().__init__(logging.INFO)
        self.when, self.controls = when, controls

    def emit(self, record: logging.LogRecord) -> None:
        if self.when in record.getMessage():
            self.controls.pause()


async def test_a_page_that_left_between_two_steps_is_never_shown_or_acted_on(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    # The run is held between its first and second step while the page leaves: the second
    # step's look finds it on the other site.
    controls = AgentControls()
    watch = _PauseAfter("agent step 1 action 1/1", controls)
    with page_cue() as cue:

        def leave_while_held() -> None:
            if controls.wait_until_holding(timeout=20):
                cue.give()
            controls.resume()

        elsewhere = cue.page_url(other_origin_url + "swap/elsewhere.html")
        plan = AgentPlan([Do("click", GO)], [Do("click", GO)], done("stayed on the shop"))
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
        await page.goto(cue.page_url(pages_url + "swap/leaving.html", how="script", to=elsewhere))
        start = page.url
        logger = logging.getLogger("stagehand_py")
        logger.addHandler(watch)
        controller = threading.Thread(target=leave_while_held)
        controller.start()
        try:
            result = await page.agent(
                "Go on.", allowed_domains=[urlsplit(pages_url).netloc], controls=controls
            )
        finally:
            logger.removeHandler(watch)
            controls.resume()
            controller.join(10)

    assert "/done" in cue.paths and "/clicked-go" not in cue.paths, result.summary()
    assert not _shown(plan.states, other_origin_url)
    assert result.success, result.summary()
    assert result.steps[1].error is not None
    assert result.steps[1].error.endswith("outside allowed_domains; went back")
    assert page.url == start
