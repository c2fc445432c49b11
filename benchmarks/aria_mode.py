"""Accessibility-tree mode against DOM mode, side by side in one run.

Run: ``python benchmarks/aria_mode.py [--runs N] [--quick]``. On the 5,000-element catalogue page of
``benchmarks/serialize.py`` and on the project's fixture pages:

- characters the model sees of the page per act: the section of the list one act turn sends,
  averaged over the sections of the page, in aria mode, in DOM mode, and the raw
  ``page.content()`` a naive agent would send; and the whole act prompt (system + user message
  around that section, the same fixed text in both modes) for reference; also the first act
  turn as the loop sends it (nearest sections packed up to ``max_section_chars``: aria mode
  fits more of the page in one turn, so this ratio is closer to 1 on a big page);
- time to snapshot in both modes on every fixture page;
- time to snapshot and build the ladders (``take_snapshot(page, mode="aria")``: Playwright's
  ``aria_snapshot(mode="ai", boxes=True)``, the per-frame DOM facts evaluate, the parse, the
  ladder with its Playwright checks where a rung is not proven) against the DOM serializer's
  ``take_snapshot(page)`` (evaluate + parse), medians over N interleaved runs. Playwright's
  own snapshot call is timed alone too, to show how much of the total is outside our code,
  and followed by one empty ``page.evaluate``: the least any view that reads the page once
  more after Playwright's call can cost (for comparison; no target of its own). On the big
  page, also what the view's first two steps cost on their own, each after Playwright's call:
  reading its text into the tree (``parse_aria_snapshot``), then one facts evaluate for every
  listed node (the element each line stands for, found by its box). Together they are the
  least a view costs that matches every line to its element before the model sees any.

Targets: aria prompt <= 0.7 x DOM's on the big page (the aria view lists the page's clickables
as the DOM view does, icons included), <= 0.1 x page.content(); the aria view (snapshot,
facts, ladder) <= 1.3 x Playwright's own ``aria_snapshot(mode="ai", boxes=True)`` on the big
page and <= 1.5 x on every fixture page (the time stagehand_py adds on top of that call).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from benchmarks.serialize import catalogue_page, interleaved_medians  # noqa: E402
from stagehand_py._config import Settings  # noqa: E402
from stagehand_py._sections import first_group  # noqa: E402
from stagehand_py._snapshot import Snapshot  # noqa: E402
from stagehand_py._sync.aria.snapshot import _frame_facts, _wanted  # noqa: E402
from stagehand_py._sync.browser.inspect import take_snapshot  # noqa: E402
from stagehand_py._sync.browser.launch import launch_chromium  # noqa: E402
from stagehand_py.aria._lines import collect_lines  # noqa: E402
from stagehand_py.aria._parser import parse_aria_snapshot  # noqa: E402
from stagehand_py.prompts.act import build_act_messages  # noqa: E402
from stagehand_py.testing import serve_directory  # noqa: E402

FIXTURES = [
    "form.html",
    "radios.html",
    "dropdowns.html",
    "frames.html",
    "shadow.html",
    "modal.html",
    "cookie.html",
    "long.html",
    "scroll_div.html",
    "japanese.html",
    "aria/roles.html",
    "aria/duplicates.html",
    "aria/shadow_frame.html",
    "aria/canvas.html",
]
GOAL = "add the first product to the cart"


def chars_per_act(snapshot: Snapshot) -> tuple[float, float]:
    """Mean characters over every section of the page: (section text, whole act prompt)."""
    order = snapshot.chunk_order() or [0]
    sections, sizes = [], []
    for number, chunk in enumerate(order, 1):
        section = snapshot.render_chunk(chunk) if snapshot.chunks else ""
        messages = build_act_messages(
            GOAL,
            steps=[],
            section_text=section,
            section_number=number,
            section_count=len(order),
            variable_names=[],
            url=snapshot.url,
        )
        sections.append(len(section))
        sizes.append(sum(len(m.content or "") for m in messages))
    return statistics.mean(sections), statistics.mean(sizes)


def first_turn_chars(snapshot: Snapshot) -> int:
    """Characters of the page in an act's first prompt: the nearest sections packed up to
    ``max_section_chars``, as the act loop sends them."""
    order = snapshot.chunk_order()
    if not order:
        return 0
    group = first_group(snapshot, order, Settings().max_section_chars)
    return sum(len(snapshot.render_chunk(c)) for c in group)


class Row:
    """One page measured in both modes (sizes, and snapshot times over ``runs`` rounds)."""

    def __init__(self, name: str, page: Page, runs: int) -> None:
        aria = take_snapshot(page, mode="aria")
        dom = take_snapshot(page)
        self.name = name
        self.aria, self.aria_prompt = chars_per_act(aria)
        self.dom, self.dom_prompt = chars_per_act(dom)
        self.first_turn = (first_turn_chars(aria), first_turn_chars(dom))
        self.content = len(page.content())
        self.elements = f"{len(aria.elements)}/{len(dom.elements)}"
        times = interleaved_medians(
            {
                "dom": lambda: take_snapshot(page),
                "aria": lambda: take_snapshot(page, mode="aria"),
                "playwright": lambda: page.aria_snapshot(mode="ai", boxes=True),
                "floor": lambda: (page.aria_snapshot(mode="ai", boxes=True), page.evaluate("0")),
            },
            runs,
        )
        self.times = (times["aria"], times["dom"])
        self.playwright = times["playwright"]
        self.floor = times["floor"]


def first_steps(page: Page) -> dict[str, Callable[[], object]]:
    """Playwright's call followed by the aria view's first steps alone: reading the text into
    the tree; and that plus one facts evaluate for every listed node (built once, untimed)."""
    roots = parse_aria_snapshot(page.aria_snapshot(mode="ai", boxes=True))
    every = [node for root in roots for node in root.nodes()]
    wanted = _wanted(collect_lines(roots), every).get("", [])

    def read() -> object:
        return parse_aria_snapshot(page.aria_snapshot(mode="ai", boxes=True))

    return {"read": read, "facts": lambda: (read(), _frame_facts(page.main_frame, wanted, True))}


def main() -> None:
    args = parser(__doc__, runs=5).parse_args()
    runs = 1 if args.quick else args.runs
    fixtures = FIXTURES[:2] if args.quick else FIXTURES
    rows: list[Row] = []
    with sync_playwright() as playwright, serve_directory(ROOT / "tests" / "pages") as base:
        browser = launch_chromium(playwright.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for name in fixtures:
            page.goto(base + name)
            page.wait_for_load_state("load")
            rows.append(Row(name, page, runs))
        page.set_content(catalogue_page(20 if args.quick else 250))
        rows.append(Row("catalogue (5,000 el.)", page, 1))
        medians = interleaved_medians(
            {
                "dom": lambda: take_snapshot(page),
                "aria": lambda: take_snapshot(page, mode="aria"),
                "playwright": lambda: page.aria_snapshot(mode="ai", boxes=True),
                **first_steps(page),
            },
            runs,
        )
        browser.close()
    print("characters of the page the model sees per act (mean over sections), and the whole")
    print("act prompt around it (same fixed instructions in both modes):")
    print(f"{'page':<24}{'aria':>7}{'dom':>7}{'a/d':>6}{'content':>9}{'a/content':>10}"
          f"{'prompt a/d':>12}{'elements a/d':>14}")  # fmt: skip
    for r in rows:
        print(
            f"{r.name:<24}{r.aria:>7.0f}{r.dom:>7.0f}{r.aria / r.dom:>6.2f}{r.content:>9}"
            f"{r.aria / r.content:>10.3f}{r.aria_prompt / r.dom_prompt:>12.2f}{r.elements:>14}"
        )
    print("\nfirst act turn (nearest sections packed up to max_section_chars) and snapshot time")
    print("per page (medians; the big page's time is measured below):")
    print(f"{'page':<24}{'turn aria':>10}{'turn dom':>9}{'a/d':>6}{'aria s':>9}{'dom s':>8}"
          f"{'a/d':>6}{'pw s':>8}{'a/pw':>6}{'floor/pw':>9}")  # fmt: skip
    for r in rows:
        (turn_a, turn_d), (time_a, time_d) = r.first_turn, r.times
        print(
            f"{r.name:<24}{turn_a:>10}{turn_d:>9}{turn_a / max(turn_d, 1):>6.2f}"
            f"{time_a:>9.3f}{time_d:>8.3f}{time_a / time_d:>6.2f}"
            f"{r.playwright:>8.3f}{time_a / r.playwright:>6.2f}{r.floor / r.playwright:>9.2f}"
        )
    fixture_times = [r.times[0] / r.times[1] for r in rows[:-1]]
    print(f"fixture pages: median aria/dom snapshot time {statistics.median(fixture_times):.2f}")
    worst = max(rows[:-1], key=lambda r: r.times[0] / r.playwright)
    big = rows[-1]
    fixtures_aria = sum(r.aria for r in rows[:-1])
    fixtures_dom = sum(r.dom for r in rows[:-1])
    print(f"\nfixture pages, summed: aria/dom page chars {fixtures_aria / fixtures_dom:.2f}")
    figure("ratio aria/dom prompt chars", f"{big.aria / big.dom:.2f}", "<= 0.70")
    figure("ratio aria/dom whole act prompt", f"{big.aria_prompt / big.dom_prompt:.2f}")
    turn_a, turn_d = big.first_turn
    figure("ratio aria/dom first act turn (packed sections)", f"{turn_a / turn_d:.2f}")
    figure("ratio aria prompt / page.content()", f"{big.aria / big.content:.3f}", "<= 0.10")
    print(
        f"\nbig page, medians over {runs} interleaved runs (a loaded machine skews these):"
        f"\n  DOM take_snapshot (evaluate + parse)            {medians['dom']:.3f} s"
        f"\n  aria take_snapshot (snapshot + facts + ladder)  {medians['aria']:.3f} s"
        f"\n  of which Playwright's aria_snapshot alone       {medians['playwright']:.3f} s"
    )
    figure(
        "ratio aria view / playwright aria_snapshot",
        f"{medians['aria'] / medians['playwright']:.2f}",
        "<= 1.3",
    )
    figure(
        "ratio (aria_snapshot + reading its text) / aria_snapshot",
        f"{medians['read'] / medians['playwright']:.2f}",
    )
    figure(
        "ratio (aria_snapshot + reading its text + one facts evaluate) / aria_snapshot",
        f"{medians['facts'] / medians['playwright']:.2f}",
    )
    figure(
        "worst fixture page aria view / playwright aria_snapshot",
        f"{worst.times[0] / worst.playwright:.2f} on {worst.name}",
        "<= 1.5",
    )
    floors = [r.floor / r.playwright for r in rows[:-1]]
    figure(
        "fixture pages, median (playwright aria_snapshot + one empty evaluate) / aria_snapshot",
        f"{statistics.median(floors):.2f}",
    )
    floor_worst = max(rows[:-1], key=lambda r: r.floor / r.playwright)
    figure(
        "worst fixture page (playwright aria_snapshot + one empty evaluate) / aria_snapshot",
        f"{floor_worst.floor / floor_worst.playwright:.2f} on {floor_worst.name}",
    )
    figure(
        "worst fixture page aria view / (aria_snapshot + one empty evaluate)",
        f"{max(r.times[0] / r.floor for r in rows[:-1]):.2f}",
    )
    figure("ratio aria/dom snapshot time", f"{medians['aria'] / medians['dom']:.2f}")
    figure(
        "ratio Playwright aria_snapshot alone / DOM snapshot",
        f"{medians['playwright'] / medians['dom']:.2f}",
    )


if __name__ == "__main__":
    main()
