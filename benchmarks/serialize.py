"""Time our page serializer against Playwright's own ARIA snapshot on a 5,000-element page,
and compare it, its parsing and the prompt it renders with the version before issue 12.

Run: ``python benchmarks/serialize.py [--runs N] [--baseline-ref REF] [--quick]``. Generates a
product-catalogue page (about 5,250 elements, about 1,500 of them interactive) with what real
catalogues have on top of plain controls: every card clickable through a script listener
(cursor:pointer on the whole card) and a wishlist heart drawn by CSS. Launches Chromium with
the executable this machine has and times everything N times on the same page in the same
run, alternating, and prints medians:

- serializer evaluate, today's and the baseline's (``git show REF``, see ``_baseline.py``),
  and ``locator('body').aria_snapshot()``: target ours <= 0.3 x the ARIA snapshot;
- parsing: today's (JSON + the chunk the act loop shows first; and with every element
  made) against the baseline's ``parse_snapshot``;
- the prompt size: every chunk's rendered text, today's against the baseline's on the same
  page: target <= 1.15 x (icons are shown, not every element with a listener);
- ``take_snapshot`` (evaluate + parse) against the bare JavaScript floor measured in the same
  run (``js_floor.js``: every element's rectangle, read in one evaluate): target <= 2.0 x;
  and, for comparison, that floor with the computed style a view needs to tell what is seen
  (``js_floor_style.js``: visibility, opacity and position of each element, in the same visit);
  the transfer of the serializer's JSON alone (an evaluate that returns the same string, held
  in the page, less an empty evaluate); and the style floor plus Python's first look at the
  serializer's JSON (parse + first chunk), for comparison with the target: the style floor
  returns more JSON than the serializer does, so its transfer is in that figure already;
  and that sum with the DevTools preparation every look makes first (the click-listener
  predicate and the closed shadow roots, ``browser/devtools.py``): what take_snapshot cannot
  do without while it sees what it sees, before it names or selects anything.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _baseline import Baseline, load_baseline
from _report import figure, parser
from playwright.sync_api import Page, sync_playwright

from stagehand_py._sync.browser.devtools import prepare_page
from stagehand_py._sync.browser.inspect import take_snapshot
from stagehand_py._sync.browser.launch import launch_chromium
from stagehand_py.dom._js import load_js
from stagehand_py.dom._wire import parse_snapshot

# The bare JavaScript floor: every element's rectangle, read in one evaluate; and with the
# computed style that tells whether each element is seen.
FLOOR_JS = Path(__file__).resolve().parent / "js_floor.js"
FLOOR_STYLE_JS = Path(__file__).resolve().parent / "js_floor_style.js"

# One card: 21 elements, 6 of them interactive (button, link, label, input, select, checkbox),
# plus the heart; the card itself opens the product (a listener, not a link).
CARD = """<article class="card" data-sku="{i}">
  <div class="media"><img src="data:," alt="Product {i}" width="80" height="60">
    <span class="wish"></span></div>
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
  .card {{ border: 1px solid #ddd; padding: 8px; display: flex; gap: 8px; cursor: pointer; }}
  .media {{ position: relative; }}
  .wish {{ position: absolute; top: 2px; right: 2px; width: 18px; height: 18px;
    background: url(/static/icons/heart-outline.svg) center / contain no-repeat; }}
  .actions {{ display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }}
  .actions input[type=number] {{ width: 40px; }}
</style></head>
<body><header><h1>Catalogue</h1><nav><a href="/">Home</a> <a href="/cart">Cart</a></nav></header>
<main class="grid">{body}</main>
<script>
  for (const card of document.querySelectorAll(".card")) {{
    card.addEventListener("click", () => {{ location.hash = "product-" + card.dataset.sku; }});
    card.querySelector(".wish").addEventListener("click", (e) => {{
      e.stopPropagation(); e.currentTarget.classList.toggle("on");
    }});
  }}
</script></body></html>"""


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


def renderer_cpu_medians(page: Page, scripts: dict[str, str], runs: int) -> dict[str, float]:
    """Median CPU seconds of the page's main thread per serializer evaluate (Chromium's
    ``ThreadTime`` metric): on a loaded machine this moves far less than wall time."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable", {"timeDomain": "threadTicks"})

    def thread_time() -> float:
        metrics = cdp.send("Performance.getMetrics")["metrics"]
        return float(next(m["value"] for m in metrics if m["name"] == "ThreadTime"))

    times: dict[str, list[float]] = {name: [] for name in scripts}
    for _ in range(runs):
        for name, script in scripts.items():
            before = thread_time()
            page.evaluate(script, {"chunkRatio": 0.75, "maxText": 150})
            times[name].append(thread_time() - before)
    cdp.detach()
    return {name: statistics.median(values) for name, values in times.items()}


