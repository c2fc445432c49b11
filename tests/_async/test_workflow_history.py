"""The per-site workflow history on real Chromium: a run writes its flows, a second run of the
same request replays them with zero model calls, a flow that no longer holds goes back to the
model, and entries past 90 days are gone when the history is opened again."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM
from stagehand_py.workflow import WorkflowHistory
from tests.agent_plan import Do
from tests.workflow_plan import WorkflowPlan

REQUEST = (
    "みどり書店で「プログラミング本」を検索して、評価が4以上で価格が3000円以下の本を探して、"
    "最初の該当商品をカートに入れる"
)
CHECKLIST = [
    "[] 「プログラミング本」を検索する",
    "[] 評価が4以上で価格が3000円以下の本を探す",
    "[] 最初の該当商品をカートに入れる",
]
STEPS = {
    1: [[Do("fill", r"キーワード", text="プログラミング本"), Do("click", r"^<button[^>]*>検索")]],
    2: [
        [
            Do("select_option", r"^<combobox", option="4以上"),
            Do("fill", r"^<spinbutton", text="3000"),
            Do("click", r"絞り込む"),
        ]
    ],
    3: [[Do("click", r"カートに入れる")]],
}
DONE_WHEN = {1: r"検索結果: \d+件", 2: r"評価4以上・3000円以下", 3: r"カートに追加しました"}


class Days:
    """A wall clock the test moves by whole days."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 10, 9, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


async def test_flows_are_written_replayed_without_the_model_and_purged_after_90_days(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    days = Days()
    plan = WorkflowPlan(CHECKLIST, STEPS, DONE_WHEN)
    first = AsyncStagehand(
        llm=AsyncFunctionLLM(structured=plan), history_dir=WorkflowHistory(tmp_path, now=days)
    )
    page = first.wrap(async_page)
    await page.goto(pages_url + "workflow/index.html")
    result = await page.workflow(REQUEST, sitemap=False)
    assert result.success and result.replayed == [], result.summary()

    [site_file] = tmp_path.glob("*.json")
    site = json.loads(site_file.read_text("utf-8"))
    assert site["domain"] == "127.0.0.1"
    assert [f["item"] for f in site["flows"]] == [line[3:] for line in CHECKLIST]
    assert [f["start_path"] for f in site["flows"]] == [
        "/workflow/index.html",
        "/workflow/results.html",
        "/workflow/results.html",
    ]
    assert [a["method"] for a in site["flows"][1]["actions"]] == ["select_option", "fill", "click"]
    assert all(a["fingerprint"] for f in site["flows"] for a in f["actions"])
    assert "?" not in json.dumps([f["url"] for f in site["flows"]])

    # Same request, a day later, in a fresh page: no model at all (a script with no answers).
    days.now += timedelta(days=1)
    silent = AsyncScriptedLLM()
    second = AsyncStagehand(llm=silent, history_dir=WorkflowHistory(tmp_path, now=days))
    fresh = second.wrap(await async_page.context.new_page())
    await fresh.goto(pages_url + "workflow/index.html")
    again = await fresh.workflow(REQUEST, sitemap=False)
    assert again.success, again.summary()
    assert again.replayed == [1, 2, 3] and again.checklist_replayed
    assert silent.calls == 0 and again.usage.requests == 0
    added = await fresh.locator("#added").inner_text()
    assert added == "カートに追加しました：『独習プログラミングPython』"  # noqa: RUF001

    # 91 days on, opening the history deletes what is older than 90 days: the file goes.
    days.now += timedelta(days=91)
    reopened = WorkflowHistory(tmp_path, now=days)
    assert reopened.purged == 3 + 1  # three flows and the checklist
    assert list(tmp_path.glob("*.json")) == []


@pytest.mark.no_sync_twin
async def test_a_stored_flow_that_no_longer_holds_goes_back_to_the_model(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    history = WorkflowHistory(tmp_path)
    search = [Do("fill", r"^<searchbox", text="プログラミング本"), Do("click", r"^<button>検索")]
    plan = WorkflowPlan(CHECKLIST[:1], {1: [search]}, DONE_WHEN)
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(
        async_page
    )
    await page.goto(pages_url + "workflow/index.html")
    assert (await page.workflow("「プログラミング本」を検索する", sitemap=False)).success

    # The search box got another id, name and label: the stored fingerprint no longer matches.
    await page.goto(pages_url + "workflow/index.html")
    await page.evaluate(
        "() => { const q = document.getElementById('q'); q.id = 'keyword'; q.name = 'keyword';"
        " q.placeholder = '何をお探しですか'; document.querySelector('label').remove(); }"
    )
    plan.position.clear()
    again = await page.workflow("「プログラミング本」を検索する", sitemap=False)
    assert again.success and again.replayed == [], again.summary()
    assert "No stored selector found the cached element" in again.items[0].replay_note
    assert again.items[0].attempts == 2


async def test_an_item_that_fails_elsewhere_forgets_the_flow_of_the_page_it_started_on(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    history = WorkflowHistory(tmp_path)
    search = [Do("fill", r"^<searchbox", text="プログラミング本"), Do("click", r"^<button>検索")]
    plan = WorkflowPlan(CHECKLIST[:1], {1: [search]}, DONE_WHEN)
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(
        async_page
    )
    start = pages_url + "workflow/index.html"
    await page.goto(start)
    assert (await page.workflow("「プログラミング本」を検索する", sitemap=False)).success
    assert history.find_flow(start, "「プログラミング本」を検索する") is not None

    # The stored flow drifts; the model then wanders to another page and the item fails there.
    await page.goto(start)
    await page.evaluate(
        "() => { const q = document.getElementById('q'); q.id = 'keyword'; q.name = 'keyword';"
        " q.placeholder = '何をお探しですか'; document.querySelector('label').remove(); }"
    )
    plan.steps[1] = [[Do("click", r"^<link[^>]*>新刊")], [Do("wait", seconds=0)]]
    plan.position.clear()
    again = await page.workflow("「プログラミング本」を検索する", sitemap=False, max_attempts=2)

    assert not again.success and "results.html" in page.url
    [failure] = history.site("127.0.0.1").failures
    assert failure.url.endswith("/workflow/results.html")  # where it failed
    # The flow forgotten is the one a later run starting on the same page would replay.
    assert history.find_flow(start, "「プログラミング本」を検索する") is None
    assert WorkflowHistory(tmp_path).find_flow(start, "「プログラミング本」を検索する") is None


async def test_a_failed_item_is_recorded_with_its_code_page_and_message(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    wrong = [Do("fill", r"^<button>検索", text="プログラミング本")]  # a button cannot be filled
    plan = WorkflowPlan(CHECKLIST[:1], {1: [wrong, wrong]}, DONE_WHEN)
    history = WorkflowHistory(tmp_path)
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(
        async_page
    )
    await page.goto(pages_url + "workflow/index.html?from=ad")
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False, max_attempts=2)

    assert not result.success and result.items[0].code == "MAX_STEPS"
    [failure] = history.site("127.0.0.1").failures
    assert (failure.item, failure.code) == ("「プログラミング本」を検索する", "MAX_STEPS")
    assert failure.url.endswith("/workflow/index.html")  # no query string
    assert failure.message.startswith("max_attempts=2 steps ran; last: ")
    assert history.site("127.0.0.1").checklists == []  # only a successful run keeps it
