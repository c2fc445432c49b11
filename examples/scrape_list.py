"""Scrape a list that spans several pages into pydantic models.

    python examples/scrape_list.py

extract() reads each page into ``ProductPage``; observe() finds the "Next page" link and
act(observed) follows it without another model call. Uses the model you configured
(STAGEHAND_PY_MODEL and its key); with none: python offline/run.py scrape_list.py
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright
from pydantic import BaseModel

from stagehand_py import Stagehand, launch_chromium
from stagehand_py.testing import serve_directory

PAGES = Path(__file__).resolve().parent / "pages"  # served on 127.0.0.1 while it runs


class Product(BaseModel):
    name: str
    price_eur: float


class ProductPage(BaseModel):
    products: list[Product]


def main() -> None:
    with serve_directory(PAGES) as base_url, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        stagehand = Stagehand()  # the model from STAGEHAND_PY_MODEL
        page = stagehand.wrap(browser.new_page())
        page.goto(base_url + "products-1.html")

        products: list[Product] = []
        for _ in range(10):  # a bound, in case a site links its pages in a circle
            products += page.extract("every product and its price", schema=ProductPage).products
            next_links = page.observe("the link to the next page of products")
            if not next_links:
                break
            page.act(next_links[0])  # replays the observed click: no model call
            page.wait_for_load_state()

        for product in products:
            print(f"{product.name:<22} {product.price_eur:7.2f} EUR")
        calls = sum(record.llm_calls for record in stagehand.history)
        print(f"{len(products)} products; {calls} model calls")
        browser.close()


if __name__ == "__main__":
    main()
