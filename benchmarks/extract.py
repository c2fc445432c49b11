"""Prompt characters per extract(): cleaned page text against raw ``page.content()``.

Run: ``python benchmarks/extract.py [--quick]``.
Serves tests/pages on 127.0.0.1, opens the 10-viewport
fixture (tests/pages/long.html) and a generated shop page with the weight real pages carry
(class names, inline JSON state, styles, SVG icons, a hidden mega-menu), runs a real
extract() on each with a model stand-in that finds nothing (so every chunk is sent), and
prints, per page: characters of raw ``page.content()``, characters of cleaned page text,
characters of all prompts sent (system + instruction + text, every chunk), and the ratios
raw / text and raw / prompt. No network and no model are used.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from _report import figure, parser
from playwright.sync_api import Page, sync_playwright
from pydantic import BaseModel

from stagehand_py._sync.browser.launch import launch_chromium
from stagehand_py._sync.extract.read import extract, read_page_text
from stagehand_py._sync.llm.testing import FunctionLLM
from stagehand_py.llm._messages import Message
from stagehand_py.testing import serve_directory

PAGES = Path(__file__).resolve().parent.parent / "tests" / "pages"
ICON = '<svg class="icon icon-{n}" viewBox="0 0 24 24"><path d="M12 2l3 7h7l-6 4 2 7-6-4-6 4 2-7-6-4h7z"/></svg>'  # noqa: E501
SHOP_CARD = """<li class="grid__item product-card product-card--{i} js-product" data-sku="SKU-{i}"
    data-analytics='{{"list":"search","position":{i},"variant":"default"}}'>
  <a class="product-card__link link link--unstyled" href="/products/item-{i}?ref=grid">
    <div class="product-card__media media media--square">{icon}</div>
    <h3 class="product-card__title heading heading--small">Item number {i}</h3>
  </a>
  <div class="product-card__price price price--regular"><span class="price__amount">{i}.99 EUR</span></div>
  <button class="button button--secondary product-card__add js-add" type="button" aria-label="Add item {i}">{icon}Add</button>
</li>"""  # noqa: E501


class Found(BaseModel):
    items: list[str]


def shop_page(cards: int = 120) -> str:
    menu = "".join(
        f'<li class="menu__item"><a class="menu__link" href="/c/{n}">Category {n}</a></li>'
        for n in range(60)
    )
    grid = "\n".join(SHOP_CARD.format(i=i, icon=ICON.format(n=i % 7)) for i in range(cards))
    state = ",".join(f'{{"id":{i},"price":{i}.99,"stock":{i % 9}}}' for i in range(cards * 3))
    styles = "\n".join(f".product-card--{i} {{ order: {i}; }}" for i in range(cards))
    return f"""<!doctype html><html><head><title>Shop</title><style>{styles}</style>
<script>window.__STATE__ = {{"products": [{state}]}};</script></head><body>
<nav class="mega-menu" style="display:none"><ul class="menu">{menu}</ul></nav>
<main class="page page--search"><h1 class="heading">Search results</h1>
<ul class="grid grid--4-col">{grid}</ul></main></body></html>"""


def nothing_found(messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
    return {"data": {}, "complete": False}


def measure(page: Page, url: str, label: str) -> None:
    page.goto(url)
    raw = len(page.content())
    started = time.perf_counter()
    text = read_page_text(page)
    read_s = time.perf_counter() - started
    llm = FunctionLLM(structured=nothing_found)
    outcome = extract(page, llm, "every item and its price", Found)
    prompt = sum(len(m.content) for r in llm.requests for m in r.messages)
    name = url.rsplit("/", 1)[-1]
    print(
        f"{name:>14}: raw page.content() {raw:>8,} chars | cleaned text {len(text.text):>7,} "
        f"chars | prompts {prompt:>7,} chars in {outcome.chunks} chunk(s) | raw/text "
        f"{raw / len(text.text):5.1f}x | raw/prompt {raw / prompt:5.1f}x | "
        f"read+clean {read_s * 1000:.0f} ms"
    )
    figure(f"ratio raw / prompts, {label}", f"{raw / prompt:.1f}x")


def main() -> None:
    quick = parser(__doc__).parse_args().quick
    with (
        tempfile.TemporaryDirectory() as extra,
        serve_directory(PAGES) as fixtures,
        serve_directory(extra) as generated,
        sync_playwright() as playwright,
    ):
        (Path(extra) / "shop.html").write_text(shop_page(10 if quick else 120), encoding="utf-8")
        browser = launch_chromium(playwright.chromium)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        measure(page, fixtures + "long.html", "long.html")
        measure(page, generated + "shop.html", "generated shop page")
        browser.close()


if __name__ == "__main__":
    main()