def page_counts(page: Page) -> tuple[int, int]:
    total = page.evaluate("document.getElementsByTagName('*').length")
    interactive = page.evaluate(
        "document.querySelectorAll('button, a[href], input, select, textarea, label').length"
    )
    return total, interactive


def prompt_chars(snapshot: Any) -> int:
    """What the act loop can show the model: every chunk's rendered text."""
    return sum(len(snapshot.render_chunk(c)) for c in snapshot.chunk_order())


def parse_actions(ours: str, baseline: Baseline | None, base_json: str) -> dict[str, Any]:
    def first_look() -> None:
        snapshot = parse_snapshot(ours)
        snapshot.render_chunk(snapshot.chunk_order()[0])

    actions: dict[str, Callable[[], object]] = {
        "parse + first chunk": first_look,
        "parse + every element": lambda: parse_snapshot(ours).elements,
    }
    if baseline is not None:
        actions["baseline parse_snapshot"] = lambda: baseline.snapshot_module.parse_snapshot(
            base_json
        )
    return actions


def main() -> None:
    options = parser(__doc__, runs=15)
    options.add_argument("--baseline-ref", default=None, help="git revision to compare with")
    args = options.parse_args()
    runs = 1 if args.quick else args.runs
    baseline = load_baseline(args.baseline_ref) if args.baseline_ref else load_baseline()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.set_content(catalogue_page(20 if args.quick else 250))
        total, interactive = page_counts(page)
        script = load_js("serializer")
        options = {"chunkRatio": 0.75}
        floor_js = FLOOR_JS.read_text(encoding="utf-8")
        floor_style_js = FLOOR_STYLE_JS.read_text(encoding="utf-8")
        actions: dict[str, Callable[[], object]] = {
            "ours": lambda: page.evaluate(script, options),
            "full": lambda: take_snapshot(page),
            "aria": lambda: page.locator("body").aria_snapshot(),
            "floor": lambda: page.evaluate(floor_js),
            "floor_style": lambda: page.evaluate(floor_style_js),
            "prepare": lambda: prepare_page(page),
        }
        if baseline is not None:
            old_js = baseline.serializer_js
            actions["base"] = lambda: page.evaluate(old_js, {"chunkRatio": 0.75, "maxText": 150})
        floor_json = len(page.evaluate(floor_js))
        floor_style_json = len(page.evaluate(floor_style_js))
        ours_json = page.evaluate(script, options)
        page.evaluate("json => { window.__benchSnapshotJson = json; }", ours_json)
        actions["transfer"] = lambda: page.evaluate("() => window.__benchSnapshotJson")
        actions["empty"] = lambda: page.evaluate("0")
        medians = interleaved_medians(actions, runs)
        cpu_scripts = {"ours": script}
        if baseline is not None:
            cpu_scripts["base"] = baseline.serializer_js
        cpu = renderer_cpu_medians(page, cpu_scripts, runs)
        base_json = (
            page.evaluate(baseline.serializer_js, {"chunkRatio": 0.75, "maxText": 150})
            if baseline is not None
            else ""
        )
        browser.close()
    parsing = interleaved_medians(parse_actions(ours_json, baseline, base_json), runs)
    snapshot = parse_snapshot(ours_json)
    ours, full, aria = medians["ours"], medians["full"], medians["aria"]
    print(
        f"page: {total} elements, {interactive} interactive; snapshot: "
        f"{len(snapshot.elements)} numbered elements in {len(snapshot.chunks)} chunks"
    )
    print(
        f"serializer (evaluate)             median {ours:.3f} s over {runs} runs, "
        f"{len(ours_json) / 1000:.0f} KB JSON"
    )
    if baseline is not None:
        print(
            f"baseline serializer ({baseline.ref})      median {medians['base']:.3f} s, "
            f"{len(base_json) / 1000:.0f} KB JSON"
        )
    cpu_line = f"serializer renderer CPU           median {cpu['ours'] * 1000:.1f} ms"
    if baseline is not None:
        cpu_line += f", baseline {cpu['base'] * 1000:.1f} ms (x{cpu['ours'] / cpu['base']:.2f})"
    print(cpu_line)
    print(f"take_snapshot (evaluate + parse)  median {full:.3f} s")
    print(f"locator('body').aria_snapshot()   median {aria:.3f} s")
    figure("ratio serializer / aria_snapshot", f"{ours / aria:.2f}", "<= 0.30")
    figure("ratio take_snapshot / aria", f"{full / aria:.2f}")
    print(f"js floor (every element's rectangle) median {medians['floor']:.3f} s")
    figure("ratio take_snapshot / js floor", f"{full / medians['floor']:.2f}", "<= 2.0")
    floor, floor_style = medians["floor"], medians["floor_style"]
    print(f"js floor with computed style      median {floor_style:.3f} s")
    figure("ratio js floor with computed style / js floor", f"{floor_style / floor:.2f}")
    figure("ratio take_snapshot / js floor with computed style", f"{full / floor_style:.2f}")
    transfer = max(medians["transfer"] - medians["empty"], 0.0)
    first_look = parsing["parse + first chunk"]
    print(
        f"JSON returned: js floor {floor_json / 1000:.0f} KB, with computed style "
        f"{floor_style_json / 1000:.0f} KB, serializer {len(ours_json) / 1000:.0f} KB"
    )
    figure("ratio transfer of the snapshot's JSON / js floor", f"{transfer / floor:.2f}")
    figure("ratio parse + first chunk / js floor", f"{first_look / floor:.2f}")
    figure(
        "ratio (js floor with computed style + parse + first chunk) / js floor",
        f"{(floor_style + first_look) / floor:.2f}",
    )
    prepare = medians["prepare"]
    print(f"DevTools preparation              median {prepare * 1000:.1f} ms")
    figure("ratio DevTools preparation / js floor", f"{prepare / floor:.2f}")
    figure(
        "ratio (js floor with computed style + DevTools preparation + parse + first chunk) "
        "/ js floor",
        f"{(floor_style + prepare + first_look) / floor:.2f}",
    )
    for name, seconds in parsing.items():
        print(f"{name:<33} median {seconds * 1000:.1f} ms")
    chars = prompt_chars(snapshot)
    if baseline is not None:
        base_chars = prompt_chars(baseline.snapshot_module.parse_snapshot(base_json))
        first = parsing["parse + first chunk"]
        print(
            f"ratio baseline parse / ours       {parsing['baseline parse_snapshot'] / first:.1f}x "
            f"(first look), "
            f"{parsing['baseline parse_snapshot'] / parsing['parse + every element']:.1f}x "
            "(every element)"
        )
        print(f"prompt (all chunks) {chars} chars, baseline {base_chars}")
        figure("ratio prompt chars / baseline", f"{chars / base_chars:.3f}", "<= 1.15")
    else:
        print(f"prompt (all chunks) {chars} chars (no baseline: git revision not available)")


if __name__ == "__main__":
    main()
