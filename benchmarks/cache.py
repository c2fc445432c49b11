"""A cached act() replay against the same steps written by hand in plain Playwright.

Run: ``python benchmarks/cache.py [--runs N] [--quick]``.
Serves the project's signup form fixture from
127.0.0.1, records the act once (a plan-following fake model fills the cache), then times, in
one run and alternating so both see the same machine load:

* the cached replay: ``page.act(...)`` with zero model calls (selectors tried in order,
  fingerprints confirmed, variables substituted, a short settle after each step);
* the same four steps written by hand: ``page.fill(...)`` x3 and ``page.click(...)``;
* the same steps by hand with one empty ``page.evaluate`` before each: the least a replay
  that checks each step's element on the page right before acting on it can cost (the
  figure is printed for comparison; it has no target of its own).

Each sample starts from a freshly loaded page and ends when the form's result is shown.
Target: replay median at most 1.15x the hand-written median, with every replayed fill still
passing the secret scope check (where the field is, where its form sends the value).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from stagehand_py import Stagehand, launch_chromium  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402
from tests._sync.plan_llm import PlanLLM, Step  # noqa: E402

INSTRUCTION = "fill the signup form with <|EMAIL|> and <|PASSWORD|> and submit it"
VARIABLES = {"email": "bench@example.test", "password": "not-a-real-secret-1"}
STEPS = [
    Step("fill", r"^<input\b[^>]*first", ["Ada"]),
    Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
    Step("fill", r"^<input\b[^>]*password", ["<|PASSWORD|>"]),
    Step("click", r"^<button\b[^>]*>.*Submit"),
]


FILLS = [
    ("#first-name", "Ada"),
    ("#email", VARIABLES["email"]),
    ("#password", VARIABLES["password"]),
]


def by_hand(page: Page, *, one_call_per_step: bool = False) -> None:
    """The four steps in plain Playwright; ``one_call_per_step``: with one empty page call
    before each, the least a per-step check adds."""
    for selector, value in FILLS:
        if one_call_per_step:
            page.evaluate("0")
        page.fill(selector, value)
    if one_call_per_step:
        page.evaluate("0")
    page.click("#submit")


def timed(page: Page, url: str, run: Callable[[], object]) -> float:
    page.goto(url)
    page.wait_for_load_state("domcontentloaded")
    started = time.perf_counter()
    run()
    page.locator("#result").filter(has_text=VARIABLES["email"]).wait_for()
    return time.perf_counter() - started


def main() -> None:
    args = parser(__doc__, runs=15).parse_args()
    runs = 1 if args.quick else args.runs
    with (
        serve_directory(ROOT / "tests" / "pages") as base,
        sync_playwright() as playwright,
        tempfile.TemporaryDirectory() as cache_dir,
    ):
        url = base + "form.html"
        browser = launch_chromium(playwright.chromium)
        recorder = Stagehand(llm=PlanLLM(STEPS), cache_dir=cache_dir)
        page = recorder.wrap(browser.new_page())
        page.goto(url)
        first = page.act(INSTRUCTION, variables=VARIABLES)
        assert first.cache == "miss" and first.success, first.message

        replayer = PlanLLM([])
        stagehand = Stagehand(llm=replayer, cache_dir=cache_dir)
        cached_page = stagehand.wrap(browser.new_page())
        plain_page = browser.new_page()
        cached: list[float] = []
        plain: list[float] = []
        checked: list[float] = []
        for _ in range(runs):
            cached.append(
                timed(
                    cached_page,
                    url,
                    lambda: cached_page.act(INSTRUCTION, variables=VARIABLES),
                )
            )
            plain.append(timed(plain_page, url, lambda: by_hand(plain_page)))
            checked.append(
                timed(plain_page, url, lambda: by_hand(plain_page, one_call_per_step=True))
            )
        assert replayer.calls == 0, "a cached replay must not call the model"
        browser.close()

    cached_median = statistics.median(cached)
    plain_median = statistics.median(plain)
    checked_median = statistics.median(checked)
    print(f"runs: {runs} each, alternating; 4 steps (3 fills, 1 click)")
    print(f"first act (model path, fake model): {first.duration_s * 1000:8.1f} ms")
    print(f"cached replay  median: {cached_median * 1000:8.1f} ms  (0 model calls)")
    print(f"by hand        median: {plain_median * 1000:8.1f} ms")
    print(f"by hand, one page call per step  median: {checked_median * 1000:8.1f} ms")
    figure("ratio replay / by hand", f"{cached_median / plain_median:.2f}x", "<= 1.15x")
    figure(
        "ratio by hand with one page call per step / by hand",
        f"{checked_median / plain_median:.2f}x",
    )
    figure(
        "ratio replay / by hand with one page call per step",
        f"{cached_median / checked_median:.2f}x",
    )


if __name__ == "__main__":
    main()
