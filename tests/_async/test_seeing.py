"""What the model can see (issue 12): act, observe and extract on the pages of tests/pages/see/.

Each class of page that used to hide its controls from the model comes in two variants; the
plan-following fake finds its element in the prompt by regex, as a model would, so a control
the serializer does not show is a control the act cannot reach.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand
from stagehand_py.llm._messages import Message
from stagehand_py.prompts.observe import ObserveAnswer
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element


async def _act(page: AsyncPage, url: str, steps: list[Step], instruction: str) -> AsyncPlanLLM:
    llm = AsyncPlanLLM(steps)
    wrapped = AsyncStagehand(llm=llm).wrap(page)
    await wrapped.goto(url)
    result = await wrapped.act(instruction, raise_on_failure=False)
    assert result.success, result.message
    return llm


def _finder(pattern: str) -> AsyncFunctionLLM:
    """An observe model that returns the first line of its page text matching ``pattern``."""

    def structured(messages: list[Message], schema: type[BaseModel]) -> Any:
        assert schema is ObserveAnswer
        number = find_element(messages[-1].content, pattern)
        found = [] if number is None else [{"element": number, "description": pattern}]
        return {"elements": found}

    return AsyncFunctionLLM(structured=structured)


# ---------------------------------------------------------------- icon-only clickables


async def test_clicks_an_icon_drawn_by_content_url(async_page: AsyncPage, pages_url: str) -> None:
    # The trash can of a mail row: a text-less span, drawn by CSS, clickable by script only.
    await _act(
        async_page,
        pages_url + "see/mail_icons.html",
        [Step("click", r'^<span hint="[^"]*bin-closed')],
        "delete the first message",
    )
    assert await async_page.text_content("#status") == "Deleted: Quarterly report"


async def test_clicks_background_image_and_svg_icons(async_page: AsyncPage, pages_url: str) -> None:
    await _act(
        async_page,
        pages_url + "see/feed_icons.html",
        [
            Step("click", r'^<span hint="[^"]*heart', completed=False),
            Step("click", r'^<svg hint="[^"]*Share this post'),
        ],
        "like and share Ada's post",
    )
    assert await async_page.text_content("#status") == "Shared post 1"


# ---------------------------------------------------------------- aria-hidden controls


async def test_clicks_an_aria_hidden_spinner_arrow(async_page: AsyncPage, pages_url: str) -> None:
    llm = await _act(
        async_page,
        pages_url + "see/spinner.html",
        [Step("click", r'title="More stalls tickets" aria-hidden')],
        "add one stalls ticket",
    )
    assert await async_page.input_value("#stalls") == "2"
    assert "More balcony tickets" not in llm.requests[0].text()  # under the sold-out ribbon


async def test_clicks_aria_hidden_carousel_controls(async_page: AsyncPage, pages_url: str) -> None:
    await _act(
        async_page,
        pages_url + "see/carousel.html",
        [Step("click", r"^<button\b[^>]*aria-hidden>Next")],
        "show the next slide",
    )
    assert await async_page.text_content("#slide-name") == "Showing: Summer bedding plants"


# ---------------------------------------------------------------- inner scrollers


async def test_reaches_a_button_scrolled_out_above_a_cart_panel(
    async_page: AsyncPage, pages_url: str
) -> None:
    await _act(
        async_page,
        pages_url + "see/cart_panel.html",
        [Step("click", r'title="Add one more Oat milk"')],
        "add another oat milk",
    )
    assert await async_page.text_content("#cart-status") == "Oat milk: 2"


async def test_reaches_an_old_message_above_a_chat_scrolled_to_the_bottom(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = await _act(
        async_page,
        pages_url + "see/chat_pane.html",
        [Step("click", r'title="Pin message 3"')],
        "pin the message about the release checklist",
    )
    assert await async_page.text_content("#pinned") == (
        "Pinned: The release checklist is in the wiki"
    )
    assert llm.calls >= 3  # sections nearest the visible part came first


# ---------------------------------------------------------------- disabled, hidden children


async def test_observe_sees_a_disabled_button_as_disabled(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _finder(r"^<button\b[^>]*\bdisabled>Save changes</button>$")
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "see/profile_form.html")
    [result] = await page.observe("the save button")
    assert result.selectors and 'xpath=//*[@id="save"]' in result.selectors


async def test_observe_reads_a_button_without_its_hidden_tooltip(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _finder(r"^<button\b[^>]*>Need help\?</button>$")
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "see/order_review.html")
    [result] = await page.observe("the help button")
    assert 'xpath=//*[@id="help"]' in result.selectors


# ---------------------------------------------------------------- cross-origin frames


async def test_pays_in_a_card_form_served_from_another_origin(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    await _act(
        async_page,
        f"{pages_url}see/checkout.html?pay={other_origin_url}",
        [
            Step("fill", r"^<input\b[^>]*cardnumber", ["4242 4242 4242 4242"]),
            Step("click", r"^<button\b[^>]*>Pay 42.00 EUR"),
        ],
        "pay with the card 4242 4242 4242 4242",
    )
    assert await async_page.text_content("#order-status") == "Order confirmed, card ending 4242"


async def test_fills_a_cross_origin_form_nested_in_a_same_origin_frame(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", r"^<input\b[^>]*news-email", ["<|EMAIL|>"]),
            Step("click", r"^<button\b[^>]*>Subscribe"),
        ]
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(f"{pages_url}see/help_center.html?partner={other_origin_url}")
    result = await page.act("subscribe me", variables={"email": secret_values.EMAIL})
    assert result.success, result.message
    assert len(result.actions[0].frame) == 2  # our widget, then the partner's frame
    partner = async_page.frame_locator("#help-widget").frame_locator("#partner-frame")
    assert await partner.locator("#subscribed").text_content() == (
        f"Subscribed: {secret_values.EMAIL}"
    )
    assert not any(secret_values.EMAIL in r.text() for r in llm.requests)


async def test_observe_then_act_in_a_cross_origin_frame(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    page = AsyncStagehand(llm=_finder(r"^<button\b[^>]*>Pay 42")).wrap(async_page)
    await page.goto(f"{pages_url}see/checkout.html?pay={other_origin_url}")
    [pay] = await page.observe("the pay button")
    assert pay.frame == ['xpath=//*[@id="card-frame"]']
    await page.act(pay)  # replayed through the frame path: no model call
    assert await async_page.text_content("#order-status") == "Order confirmed, card ending "


async def test_extract_reads_text_inside_cross_origin_frames(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    page = AsyncStagehand(llm=AsyncFunctionLLM()).wrap(async_page)
    await page.goto(f"{pages_url}see/checkout.html?pay={other_origin_url}")
    text = await page.extract()
    assert "Amount due: 42.00 EUR" in text
    assert text.index("Payment") < text.index("Amount due") < text.index("Waiting for payment")
    await page.goto(f"{pages_url}see/help_center.html?partner={other_origin_url}")
    assert "Issue 17: packing fragile things" in await page.extract()
