"""page.workflow() on real Chromium with a plan-following fake model: a Japanese three-item
workflow across two pages (search, filter by two conditions, add to cart) on the bookshop in
tests/pages/workflow/, an English one, and the checklist driving every request."""

from __future__ import annotations

import time
from urllib.parse import quote

from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_plan import Do
from tests.workflow_plan import WorkflowPlan, is_aria

REQUEST_JA = (
    "みどり書店で「プログラミング本」を検索して、評価が4以上で価格が3000円以下の本を探して、"
    "最初の該当商品をカートに入れる"
)
CHECKLIST_JA = [
    "[] みどり書店で「プログラミング本」を検索する",
    "[] 評価が4以上で価格が3000円以下の本を探す",
    "[] 最初の該当商品をカートに入れる",
]


def bookshop_plan(**options: object) -> WorkflowPlan:
    return WorkflowPlan(
        CHECKLIST_JA,
        steps={
            1: [
                [
                    Do("fill", r"キーワード|name=\"q\"", text="プログラミング本"),
                    Do("click", r"^<button[^>]*>検索"),
                ]
            ],
            2: [
                [
                    Do("select_option", r"^<(select|combobox)", option="4以上"),
                    Do("fill", r"^<(spinbutton|input[^>]*max)", text="3000"),
                    Do("click", r"絞り込む"),
                ]
            ],
            3: [[Do("click", r"カートに入れる")]],
        },
        done_when={1: r"検索結果: \d+件", 2: r"評価4以上・3000円以下", 3: r"カートに追加しました"},
        find_page=[1],
        **options,  # type: ignore[arg-type]
    )


async def test_a_japanese_checklist_across_two_pages(async_page: AsyncPage, pages_url: str) -> None:
    plan = bookshop_plan()
    llm = AsyncFunctionLLM(structured=plan)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "workflow/index.html")
    result = await page.workflow(REQUEST_JA)

    assert result.success, result.summary()
    assert result.checklist == [line.replace("[]", "[x]", 1) for line in CHECKLIST_JA]
    assert [i.status for i in result.items] == ["done"] * 3
    assert [i.attempts for i in result.items] == [2, 2, 2]  # act, then done + its check
    # The conditions of item 2 reached the page, and the first matching book is in the cart.
    assert (
        await page.locator("#filter-status").inner_text()
        == "絞り込み: 評価4以上・3000円以下（2件）"  # noqa: RUF001 (the page is Japanese)
    )
    assert (
        await page.locator("#added").inner_text()
        == "カートに追加しました：『独習プログラミングPython』"  # noqa: RUF001
    )
    assert result.items[0].url.endswith("/workflow/results.html?q=" + quote("プログラミング本"))
    assert [a.action for a in result.items[0].actions] == ["fill", "click", "done"]
    # Every step request carried the whole checklist, done items ticked, the current one marked.
    second_item_task = plan.tasks[2]
    assert "[x] 1. みどり書店で「プログラミング本」を検索する" in second_item_task
    assert "[ ] 2. 評価が4以上で価格が3000円以下の本を探す  <- current item" in second_item_task
    assert '"id": "item-2"' in second_item_task and '"attempt": 1' in second_item_task
    assert '"attempt": 2' in plan.tasks[3]
    assert all(is_aria(state) for _, state in plan.states)
    kinds = [r.options.kind for r in llm.requests]
    assert kinds == ["checklist"] + ["agent", "agent", "verify"] * 3
    assert isinstance(result.page, AsyncStagehandPage)
    record = page.stagehand.history[-1]
    assert record.kind == "workflow" and record.success


async def test_an_english_request_and_a_completion_check_that_says_not_yet(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = WorkflowPlan(
        [
            "[] Search the catalogue for lamps",
            "[] Keep lamps in stock at 30 EUR or less",
            "[] Add the first one to the cart",
        ],
        steps={
            1: [
                [
                    Do("fill", r"Search the catalogue|id=\"term\"", text="lamp"),
                    Do("click", r">Search"),
                ]
            ],
            2: [
                [Do("check", r"In stock")],
                {"thinking": "", "actions": [{"action": "done", "text": "filtered"}]},  # too early
                [Do("fill", r"Price up to|id=\"under\"", text="30"), Do("click", r"Apply filters")],
            ],
            3: [[Do("click", r"Add to cart")]],
        },
        done_when={1: r"4 result\(s\) for lamp", 2: r"in stock, up to 30 EUR", 3: r"Cart: Clip-on"},
    )
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    await page.goto(pages_url + "workflow/shop_en.html")
    result = await page.workflow(
        "Search the catalogue for lamps, keep those in stock at 30 EUR or less, and add the "
        "first one to the cart."
    )

    assert result.success, result.summary()
    assert await page.locator("#cart").inner_text() == "Cart: Clip-on reading lamp"
    assert plan.checks == [(1, True), (2, False), (2, True), (3, True)]
    # The early "done" failed its check; the reason reached the next step's state.
    second = result.items[1]
    assert second.attempts == 4 and second.status == "done"
    assert any(
        "the completion check says the item is not done yet" in s for i, s in plan.states if i == 2
    )


async def test_a_workflow_ends_within_a_second_of_its_timeout(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = WorkflowPlan(CHECKLIST_JA[:2], {1: [[Do("wait", seconds=1)]] * 40}, {1: r"never"})
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    await page.goto(pages_url + "workflow/index.html")
    started = time.monotonic()
    result = await page.workflow(REQUEST_JA, timeout_s=2, max_attempts=100)
    took = time.monotonic() - started

    assert (result.success, result.reason) == (False, "timeout")
    assert took < 2 + 1
    first, second = result.items
    assert (first.status, first.code) == ("failed", "TIMEOUT") and first.attempts >= 1
    assert second.status == "not_run"
    assert result.checklist == ["[] " + line[3:] for line in CHECKLIST_JA[:2]]


async def test_a_checklist_that_never_validates_ends_the_workflow_with_the_reason(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncFunctionLLM(structured=lambda messages, schema: {"checklist": ["[]  "]})
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "workflow/index.html")
    result = await page.workflow(REQUEST_JA)

    assert (result.success, result.reason, result.items) == (False, "failed", [])
    assert result.message.startswith("the checklist request failed:")
    assert [r.options.kind for r in llm.requests] == ["checklist"] * 3  # asked, re-asked twice
    assert "item 1 is empty" in llm.requests[1].messages[-1].content
