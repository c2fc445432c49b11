"""A checklist workflow's first run against its replay from the per-site history.

Run: ``python benchmarks/workflow.py [--runs N] [--model-latency SECONDS] [--quick]``. Serves the
bookshop of tests/pages/workflow/ from 127.0.0.1 and runs the ADR's three-item Japanese
request (search, filter by rating and price, add the first match to the cart) with a scripted
model that follows a plan and waits ``--model-latency`` seconds per request (0.5 s by default:
a small model's answer; 0 shows the SDK's own time). Each round runs, side by side:

1. the workflow with an empty history (one checklist request, then every item's steps and
   completion checks);
2. the same request again in a fresh page with the history the first run wrote: the
   checklist and every item come from the history, replayed through the action cache's
   replay with no model request.

It prints, per round, model requests and wall time of both, and the median ratio
(replay / first run). The ADR's target: a second run at least 50% faster.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from stagehand_py import Stagehand, WorkflowHistory, launch_chromium  # noqa: E402
from stagehand_py.llm import Message  # noqa: E402
from stagehand_py.testing import FunctionLLM, serve_directory  # noqa: E402
from tests.agent_plan import Do  # noqa: E402
from tests.workflow_plan import WorkflowPlan  # noqa: E402

REQUEST = (
    "みどり書店で「プログラミング本」を検索して、評価が4以上で価格が3000円以下の本を探して、"
    "最初の該当商品をカートに入れる"
)


def plan() -> WorkflowPlan:
    return WorkflowPlan(
        [
            "[] 「プログラミング本」を検索する",
            "[] 評価が4以上で価格が3000円以下の本を探す",
            "[] 最初の該当商品をカートに入れる",
        ],
        {
            1: [
                [Do("fill", r"キーワード", text="プログラミング本"), Do("click", r"^<button>検索")]
            ],
            2: [
                [
                    Do("select_option", r"^<combobox", option="4以上"),
                    Do("fill", r"^<spinbutton", text="3000"),
                    Do("click", r"絞り込む"),
                ]
            ],
            3: [[Do("click", r"カートに入れる")]],
        },
        {1: r"検索結果: \d+件", 2: r"評価4以上・3000円以下", 3: r"カートに追加しました"},
    )


def slow(answers: WorkflowPlan, latency: float) -> Any:
    def answer(messages: list[Message], schema: Any) -> dict[str, Any]:
        time.sleep(latency)  # the model thinking; the SDK's time is everything else
        return answers(messages, schema)

    return answer


def one_round(browser: Any, base: str, latency: float) -> tuple[float, int, float, int]:
    with tempfile.TemporaryDirectory() as directory:
        timings = []
        for _ in range(2):  # first run, then the replay from what the first one wrote
            llm = FunctionLLM(structured=slow(plan(), latency))
            sh = Stagehand(llm=llm, history_dir=WorkflowHistory(directory))
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = sh.wrap(context.new_page())
            page.goto(base + "workflow/index.html")
            started = time.perf_counter()
            result = page.workflow(REQUEST, sitemap=False)
            took = time.perf_counter() - started
            context.close()
            if not result.success:
                raise SystemExit(f"the workflow failed:\n{result.summary()}")
            timings.append((took, llm.calls))
    (first, first_calls), (again, again_calls) = timings
    return first, first_calls, again, again_calls


def main() -> None:
    options = parser(__doc__, runs=3)
    options.add_argument("--model-latency", type=float, default=0.5)
    args = options.parse_args()
    runs, latency = (1, 0.05) if args.quick else (args.runs, args.model_latency)
    ratios = []
    with serve_directory(ROOT / "tests" / "pages") as base, sync_playwright() as p:
        browser = launch_chromium(p.chromium)
        for number in range(1, runs + 1):
            first, first_calls, again, again_calls = one_round(browser, base, latency)
            ratios.append(again / first)
            print(
                f"round {number}: first run {first:.2f} s ({first_calls} model requests), "
                f"replay {again:.2f} s ({again_calls} model requests), "
                f"replay/first {again / first:.2f}"
            )
        browser.close()
    median = statistics.median(ratios)
    figure("median replay / first", f"{median:.2f}", "<= 0.5 with 0.5 s per model request")
    print(f"({(1 - median) * 100:.0f}% faster; model latency {latency:g} s per request)")


if __name__ == "__main__":
    main()
