"""Scrape a list that spans several pages into pydantic models.

    python examples/scrape_list.py

extract() reads each page into ``ProductPage``; observe() finds the "Next page" link and
act(observed) follows it without another model call. Uses your configured model, or an
offline stand-in when none is configured.
"""

from __future__ import annotations

import re

from _offline import StandIn, model_or_stand_in, serve_pages
from playwright.sync_api import sync_playwright
from pydantic import BaseModel

from stagehand_py import Stagehand, launch_chromium


class Product(BaseModel):
    name: str
    price_eur: float


class ProductPage(BaseModel):
    products: list[Product]


def read_products(page_text: str) -> dict[str, object]:
    """The stand-in's extract: the table rows in the page text it was sent."""
    rows = re.findall(r"([A-Z][A-Za-z ]+?)\s*\|\s*(\d+\.\d\d)", page_text)
    return {"products": [{"name": name.strip(), "price_eur": price} for name, price in rows]}


STAND_IN = StandIn(extract=read_products, observe={"next": r"^<a\b[^>]*>Next page"})


def main() -> None:
    with serve_pages() as base_url, sync_playwright() as playwright:
        browser = launch_chromium(playwright.chromium)
        stagehand = Stagehand(llm=model_or_stand_in(STAND_IN))
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
