"""Compiled extract() replay: model calls over many pages of one template, and the replay's
time against the same reads written by hand in Playwright.

Run: ``python benchmarks/replay.py [--runs N] [--quick]``.
Writes 50 product pages of one template (the compiled-extract fixture's, with other names,
prices, stock, SKUs, gift-wrap states, brands and tags), serves them from 127.0.0.1 and, in one
run:

* extracts ``Product`` from each of the 50 pages through one action cache with
  ``cache_key="product"``: the first page asks an honest fake model (it names each value's
  element) and compiles the reads, the other 49 replay them; the figure is the number of model
  calls (target 1);
* times, alternating on the same loaded pages so both see the same machine load, the replayed
  ``page.extract(...)`` (zero model calls) against the same seven reads written by hand with
  Playwright locators and parsed into the same pydantic model; the figure is the ratio of the
  medians per page (target at most 1.3x);
* runs the example checkout suite (``examples/test_checkout_suite``: act, observe, extract and
  check) twice through its offline stand-in model, the second time in ``require`` mode; the
  figure is the model calls the second run made (target 0).

``--quick`` (what the test suite runs) writes 8 pages, times 5 and leaves the example suite
out: tests/test_examples.py runs it twice with the same helper and checks the same figure.
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
from stagehand_py.testing import FunctionLLM, serve_directory  # noqa: E402
from tests.compiled_pages import INSTRUCTION, Product, read_product  # noqa: E402
from tests.example_runs import checkout_suite_twice, model_calls  # noqa: E402

PAGES = 50
QUICK_PAGES = 8
TEMPLATE = (ROOT / "tests" / "pages" / "extract" / "compiled" / "product_1.html").read_text("utf-8")
ADJECTIVES = ["Blue", "Green", "Oak", "Steel", "Clay", "Linen", "Glass", "Copper", "Slate", "Wool"]
THINGS = ["Mug", "Bowl", "Board", "Apron", "Pan"]


def write_pages(directory: Path, count: int) -> list[str]:
    """``count`` pages: the fixture's template with each page's own values."""
    names = []
    for n in range(count):
        name = f"{ADJECTIVES[n % 10]} {THINGS[n % 5]} {n}"
        html = (
            TEMPLATE.replace("Blue Enamel Mug", name)
            .replace("$1,299.50", f"${1000 + n * 37:,}.{n % 100:02d}")
            .replace('"count">7<', f'"count">{n + 2}<')
            .replace("SKU-1001", f"SKU-{5000 + n}")
            .replace('id="gift" checked', 'id="gift"' + (" checked" if n % 2 else ""))
            .replace("brand/acme", f"brand/maker-{n}")
            .replace("<li>enamel</li>", f"<li>tag-{n}</li>" * (1 + n % 3))
        )
        (directory / f"product_{n}.html").write_text(html, "utf-8")
        names.append(f"product_{n}.html")
    return names


def by_hand(page: Page) -> Product:
    """The same reads, written by hand: one locator call per field."""
    price = page.locator("p.price").inner_text().removeprefix("Price: $").replace(",", "")
    return Product(
        name=page.locator("h1.name").inner_text(),
        price=float(price),
        stock=int(page.locator("span.count").inner_text()),
        sku=page.locator("[data-testid=sku]").inner_text(),
        gift_wrap=page.locator("#gift").is_checked(),
        brand_url=page.locator("a.brand").evaluate("a => a.href"),
        tags=page.locator("ul.tags li").all_inner_texts(),
    )


def timed(run: Callable[[], Product]) -> tuple[float, Product]:
    started = time.perf_counter()
    product = run()
    return time.perf_counter() - started, product


def example_suite_second_run() -> int:
    """Model calls of the example suite's second run (the first one records the cache)."""
    with tempfile.TemporaryDirectory() as cache_dir:
        _, second = checkout_suite_twice(Path(cache_dir))
    return model_calls(second)


def main() -> None:
    args = parser(__doc__, runs=3).parse_args()
    runs = 1 if args.quick else args.runs
    with (
        tempfile.TemporaryDirectory() as site,
        tempfile.TemporaryDirectory() as cache_dir,
        sync_playwright() as playwright,
    ):
        names = write_pages(Path(site), QUICK_PAGES if args.quick else PAGES)
        # Timed: every page but the first (the model's); --quick times a few only.
        timed_pages = set(names[1:6] if args.quick else names[1:])
        with serve_directory(Path(site)) as base:
            browser = launch_chromium(playwright.chromium)
            model = FunctionLLM(structured=read_product)
            stagehand = Stagehand(llm=model, cache_dir=cache_dir)
            page = stagehand.wrap(browser.new_page())
            replayed: list[float] = []
            plain: list[float] = []
            calls = 0
            for round_ in range(runs):
                for name in names:
                    page.goto(base + name)
                    took, product = timed(
                        lambda: page.extract(INSTRUCTION, Product, cache_key="product")
                    )
                    if name in timed_pages:
                        hand_took, hand = timed(lambda: by_hand(page))
                        assert product == hand, (name, product, hand)
                        replayed.append(took)
                        plain.append(hand_took)
                if round_ == 0:
                    calls = model.calls
            browser.close()

    replay_median, hand_median = statistics.median(replayed), statistics.median(plain)
    print(f"pages: {len(names)}, rounds: {runs}; timed samples: {len(replayed)} each, alternating")
    print(f"replayed extract median: {replay_median * 1000:8.1f} ms per page (0 model calls)")
    print(f"by hand          median: {hand_median * 1000:8.1f} ms per page")
    figure("extract over the pages of one template", f"{calls} model calls", "1")
    figure(
        "replayed extract vs hand-written reads", f"{replay_median / hand_median:.2f}x", "<= 1.3x"
    )
    if args.quick:  # tests/test_examples.py runs the suite twice the same way, and checks 0
        print("second run of the example suite: not run in quick mode")
    else:
        figure("second run of the example suite", f"{example_suite_second_run()} model calls", "0")


if __name__ == "__main__":
    main()
