"""page.agent() on real Chromium with a plan-following fake model, on the tiny shop in
tests/pages/agent/: a task across pages and tabs, batching, errors and recovery, the ways a
run ends, downloads and the token budget."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage, PriceTable
from stagehand_py.llm import ChatResponse, Message, RequestOptions, ToolSpec
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_plan import AgentPlan, Do, answer, done
from tests.site_server import Route, site_server

SEARCH_BOX = r"^<input[^>]*search"


async def shop(
    async_page: AsyncPage, pages_url: str, llm: Any, path: str = "index.html"
) -> AsyncStagehandPage:
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "agent/" + path)
    return page


TOTAL = {"type": "object", "properties": {"total": {"type": "string"}}, "required": ["total"]}


def read_total(page_text: str) -> dict[str, Any]:
    """The extract answer a model would give from the cart's page text."""
    found = re.search(r"Total: ([\d.]+ EUR)", page_text)
    return {"total": found.group(1) if found else "not shown"}


def report_memory(state: str) -> dict[str, Any]:
    """Finish with what the extract action left in memory."""
    found = re.search(r"^- step \d+, extract 'the cart total': (.*)$", state, re.MULTILINE)
    return done("The cart total is read.", data=json.loads(found.group(1)) if found else None)


async def test_a_task_across_three_pages_and_a_new_tab(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        [Do("fill", SEARCH_BOX, text="lamp"), Do("click", r"^<button[^>]*>Search")],
        [Do("click", r"^<button[^>]*>Search")],
        [Do("click", r"Paper lantern lamp")],
        [Do("click", r"Add to cart"), Do("click", r"View cart")],
        [Do("click", r"Shipping help")],
        [Do("switch_tab", tab=0)],
        [Do("extract", instruction="the cart total", schema=TOTAL)],
        report_memory,
        extract=read_total,
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm)
    result = await page.agent("Put the cheapest lamp in the cart and tell me the total.")

    assert (result.success, result.reason) == (True, "done"), result.summary()
    assert result.data == {"total": "24.50 EUR"}
    paths = [s.url.rsplit("/", 1)[-1] for s in result.steps]
    assert paths == [
        "index.html",
        "index.html",
        "results.html?q=lamp",
        "product.html?id=paper",
        "cart.html",
        "help.html",  # the new tab, followed
        "cart.html",  # back through switch_tab
        "cart.html",
    ]
    assert [t.url.rsplit("/", 1)[-1] for t in result.steps[5].tabs] == ["cart.html", "help.html"]
    # Typing opened suggestions: the rest of the first batch waited for a fresh look.
    first = result.steps[0].results
    assert [r.status for r in first] == ["ok", "not_run"]
    assert first[1].note == "4 new element(s) appeared: look at them first"
    assert "Suggestion: Paper lantern lamp" in plan.states[1]
    assert [r.status for r in result.steps[3].results] == ["ok", "ok"]
    assert isinstance(result.page, AsyncStagehandPage) and result.page.url.endswith("cart.html")
    assert result.steps[6].results[0].extracted == {"total": "24.50 EUR"}
    # One structured request per step (and one for the extract), each told the time it has.
    assert [r.options.kind for r in llm.requests] == ["agent"] * 7 + ["extract", "agent"]
    assert all(0 < (r.options.timeout_s or 0) <= 90 for r in llm.requests)
    assert "Results of step 4:" in plan.states[4] and "View cart" in plan.states[4]
    record = page.stagehand.history[-1]
    assert record.kind == "agent" and record.success and len(record.actions) == 10
    assert page.stagehand.usage.calls("agent") == 1


