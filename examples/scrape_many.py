"""Scrape many pages at once: one browser, one action cache, a bounded number of tabs.

    python examples/scrape_many.py

Each product page folds its specifications away: an act() opens them, then extract() reads
the product. The first page is done alone and teaches the cache how to open the
specifications; the other pages then run concurrently (at most CONCURRENCY tabs at a time)
and replay that act from the cache with no model call. ``url_normalizer`` drops the
``?id=...`` query, so every product page shares the one cache entry. Uses your configured
model, or an offline stand-in when none is configured.
"""

from __future__ import annotations

import asyncio
import re
import tempfile

from _offline import StandIn, async_model_or_stand_in, serve_pages
from playwright.async_api import Browser, async_playwright
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, async_launch_chromium

CONCURRENCY = 3
PRODUCT_IDS = range(1, 7)


class Product(BaseModel):
    name: str
    price_eur: float
    weight_kg: float
    material: str


def read_product(page_text: str) -> dict[str, object]:
    """The stand-in's extract: the fields as they appear in the page text it was sent."""
    found = {
        "name": re.search(r"^# (.+)$", page_text, re.MULTILINE),
        "price_eur": re.search(r"EUR ([\d.]+)", page_text),
        "weight_kg": re.search(r"Weight \| ([\d.]+) kg", page_text),
        "material": re.search(r"Material \| ([^|\n]+?) \|", page_text),
    }
    return {key: match.group(1).strip() for key, match in found.items() if match}


STAND_IN = StandIn([("click", r"^<button\b[^>]*>Show specifications", [])], extract=read_product)


async def scrape(browser: Browser, stagehand: AsyncStagehand, url: str) -> Product:
    context = await browser.new_context()  # one tab of its own per page, same browser
    try:
        page = stagehand.wrap(await context.new_page())
        await page.goto(url)
        await page.act("open the product specifications")
        return await page.extract("the product's name, price, weight and material", Product)
    finally:
        await context.close()


async def main() -> None:
    with serve_pages() as base_url, tempfile.TemporaryDirectory() as cache_dir:
        urls = [f"{base_url}product.html?id={n}" for n in PRODUCT_IDS]
        stagehand = AsyncStagehand(
            llm=async_model_or_stand_in(STAND_IN),
            cache_dir=cache_dir,  # a real project keeps it: .stagehand-cache, committed
            url_normalizer=lambda url: url.split("?")[0],
        )
        async with async_playwright() as playwright:
            browser = await async_launch_chromium(playwright.chromium)
            first = await scrape(browser, stagehand, urls[0])  # teaches the cache
            tabs = asyncio.Semaphore(CONCURRENCY)

            async def bounded(url: str) -> Product:
                async with tabs:
                    return await scrape(browser, stagehand, url)

            rest = await asyncio.gather(*(bounded(url) for url in urls[1:]))
            await browser.close()

        for product in [first, *rest]:
            print(
                f"{product.name:<18} {product.price_eur:7.2f} EUR"
                f" {product.weight_kg:4.1f} kg  {product.material}"
            )
        assert stagehand.cache is not None
        stats = stagehand.cache.stats
        acts = [record for record in stagehand.history if record.kind == "act"]
        print(
            f"{len(urls)} products; act model calls: {sum(r.llm_calls for r in acts)}; "
            f"cache: {stats.hits} hit(s), {stats.misses} miss(es)"
        )


if __name__ == "__main__":
    asyncio.run(main())
