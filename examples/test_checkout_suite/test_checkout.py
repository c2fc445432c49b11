"""A checkout suite mixing plain Playwright steps, act(), observe(), extract() and check().

Run it from this directory with a model: ``OPENAI_API_KEY=sk-... pytest``; with none,
``python ../offline/run.py -m pytest``. Record once with ``--stagehand-cache-dir=.stagehand-cache``,
then run with ``--stagehand-cache-mode=require`` too: the acts, observes, extracts and checks
replay with no model call.
"""

from __future__ import annotations

from playwright.sync_api import expect
from pydantic import BaseModel

from stagehand_py import StagehandPage

CUSTOMER = {"name": "Lin Wei", "email": "lin@example.net", "card": "4000 0000 0000 4242"}


class Mug(BaseModel):
    name: str
    price_eur: float


class Catalogue(BaseModel):
    mugs: list[Mug]


def test_buys_a_blue_mug_with_express_delivery(stagehand_page: StagehandPage, shop_url: str):
    stagehand_page.goto(shop_url + "shop.html")  # plain Playwright
    stagehand_page.act("add the blue mug to the cart")  # plain language
    stagehand_page.check("the cart shows 1 item")  # a plain-language assertion

    stagehand_page.get_by_role("button", name="Checkout").click()
    stagehand_page.act(
        "fill the shipping form with <|NAME|>, <|EMAIL|> and card <|CARD|>, express delivery",
        variables=CUSTOMER,  # values are typed locally; the model sees only the names
    )
    stagehand_page.get_by_role("button", name="Place order").click()
    expect(stagehand_page.locator("#confirmation")).to_have_text(  # Playwright's own assertion
        "Order confirmed for Lin Wei: Blue mug, express delivery, card ending 4242."
    )


def test_every_mug_can_be_added_to_the_cart(stagehand_page: StagehandPage, shop_url: str):
    stagehand_page.goto(shop_url + "shop.html")
    buttons = stagehand_page.observe("the add to cart buttons")
    assert len(buttons) == 3
    for button in buttons:
        stagehand_page.act(button)  # an observed action runs with no model call
    stagehand_page.check("the cart shows 3 items")


def test_the_catalogue_lists_every_mug_with_its_price(stagehand_page: StagehandPage, shop_url: str):
    stagehand_page.goto(shop_url + "shop.html")
    catalogue = stagehand_page.extract("every mug and its price", schema=Catalogue)
    assert [(mug.name, mug.price_eur) for mug in catalogue.mugs] == [
        ("Blue mug", 14.0),
        ("Red mug", 15.0),
        ("Travel mug", 21.0),
    ]
