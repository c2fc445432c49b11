"""Scrape many pages at once: one browser, one action cache, a bounded number of tabs.

    python examples/scrape_many.py

Each product page folds its specifications away: an act() opens them, then extract() reads
the product. The first page is done alone and teaches the cache how to open the
specifications; the other pages then run concurrently (at most CONCURRENCY tabs at a time)
and replay that act from the cache with no model call. ``url_normalizer`` drops the
``?id=...`` query, so every product page shares the one cache entry. Uses the model you
configured (STAGEHAND_PY_MODEL and its key); with none: python offline/run.py scrape_many.py
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from playwright.async_api import Browser, async_playwright
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, async_launch_chromium
from stagehand_py.testing import serve_directory

PAGES = Path(__file__).resolve().parent / "pages"  # served on 127.0.0.1 while it runs

CONCURRENCY = 3
PRODUCT_IDS = range(1, 7)


class Product(BaseModel):
    name: str
    price_eur: float
    weight_kg: float
    material: str


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
    with serve_directory(PAGES) as base_url, tempfile.TemporaryDirectory() as cache_dir:
        urls = [f"{base_url}product.html?id={n}" for n in PRODUCT_IDS]
        stagehand = AsyncStagehand(  # the model from STAGEHAND_PY_MODEL
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
