"""A checkout suite mixing plain Playwright steps, act() and expect().

Run it from this directory: ``pytest`` (offline: the plan in conftest.py answers), or
``STAGEHAND_PY_MODEL=openai/gpt-4.1-mini pytest`` with a real model.
"""

from __future__ import annotations

from playwright.sync_api import expect

from stagehand_py import StagehandPage

CUSTOMER = {"name": "Lin Wei", "email": "lin@example.net", "card": "4000 0000 0000 4242"}


def test_buys_a_blue_mug_with_express_delivery(stagehand_page: StagehandPage, shop_url: str):
    stagehand_page.goto(shop_url + "shop.html")  # plain Playwright
    stagehand_page.act("add the blue mug to the cart")  # plain language
    expect(stagehand_page.locator("#cart-count")).to_have_text("1")

    stagehand_page.get_by_role("button", name="Checkout").click()
    stagehand_page.act(
        "fill the shipping form with <|NAME|>, <|EMAIL|> and card <|CARD|>, express delivery",
        variables=CUSTOMER,  # values are typed locally; the model sees only the names
    )
    stagehand_page.get_by_role("button", name="Place order").click()
    expect(stagehand_page.locator("#confirmation")).to_have_text(
        "Order confirmed for Lin Wei: Blue mug, express delivery, card ending 4242."
    )


def test_every_mug_can_be_added_to_the_cart(stagehand_page: StagehandPage, shop_url: str):
    stagehand_page.goto(shop_url + "shop.html")
    buttons = stagehand_page.observe("the add to cart buttons")
    assert len(buttons) == 3
    for button in buttons:
        stagehand_page.act(button)  # an observed action runs with no model call
    expect(stagehand_page.locator("#cart-count")).to_have_text("3")