async def test_three_fills_in_one_step_and_a_batch_stopped_by_navigation(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        [Do("click", r"^<a[^>]*>Checkout"), Do("fill", SEARCH_BOX, text="never typed")],
        [
            Do("fill", r'name="name"', text="Ada Lovelace"),
            Do("fill", r'name="email"', text="ada@example.org"),
            Do("fill", r'name="address"', text="12 Harbour Street"),
        ],
        done("filled"),
    )
    page = await shop(async_page, pages_url, AsyncFunctionLLM(structured=plan))
    result = await page.agent("Fill the checkout form.")

    assert result.success, result.summary()
    navigated = result.steps[0].results
    assert [r.status for r in navigated] == ["ok", "not_run"]
    assert navigated[1].note.startswith("the page changed to ")
    assert navigated[1].note.endswith("checkout.html: look at it first")
    assert [r.status for r in result.steps[1].results] == ["ok", "ok", "ok"]
    assert await page.locator("#name").input_value() == "Ada Lovelace"
    assert await page.locator("#email").input_value() == "ada@example.org"
    assert await page.locator("#address").input_value() == "12 Harbour Street"
    assert len(result.steps) == 3


@pytest.mark.no_sync_twin
async def test_an_action_error_is_fed_back_and_the_run_recovers(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        [Do("fill", r"Pay now", text="24.50")],  # a button cannot be filled
        [Do("click", r"Pay now")],
        done("paid"),
    )
    page = await shop(async_page, pages_url, AsyncFunctionLLM(structured=plan), "cart.html")
    result = await page.agent("Pay for the cart.", max_failures=2)

    assert result.reason == "done", result.summary()
    [failed] = result.steps[0].results
    assert failed.status == "error" and "fill on" in (failed.error or "")
    assert result.steps[0].failed and not result.steps[1].failed
    assert "-> error: fill on" in plan.states[1]  # the model reads what went wrong
    assert "Payment received" in await page.locator("#paid").inner_text()


@pytest.mark.no_sync_twin
async def test_three_failures_in_a_row_force_a_final_summary(
    async_page: AsyncPage, pages_url: str
) -> None:
    wrong = [Do("fill", r"Pay now", text="x")]
    plan = AgentPlan(wrong, wrong, wrong, wrong, summary="Could not pay: the button takes no text.")
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm, "cart.html")
    result = await page.agent("Pay for the cart.")

    assert (result.success, result.reason) == (False, "max_failures")
    assert result.final_text == "Could not pay: the button takes no text."
    assert [s.failed for s in result.steps] == [True, True, True, False]
    assert result.steps[-1].summary and plan.summaries == 1
    assert "Too many steps in a row have failed" in llm.requests[-1].messages[-1].content
    assert llm.requests[-1].schema_name == "FinalSummary"
    assert "Payment received" not in await page.locator("#paid").inner_text()


@pytest.mark.no_sync_twin
async def test_max_steps_forces_the_same_summary(async_page: AsyncPage, pages_url: str) -> None:
    scroll = [Do("scroll", direction="down")]
    plan = AgentPlan(scroll, scroll, scroll, summary="Scrolled twice, found the footer.")
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm)
    result = await page.agent("Read the footer.", max_steps=2, max_elements=4)

    assert (result.success, result.reason) == (False, "max_steps")
    assert result.final_text == "Scrolled twice, found the footer."
    assert [s.summary for s in result.steps] == [False, False, True]
    assert result.steps[0].results[0].note.startswith("moved +")
    assert "0 pixels above" in plan.states[0] and "0 pixels above" not in plan.states[1]
    listed = plan.states[0].split("Elements in view:\n")[1].splitlines()
    assert re.fullmatch(r"\(\+\d+ more elements in view not listed: max_elements\)", listed[4])
    assert all(re.match(r"\d+:", line) for line in listed[:4])
    assert "The step limit is reached (2 steps)." in llm.requests[-1].messages[-1].content
    assert len(llm.requests) == 3  # two steps and the summary: never a third step


class AsyncHungLLM:
    """Never answers until released (a model that hangs)."""

    model = "hung"

    def __init__(self) -> None:
        self.options: list[RequestOptions | None] = []
        self.release = threading.Event()

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        raise AssertionError("the agent makes structured requests only")

    async def structured(
        self, messages: Any, schema: Any, *, max_retries: int = 2, options: Any = None
    ) -> Any:
        self.options.append(options)
        while not self.release.is_set():
            await asyncio.sleep(0.05)
        raise AssertionError("released after the run ended")


