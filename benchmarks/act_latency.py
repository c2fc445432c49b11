"""The package's own time per action in act(), against the same steps written by hand.

Run: ``python benchmarks/act_latency.py [--runs N] [--quick]`` (default 15 runs). Serves the
project's signup form fixture from 127.0.0.1 and times, in one run and alternating so every
variant sees the same machine load, from a freshly loaded page until the result is shown:

* ``act, batched``: ``page.act(...)`` with an instant plan-following fake model that batches
  the four steps (fill, fill a variable, select, submit) in one reply, then verify;
* ``act, 1 per reply``: the same fake answering one action per reply (how models answered
  before batching: five model calls);
* ``by hand``: ``page.fill`` x2, ``page.select_option``, ``page.click``.

The model answers instantly, so an act's duration is the package's own time (settling,
serializing, checking and running actions). Printed: medians, the per-action figure (act
duration / 4), its ratio to the hand-written steps, and where the batched act's time went
(median share per phase). Target: at most 0.08 s per action (the batched act's median / 4).
"""

from __future__ import annotations

import collections
import functools
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import stagehand_py._sync.act.checked as checked_module  # noqa: E402
import stagehand_py._sync.act.hands as hands_module  # noqa: E402
import stagehand_py._sync.act.loop as act_module  # noqa: E402
import stagehand_py._sync.browser.executor as executor_module  # noqa: E402
from benchmarks._report import figure, parser  # noqa: E402
from stagehand_py import Stagehand, launch_chromium  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402
from tests._sync.plan_llm import PlanLLM, Step  # noqa: E402

ACTIONS = 4
INSTRUCTION = "fill the signup form with Ada and <|EMAIL|>, choose France and submit it"
VARIABLES = {"email": "bench@example.test"}
STEPS = [
    Step("fill", r"^<input\b[^>]*first", ["Ada"]),
    Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
    Step("select_option", r"^<select\b", ["France"]),
    Step("click", r"^<button\b[^>]*>.*Submit"),
]
# (module, function, phase) timed for the breakdown; nested phases are reported apart.
PHASES = [
    (act_module, "settle", "settle (first look)"),
    (act_module, "take_snapshot", "serialize"),
    (act_module, "page_version", "version reads"),
    (checked_module, "locate_fingerprinted", "element check"),
    (hands_module, "user_facing_selector", "user-facing locator"),
    (executor_module, "arm", "arm before action"),
    (executor_module, "_run", "Playwright action"),
    (executor_module, "settle", "settle after action"),
]


def by_hand(page: Page) -> None:
    page.fill("#first-name", "Ada")
    page.fill("#email", VARIABLES["email"])
    page.select_option("#country", "France")
    page.click("#submit")


def with_act(page: Page, batch: bool) -> Callable[[], object]:
    def run() -> None:
        llm = PlanLLM(STEPS, batch=batch)
        result = Stagehand(llm=llm).wrap(page).act(INSTRUCTION, variables=VARIABLES)
        assert result.success and len(result.actions) == ACTIONS, result.message

    return run


def timed(page: Page, url: str, run: Callable[[], object]) -> float:
    page.goto(url)
    page.wait_for_load_state("domcontentloaded")
    started = time.perf_counter()
    run()
    page.locator("#result").filter(has_text=VARIABLES["email"]).wait_for()
    return time.perf_counter() - started


@contextmanager
def phase_timer(spent: dict[str, float]) -> Iterator[None]:
    """Time the PHASES functions while inside (patched in place, restored after)."""
    originals: list[tuple[Any, str, Any]] = []
    for module, name, label in PHASES:
        original = getattr(module, name)

        @functools.wraps(original)
        def timed_call(*args: Any, _f: Any = original, _label: str = label, **kw: Any) -> Any:
            started = time.perf_counter()
            try:
                return _f(*args, **kw)
            finally:
                spent[_label] += time.perf_counter() - started

        originals.append((module, name, original))
        setattr(module, name, timed_call)
    try:
        yield
    finally:
        for module, name, original in originals:
            setattr(module, name, original)


def main() -> None:
    args = parser(__doc__, runs=15).parse_args()
    runs = 1 if args.quick else args.runs
    variants = ["act, batched", "act, 1 per reply", "by hand"]
    times: dict[str, list[float]] = {name: [] for name in variants}
    shares: dict[str, list[float]] = collections.defaultdict(list)
    with serve_directory(ROOT / "tests" / "pages") as base, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        url = base + "form.html"
        actions: dict[str, Callable[[], object]] = {
            "act, batched": with_act(page, batch=True),
            "act, 1 per reply": with_act(page, batch=False),
            "by hand": lambda: by_hand(page),
        }
        for action in actions.values():
            timed(page, url, action)  # warm-up: script compile, first layout
        for _ in range(runs):
            for name, action in actions.items():
                if name == "act, batched":
                    spent: dict[str, float] = collections.defaultdict(float)
                    with phase_timer(spent):
                        elapsed = timed(page, url, action)
                    for label, seconds in spent.items():
                        shares[label].append(seconds / elapsed)
                else:
                    elapsed = timed(page, url, action)
                times[name].append(elapsed)
        browser.close()
    hand = statistics.median(times["by hand"])
    print(f"signup form, {ACTIONS} actions, median of {runs} runs (instant fake model)\n")
    print(f"{'variant':<18}{'act (s)':>9}{'per action (s)':>16}{'x by hand':>11}")
    for name in variants:
        median = statistics.median(times[name])
        print(f"{name:<18}{median:>9.3f}{median / ACTIONS:>16.3f}{median / hand:>11.1f}")
    print("\nwhere the batched act's time goes (median share of the act):")
    for _, _, label in PHASES:
        if shares[label]:
            print(f"  {label:<22}{100 * statistics.median(shares[label]):>5.0f}%")
    print()
    per_action = statistics.median(times["act, batched"]) / ACTIONS
    figure("sdk seconds per action", f"{per_action:.3f}", "<= 0.08")
    figure("act batched x by hand", f"{statistics.median(times['act, batched']) / hand:.1f}x")


if __name__ == "__main__":
    main()
