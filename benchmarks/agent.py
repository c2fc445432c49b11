"""The agent loop's own cost per step, and what the token budget does to prompt size.

Run: ``python benchmarks/agent.py [--runs N] [--quick]``. Serves the tiny shop of tests/pages/agent/
from 127.0.0.1 and runs a fixed 12-step task (search, sort, open a product, add it to the
cart, go back, scroll, fill the checkout form in one batch, done) with an instant scripted
model that follows the plan, so every second measured is the SDK's: observing the page
(settle, snapshot, tabs), acting (the executor, settling, the batch checks) and bookkeeping
(downloads, history, the record). The model's answers carry a growing memory, as real ones do.

The same task runs twice per round, side by side: once with a token budget
(``max_input_tokens=2000, max_history_items=3``) and once without one (``max_input_tokens``
at its maximum), and the prompt characters of each step are printed for both, showing that
the budget keeps them from growing with the step count.

For scale, the same 13 actions written by hand in plain Playwright (no snapshot, no settling)
are timed in the same run: on a loaded machine every round trip to the browser is slower, and
the ratio shows how much of the SDK time is the machine.

Target (issue 16): SDK time per step at most 0.25 s (median) on the 2-core machine.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from stagehand_py import Stagehand, launch_chromium  # noqa: E402
from stagehand_py.agent import AgentResult  # noqa: E402
from stagehand_py.testing import FunctionLLM, serve_directory  # noqa: E402
from tests.agent_plan import AgentPlan, Do, done  # noqa: E402

TASK = "Put the cheapest lamp in the cart, then fill the checkout form for Ada."
BUDGET = {"max_input_tokens": 2000, "max_history_items": 3}
NO_BUDGET = {"max_input_tokens": 10_000_000, "max_history_items": 10_000}


def plan() -> AgentPlan:
    return AgentPlan(
        [Do("fill", r"^<input[^>]*search", text="lamp")],
        [Do("click", r"^<button[^>]*>Search")],
        [Do("select_option", r"^<select", option="Price, lowest first")],
        [Do("click", r"Paper lantern lamp")],
        [Do("click", r"Add to cart")],
        [Do("click", r"View cart")],
        [Do("click", r"Continue shopping")],
        [Do("scroll", direction="bottom")],
        [Do("scroll", direction="top")],
        [Do("click", r"^<a[^>]*>Checkout")],
        [
            Do("fill", r'name="name"', text="Ada Lovelace"),
            Do("fill", r'name="email"', text="ada@example.org"),
            Do("fill", r'name="address"', text="12 Harbour Street"),
        ],
        done("Done: lamp in the cart, form filled."),
        memory="Cheapest lamp so far: Paper lantern lamp, 24.50 EUR. " * 10,
    )


def by_hand(browser: object, base: str) -> float:
    """The same actions written by hand in plain Playwright: the floor on this machine now."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        page.goto(base + "index.html")
        started = time.perf_counter()
        page.fill("#q", "lamp")
        page.click("button[type=submit]")
        page.select_option("#sort", label="Price, lowest first")
        page.click("text=Paper lantern lamp")
        page.click("#add")
        page.click("text=View cart")
        page.click("text=Continue shopping")
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.evaluate("window.scrollTo(0, 0)")
        page.click("text=Checkout")
        page.fill("#name", "Ada Lovelace")
        page.fill("#email", "ada@example.org")
        page.fill("#address", "12 Harbour Street")
        return time.perf_counter() - started
    finally:
        context.close()


def run_once(browser: object, base: str, limits: dict[str, int]) -> AgentResult:
    context = browser.new_context(viewport={"width": 1280, "height": 720})  # type: ignore[attr-defined]
    try:
        page = Stagehand(llm=FunctionLLM(structured=plan())).wrap(context.new_page())
        page.goto(base + "index.html")
        result = page.agent(TASK, **limits)
        if not result.success:
            raise SystemExit(f"the benchmark task failed:\n{result.summary()}")
        return result
    finally:
        context.close()


def main() -> None:
    args = parser(__doc__, runs=3).parse_args()
    runs = 1 if args.quick else args.runs
    observe: list[float] = []
    act: list[float] = []
    post: list[float] = []
    sdk: list[float] = []
    sdk_totals: list[float] = []
    hand_totals: list[float] = []
    with serve_directory(ROOT / "tests" / "pages" / "agent") as base, sync_playwright() as p:
        browser = launch_chromium(p.chromium)
        try:
            if not args.quick:
                run_once(browser, base, BUDGET)  # warm-up: browser caches, first imports
            for _ in range(runs):
                budgeted = run_once(browser, base, BUDGET)
                unbounded = run_once(browser, base, NO_BUDGET)
                hand_totals.append(by_hand(browser, base))
                sdk_totals.append(sum(step.timings.sdk_s for step in budgeted.steps))
                for step in budgeted.steps:
                    observe.append(step.timings.observe_s)
                    act.append(step.timings.act_s)
                    post.append(step.timings.post_s)
                    sdk.append(step.timings.sdk_s)
        finally:
            browser.close()

    warm_up = "" if args.quick else " (plus a warm-up)"
    print(f"Task: {len(budgeted.steps)} steps, {runs} round(s){warm_up}.")
    print("\nstep  page                     SDK s   prompt chars   prompt chars   cuts")
    print("                                          (budget)   (no budget)")
    for mine, theirs in zip(budgeted.steps, unbounded.steps, strict=True):
        where = mine.url.rsplit("/", 1)[-1][:24]
        cuts = "; ".join(mine.cuts) or "-"
        print(
            f"{mine.number:>4}  {where:<24} {mine.timings.sdk_s:5.3f} {mine.prompt_chars:>14,} "
            f"{theirs.prompt_chars:>13,}   {cuts}"
        )
    print(
        f"\nmedians per step: observe {statistics.median(observe):.3f} s, act "
        f"{statistics.median(act):.3f} s, bookkeeping {statistics.median(post):.4f} s"
    )
    figure("SDK time per step", f"{statistics.median(sdk):.2f} s", "<= 0.25 s")
    print(f"(median of {len(sdk)} steps)")
    hand, ours = statistics.median(hand_totals), statistics.median(sdk_totals)
    print(
        f"the same 13 actions by hand in plain Playwright: {hand:.2f} s in all; the agent's SDK "
        f"time for the task: {ours:.2f} s ({ours / hand:.1f}x: snapshots, settling, batch checks)"
    )
    first, last = budgeted.steps[0].prompt_chars, max(s.prompt_chars for s in budgeted.steps)
    grown = unbounded.steps[-1].prompt_chars
    print(
        f"prompt chars with the budget: {first:,} at step 1, at most {last:,}; without it: "
        f"{grown:,} at the last step"
    )


if __name__ == "__main__":
    main()
