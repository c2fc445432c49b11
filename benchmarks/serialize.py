"""Time our page serializer against Playwright's own ARIA snapshot on a 5,000-element page.

Run: ``python benchmarks/serialize.py [--runs N]``. Generates a product-catalogue page (about
5,000 elements, about 1,500 of them interactive), launches Chromium with the executable this
machine has, times both N times on the same page in the same run and prints the medians.
Targets (issue 2): serializer median <= 0.15 s and <= 0.3 x the ARIA snapshot's median.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from playwright.sync_api import Page, sync_playwright

from stagehand_py._sync.browser import launch_chromium
from stagehand_py._sync.inspect import take_snapshot
from stagehand_py.dom import load_js

# One card: 20 elements, 6 of them interactive (button, link, label, input, select, checkbox).
CARD = """<article class="card" data-sku="{i}">
  <div class="media"><img src="data:," alt="Product {i}" width="80" height="60"></div>
  <div class="body">
    <h3 class="title">Product number {i}</h3>
    <p class="desc">A sturdy item for everyday use, <em>model {i}</em>, ships in 2 days.</p>
    <div class="meta"><span class="price">${price}</span><span class="stock">In stock</span></div>
    <div class="actions">
      <button type="button" class="add">Add to cart</button>
      <a href="/product/{i}" class="details">Details</a>
      <label for="qty-{i}">Qty</label>
      <input id="qty-{i}" name="qty-{i}" type="number" value="1">
      <select name="size-{i}"><option>S</option><option>M</option><option>L</option></select>
      <input type="checkbox" name="compare" value="{i}" aria-label="Compare product {i}">
    </div>
  </div>
</article>"""


def catalogue_page(cards: int = 250) -> str:
    body = "\n".join(CARD.format(i=i, price=f"{10 + i % 90}.99") for i in range(cards))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Catalogue</title>
<style>
  body {{ font-family: sans-serif; margin: 0; }}
  .grid {{ display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; padding: 12px; }}
  .card {{ border: 1px solid #ddd; padding: 8px; display: flex; gap: 8px; }}
  .actions {{ display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }}
  .actions input[type=number] {{ width: 40px; }}
</style></head>
<body><header><h1>Catalogue</h1><nav><a href="/">Home</a> <a href="/cart">Cart</a></nav></header>
<main class="grid">{body}</main></body></html>"""


def interleaved_medians(actions: dict[str, Callable[[], object]], runs: int) -> dict[str, float]:
    """Median seconds per action. Rounds alternate between the actions so that a burst of
    load on this 2-core machine hits all of them alike instead of skewing one."""
    for action in actions.values():
        action()  # warm-up: script compile, first layout
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            start = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def page_counts(page: Page) -> tuple[int, int]:
    total = page.evaluate("document.getElementsByTagName('*').length")
    interactive = page.evaluate(
        "document.querySelectorAll('button, a[href], input, select, textarea, label').length"
    )
    return total, interactive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_content(catalogue_page())
        total, interactive = page_counts(page)
        script = load_js("serializer")
        options = {"chunkRatio": 0.75, "maxText": 150}
        medians = interleaved_medians(
            {
                "ours": lambda: page.evaluate(script, options),
                "full": lambda: take_snapshot(page),
                "aria": lambda: page.locator("body").aria_snapshot(),
            },
            args.runs,
        )
        ours, full, aria = medians["ours"], medians["full"], medians["aria"]
        snapshot = take_snapshot(page)
        # Bytes cross CDP and Playwright's pipe at tens of ns each: worth watching.
        payload_kb = len(page.evaluate(script, options)) / 1000
        browser.close()
    print(
        f"page: {total} elements, {interactive} interactive; snapshot: "
        f"{len(snapshot.elements)} numbered elements in {len(snapshot.chunks)} chunks"
    )
    print(
        f"serializer (evaluate)             median {ours:.3f} s over {args.runs} runs, "
        f"{payload_kb:.0f} KB JSON"
    )
    print(f"take_snapshot (evaluate + parse)  median {full:.3f} s")
    print(f"locator('body').aria_snapshot()   median {aria:.3f} s")
    print(f"ratio serializer / aria_snapshot  {ours / aria:.2f}  (target <= 0.30)")
    print(f"ratio take_snapshot / aria        {full / aria:.2f}")


if __name__ == "__main__":
    main()
