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
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
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

PAGES = 50
TEMPLATE = (ROOT / "tests" / "pages" / "extract" / "compiled" / "product_1.html").read_text("utf-8")
ADJECTIVES = ["Blue", "Green", "Oak", "Steel", "Clay", "Linen", "Glass", "Copper", "Slate", "Wool"]
THINGS = ["Mug", "Bowl", "Board", "Apron", "Pan"]


def write_pages(directory: Path) -> list[str]:
    """The 50 pages: the fixture's template with each page's own values."""
    names = []
    for n in range(PAGES):
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
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STAGEHAND_PY_", "OPENAI_"))}
    env["STAGEHAND_PY_BLOCK_REAL_LLM"] = "1"
    with tempfile.TemporaryDirectory() as cache_dir:
        said = ""
        for mode in ("read-write", "require"):
            run = [sys.executable, str(ROOT / "examples" / "offline" / "run.py"), "-m", "pytest"]
            run += ["-q", "-p", "no:cacheprovider", f"--stagehand-cache-dir={cache_dir}"]
            done = subprocess.run(
                [*run, f"--stagehand-cache-mode={mode}"],
                cwd=ROOT / "examples" / "test_checkout_suite",
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            said = done.stdout + done.stderr
            if done.returncode != 0:
                raise SystemExit(f"the example suite failed ({mode}):\n{said}")
    found = re.search(r"(\d+) model call\(s\)", said)
    if found is None:
        raise SystemExit(f"the example suite printed no model-call count:\n{said}")
    return int(found.group(1))


def main() -> None:
    args = parser(__doc__, runs=3).parse_args()
    runs = 1 if args.quick else args.runs
    with (
        tempfile.TemporaryDirectory() as site,
        tempfile.TemporaryDirectory() as cache_dir,
        sync_playwright() as playwright,
    ):
        names = write_pages(Path(site))
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
    print(f"pages: {PAGES}, rounds: {runs}; timed samples: {len(replayed)} each, alternating")
    print(f"replayed extract median: {replay_median * 1000:8.1f} ms per page (0 model calls)")
    print(f"by hand          median: {hand_median * 1000:8.1f} ms per page")
    figure(f"extract over {PAGES} pages of one template", f"{calls} model calls", "1")
    figure(
        "replayed extract vs hand-written reads", f"{replay_median / hand_median:.2f}x", "<= 1.3x"
    )
    figure("second run of the example suite", f"{example_suite_second_run()} model calls", "0")


if __name__ == "__main__":
    main()