async def test_timeout_s_ends_a_run_whose_model_hangs(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncHungLLM()
    page = await shop(async_page, pages_url, llm)
    started = time.monotonic()
    try:
        result = await page.agent("Find a lamp.", timeout_s=2)
    finally:
        llm.release.set()
    assert time.monotonic() - started < 2 + 1
    assert (result.success, result.reason) == (False, "timeout")
    assert "timeout_s=2 s" in result.final_text
    assert len(result.steps) == 1 and result.steps[0].error
    [options] = llm.options
    assert options.kind == "agent" and 0 < options.timeout_s <= 2


@pytest.mark.no_sync_twin
async def test_invalid_answers_are_re_asked_with_what_was_wrong(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        answer({"action": "done", "text": "x"}, {"action": "click", "index": 1}),  # invalid
        answer({"action": "click", "index": 999}),  # valid JSON, not an element shown
        [Do("click", r"All lamps")],
        done("listed"),
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm)
    result = await page.agent("List the lamps.")

    assert result.reason == "done", result.summary()
    first_step = [r.text() for r in llm.requests[:3]]
    assert "'done' must be the only action of its answer" in first_step[1]
    assert "element 999 is not in the current state" in first_step[2]
    assert result.steps[0].results[0].url.endswith("results.html?q=lamp")
    assert len(result.steps) == 2 and result.steps[0].model_requests == 3


@pytest.mark.no_sync_twin
async def test_a_download_is_saved_and_listed_in_the_next_state(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    plan = AgentPlan([Do("click", r"Download the price list")], done("downloaded"))
    page = await shop(async_page, pages_url, AsyncFunctionLLM(structured=plan))
    result = await page.agent("Get the price list.", downloads_dir=str(tmp_path))

    assert result.success, result.summary()
    [saved] = result.downloads
    assert Path(saved) == tmp_path / "prices.csv"
    assert "Paper lantern lamp,24.50" in Path(saved).read_text()
    assert result.steps[0].downloads == [saved]
    assert f"Files downloaded since the last step: {saved}" in plan.states[1]


async def test_a_download_the_server_starts_late_is_waited_for_and_saved(
    async_page: AsyncPage, tmp_path: Path
) -> None:
    # The click on an <a download> link returns at once; the browser starts the download
    # only when the server answers, here after the run's last step would already be over.
    page_html = b'<!doctype html><title>Prices</title><a href="/prices.csv" download>Prices</a>'
    plan = AgentPlan([Do("click", r"^<(a\b[^>]*|link)>Prices")], done("downloaded"))
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    with site_server() as site:
        site.routes["/"] = Route(page_html, content_type="text/html")
        site.routes["/prices.csv"] = Route(b"lamp,24.50\n", content_type="text/csv", delay_s=1.5)
        await page.goto(site.url + "/")
        result = await page.agent("Get the price list.", downloads_dir=str(tmp_path))

    assert result.success, result.summary()
    assert result.steps[0].downloads == result.downloads == [str(tmp_path / "prices.csv")]
    assert (tmp_path / "prices.csv").read_text() == "lamp,24.50\n"


@pytest.mark.no_sync_twin
async def test_the_token_budget_cuts_old_history_but_never_system_or_task(
    async_page: AsyncPage, pages_url: str
) -> None:
    scroll = [Do("scroll", direction="down", pages=0.3)]
    notes = "Seen so far: the header, the search form, the promotion. " * 16  # ~240 tokens
    plan = AgentPlan(scroll, scroll, scroll, scroll, done("read it all"), memory=notes)
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm)
    task = "Scroll to the bottom of the home page."
    result = await page.agent(task, max_input_tokens=1800, max_history_items=1)

    assert result.success, result.summary()
    assert [s.cuts for s in result.steps[:4]] == [[], [], [], []]  # within budget until then
    last = result.steps[-1]
    assert last.cuts == ["history of steps 1-3"]
    assert last.prompt_tokens <= 1800
    sent = llm.requests[-1].messages
    assert sent[0].role == "system" and sent[0].content.startswith("You are a browser agent")
    assert sent[1].content == f"Your task:\n{task}"
    text = "\n".join(m.content for m in sent)
    assert "[3 earlier step(s) (steps 1-3) omitted to fit the token budget]" in text
    assert "Step 4 at " in text and "Step 1 at " not in text
    assert result.conversation[-1]["kind"] == "state"


async def test_allowed_domains_keep_the_agent_on_the_site(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    partner = other_origin_url + "agent/help.html"
    plan = AgentPlan(
        answer({"action": "navigate", "url": partner}),  # refused before it runs: re-asked
        [Do("click", r"Partner offers")],  # a link of the page itself: undone
        [Do("click", r"Partner catalogue")],  # the same in a new tab: closed
        done("stayed on the shop"),
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm, "partner.html?to=" + quote(partner, safe=""))
    start = page.url
    result = await page.agent("Look at the partners.", allowed_domains=[urlsplit(pages_url).netloc])

    assert result.success, result.summary()
    assert "is not in allowed_domains" in llm.requests[1].messages[-1].content
    same_tab, new_tab = result.steps[0].results[0], result.steps[1].results[0]
    assert same_tab.status == "error" and same_tab.error is not None
    assert same_tab.error.endswith("which is outside allowed_domains; went back")
    assert new_tab.error is not None and new_tab.error.endswith("closed the tab it opened")
    assert page.url == start and len(page.context.pages) == 1
    assert all(step.url == start for step in result.steps)


async def test_the_rest_of_the_action_set_runs_on_the_page_with_timed_and_priced_steps(
    async_page: AsyncPage, pages_url: str
) -> None:
    # type, press, go_back, close_tab and uncheck, each on the real page; every step timed
    # per phase and priced with the user's PriceTable.
    plan = AgentPlan(
        [Do("type", SEARCH_BOX, text="vase")],
        [Do("press", SEARCH_BOX, key="Enter")],
        [Do("go_back")],
        [Do("click", r"^<a[^>]*>Shipping help")],
        [Do("close_tab", tab=1)],
        [Do("click", r"^<a[^>]*>Checkout")],
        [Do("uncheck", r"(?i)newsletter")],
        done("Searched, came back, closed the help tab and opted out of the newsletter."),
    )
    llm = AsyncFunctionLLM(structured=plan)
    prices = PriceTable.of({"function": {"input": 2.0, "output": 8.0}})
    page = AsyncStagehand(llm=llm, prices=prices).wrap(async_page)
    await page.goto(pages_url + "agent/index.html")
    result = await page.agent("Look for vases, then opt out of the newsletter at checkout.")

    assert (result.success, result.reason) == (True, "done"), result.summary()
    paths = [s.url.rsplit("/", 1)[-1] for s in result.steps]
    assert paths == [
        "index.html",
        "index.html",  # typed, not submitted
        "results.html?q=vase",  # Enter submitted the search
        "index.html",  # went back
        "help.html",  # the new tab, followed
        "index.html",  # its tab closed: back on the shop
        "checkout.html",
        "checkout.html",
    ]
    assert [len(s.tabs) for s in result.steps][4:6] == [2, 1]
    ran = [(r.action, r.status) for s in result.steps for r in s.results]
    assert ran[:7] == [
        ("type", "ok"),
        ("press", "ok"),
        ("go_back", "ok"),
        ("click", "ok"),
        ("close_tab", "ok"),
        ("click", "ok"),
        ("uncheck", "ok"),
    ]
    final = result.page
    assert final is not None and not await final.locator("#news").is_checked()
    assert len(async_page.context.pages) == 1
    for step in result.steps:
        assert step.ended_at is not None and step.started_at <= step.ended_at
        assert step.timings.observe_s > 0 and step.timings.think_s > 0 and step.timings.post_s > 0
        assert step.usage.requests == 1 and step.cost is not None and step.cost > 0
    assert all(s.timings.act_s > 0 for s in result.steps[:-1])  # the final done runs nothing
    expected = sum(
        (s.usage.prompt_tokens * 2.0 + s.usage.completion_tokens * 8.0) / 1e6 for s in result.steps
    )
    assert result.cost is not None and abs(result.cost - expected) < 1e-9
