"""What the model can see (issue 12): the snapshot, act, observe and extract on the pages of
tests/pages/see/.

Each class of page that used to hide its controls from the model comes in two variants; the
plan-following fake finds its element in the prompt by regex, as a model would, so a control
the serializer does not show is a control the act cannot reach.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, Element, Secret, Snapshot
from stagehand_py._async.browser.inspect import take_snapshot
from stagehand_py._async.browser.locate import locate
from stagehand_py.llm._messages import Message
from stagehand_py.prompts.observe import ObserveAnswer
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step, find_element


async def _act(
    page: AsyncPage, url: str, steps: list[Step], instruction: str, **limits: int
) -> AsyncPlanLLM:
    llm = AsyncPlanLLM(steps)
    wrapped = AsyncStagehand(llm=llm, **limits).wrap(page)
    await wrapped.goto(url)
    result = await wrapped.act(instruction, raise_on_failure=False)
    assert result.success, result.message
    return llm


async def open_page(page: AsyncPage, url: str) -> Snapshot:
    await page.goto(url)
    return await take_snapshot(page)


def with_id(snap: Snapshot, element_id: str) -> Element | None:
    found = [e for e in snap.elements if e.attributes.get("id") == element_id]
    return found[0] if found else None


def texts(snap: Snapshot) -> list[str]:
    return [e.text for e in snap.elements]


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


@pytest.mark.no_sync_twin
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


@pytest.mark.no_sync_twin
async def test_clicks_an_aria_hidden_spinner_arrow(async_page: AsyncPage, pages_url: str) -> None:
    llm = await _act(
        async_page,
        pages_url + "see/spinner.html",
        [Step("click", r'title="More stalls tickets" aria-hidden')],
        "add one stalls ticket",
    )
    assert await async_page.input_value("#stalls") == "2"
    assert "More balcony tickets" not in llm.requests[0].text()  # under the sold-out ribbon


@pytest.mark.no_sync_twin
async def test_clicks_aria_hidden_carousel_controls(async_page: AsyncPage, pages_url: str) -> None:
    await _act(
        async_page,
        pages_url + "see/carousel.html",
        [Step("click", r"^<button\b[^>]*aria-hidden>Next")],
        "show the next slide",
    )
    assert await async_page.text_content("#slide-name") == "Showing: Summer bedding plants"


# ---------------------------------------------------------------- inner scrollers


@pytest.mark.no_sync_twin
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


@pytest.mark.no_sync_twin
async def test_reaches_an_old_message_above_a_chat_scrolled_to_the_bottom(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = await _act(
        async_page,
        pages_url + "see/chat_pane.html",
        [Step("click", r'title="Pin message 3"')],
        "pin the message about the release checklist",
        max_section_chars=0,  # one part of the page per prompt, to see their order
    )
    assert await async_page.text_content("#pinned") == (
        "Pinned: The release checklist is in the wiki"
    )
    assert llm.calls >= 3  # sections nearest the visible part came first


# ---------------------------------------------------------------- disabled, hidden children


@pytest.mark.no_sync_twin
async def test_observe_sees_a_disabled_button_as_disabled(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _finder(r"^<button\b[^>]*\bdisabled>Save changes</button>$")
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "see/profile_form.html")
    [result] = await page.observe("the save button")
    assert result.selectors and 'xpath=//*[@id="save"]' in result.selectors


@pytest.mark.no_sync_twin
async def test_observe_reads_a_button_without_its_hidden_tooltip(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _finder(r"^<button\b[^>]*>Need help\?</button>$")
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "see/order_review.html")
    [result] = await page.observe("the help button")
    assert 'xpath=//*[@id="help"]' in result.selectors


# ---------------------------------------------------------------- cross-origin frames


async def _frame_processes(page: AsyncPage) -> int:
    """How many out-of-process frames the page has (Chromium's iframe targets)."""
    cdp = await page.context.new_cdp_session(page)
    try:
        targets = (await cdp.send("Target.getTargets"))["targetInfos"]
    finally:
        await cdp.detach()
    return sum(1 for t in targets if t["type"] == "iframe")


# A second port is another origin but the same site, so Chromium keeps the frame in the
# page's process; "localhost" is another site, so the frame runs out of process (OOPIF).
@pytest.mark.parametrize("site", ["same-site", "other-site"])
@pytest.mark.no_sync_twin
async def test_pays_in_a_card_form_served_from_another_origin(
    async_site_isolated_page: AsyncPage, pages_url: str, other_origin_url: str, site: str
) -> None:
    async_page = async_site_isolated_page
    provider = other_origin_url
    if site == "other-site":
        provider = other_origin_url.replace("//127.0.0.1:", "//localhost:")
    await async_page.goto(f"{pages_url}see/checkout.html?pay={provider}")
    await async_page.frame_locator("#card-frame").locator("button").first.wait_for()
    assert (await _frame_processes(async_page) > 0) == (site == "other-site")
    await _act(
        async_page,
        f"{pages_url}see/checkout.html?pay={provider}",
        [
            Step("fill", r"^<input\b[^>]*cardnumber", ["4242 4242 4242 4242"]),
            Step("click", r"^<button\b[^>]*>Pay 42.00 EUR"),
        ],
        "pay with the card 4242 4242 4242 4242",
    )
    assert await async_page.text_content("#order-status") == "Order confirmed, card ending 4242"


@pytest.mark.no_sync_twin
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
    # The partner's frame is another origin: the value must be allowed there (issue 13).
    email = Secret(secret_values.EMAIL, domains=[pages_url, other_origin_url])
    result = await page.act("subscribe me", variables={"email": email})
    assert result.success, result.message
    assert len(result.actions[0].frame) == 2  # our widget, then the partner's frame
    partner = async_page.frame_locator("#help-widget").frame_locator("#partner-frame")
    assert await partner.locator("#subscribed").text_content() == (
        f"Subscribed: {secret_values.EMAIL}"
    )
    assert not any(secret_values.EMAIL in r.text() for r in llm.requests)


@pytest.mark.no_sync_twin
async def test_observe_then_act_in_a_cross_origin_frame(
    async_page: AsyncPage, pages_url: str, other_origin_url: str
) -> None:
    page = AsyncStagehand(llm=_finder(r"^<button\b[^>]*>Pay 42")).wrap(async_page)
    await page.goto(f"{pages_url}see/checkout.html?pay={other_origin_url}")
    [pay] = await page.observe("the pay button")
    assert pay.frame == ['xpath=//*[@id="card-frame"]']
    await page.act(pay)  # replayed through the frame path: no model call
    assert await async_page.text_content("#order-status") == "Order confirmed, card ending "


@pytest.mark.no_sync_twin
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


# ---------------------------------------------------------------- the snapshot itself


@pytest.mark.no_sync_twin
async def test_icon_only_clickables_are_shown_not_clickable_containers(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "see/mail_icons.html")
    hints = [e.hint for e in snap.elements if e.hint]
    assert hints.count("tool t-del bin-closed") == 3 and hints.count("star star-outline") == 3
    assert all(e.interactive for e in snap.elements if e.hint)
    assert not any("paperclip" in hint for hint in hints)  # decoration: default cursor
    # The rows open a message when clicked, but their text lines are what is shown.
    assert not any(e.tag == "div" for e in snap.elements)
    [sender] = [e for e in snap.elements if e.text == "Grace Hopper"]
    assert not sender.interactive  # its pointer comes from the row
    snap = await open_page(async_page, pages_url + "see/feed_icons.html")
    by_hint: dict[str, Element] = {}
    for icon in (e for e in snap.elements if e.hint):
        by_hint.setdefault(icon.hint.split()[0], icon)  # the first post's
    assert set(by_hint) == {"btn-like", "share-icon", "icon-bookmark", "more-btn"}
    assert by_hint["icon-bookmark"].hint == "icon-bookmark bookmark-add"  # onclick property
    assert by_hint["share-icon"].hint == "share-icon Share this post"  # the SVG's <title>
    assert not any(e.tag == "article" for e in snap.elements)
    more, _ = await locate(async_page, by_hint["more-btn"])  # React props: onClick
    await more.click()
    assert await async_page.text_content("#status") == "Menu of post 1"


@pytest.mark.no_sync_twin
async def test_aria_hidden_controls_are_kept_only_where_they_are_on_top(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "see/spinner.html")
    arrows = [e for e in snap.elements if e.aria_hidden]
    assert [e.attributes["title"] for e in arrows] == [
        "More stalls tickets",
        "Fewer stalls tickets",
    ]
    assert all(e.interactive and e.role == "button" for e in arrows)
    assert with_id(snap, "balcony-up") is None  # under the sold-out ribbon
    assert "Sold out" not in texts(snap)  # aria-hidden text stays out
    snap = await open_page(async_page, pages_url + "see/carousel.html")
    shown = [e.text for e in snap.elements if e.aria_hidden]
    assert [text.strip("\u2039\u203a ") for text in shown] == ["Previous", "Next"]


@pytest.mark.no_sync_twin
async def test_inner_scroller_content_above_and_below_is_kept_nearest_first(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "see/cart_panel.html")
    plus = {e.attributes["title"]: e for e in snap.elements if e.text == "+"}
    assert len(plus) == 12  # scrolled out above the panel, in view, and below it
    above, below = plus["Add one more Oat milk"], plus["Add one more Granola"]
    assert above.chunk < 0 <= below.chunk
    assert snap.chunk_order()[0] == 0
    snap = await open_page(async_page, pages_url + "see/chat_pane.html")
    pins = [e for e in snap.elements if e.text == "Pin"]
    assert len(pins) == 30
    oldest = next(e for e in pins if e.attributes["title"] == "Pin message 1")
    order = snap.chunk_order()
    assert order[0] == 0 and oldest.chunk == min(order) < -1
    assert [abs(c) for c in order] == sorted(abs(c) for c in order)


@pytest.mark.no_sync_twin
async def test_disabled_readonly_long_values_and_hidden_children(
    async_page: AsyncPage, pages_url: str
) -> None:
    snap = await open_page(async_page, pages_url + "see/profile_form.html")
    file_menu = with_id(snap, "file-menu")
    assert file_menu is not None and file_menu.text.strip() == "File"  # not its closed menu
    save = with_id(snap, "save")
    assert save is not None and save.disabled and save.text == "Save changes"
    member = with_id(snap, "member-id")
    assert member is not None and member.readonly and member.interactive
    bio = with_id(snap, "bio")
    assert bio is not None and bio.attributes["value"].endswith("THE-END-OF-BIO")
    line = snap.render_element(bio.index)
    assert "…(+259 chars)" in line and 1000 < len(line) < 1100
    snap = await open_page(async_page, pages_url + "see/order_review.html")
    help_button, place = with_id(snap, "help"), with_id(snap, "place")
    assert help_button is not None and help_button.text == "Need help?"  # tooltip hidden
    assert place is not None and place.text == "Place order"  # badge display:none
    notes = with_id(snap, "notes")
    assert notes is not None
    assert notes.attributes["value"] in snap.render_element(notes.index)  # 260 chars, whole
    terms, coupon = with_id(snap, "terms"), with_id(snap, "apply-coupon")
    assert terms is not None and terms.readonly
    assert coupon is not None and coupon.disabled and coupon.text == "Apply coupon"


@pytest.mark.no_sync_twin
async def test_page_text_cannot_forge_element_lines(async_page: AsyncPage, pages_url: str) -> None:
    snap = await open_page(async_page, pages_url + "see/forged.html")
    lines = snap.render_all().split("\n")
    assert [int(line.split(":", 1)[0]) for line in lines] == [e.index for e in snap.elements]
    page_part = "".join(line.split(":", 1)[1] for line in lines)
    for forged in ("<input id='password'", "<button>Pay", "<button id='admin'", "<a href"):
        assert forged not in page_part, forged


@pytest.mark.no_sync_twin
async def test_redaction_sees_whole_values_before_capping(
    async_page: AsyncPage, pages_url: str
) -> None:
    token = "sk_live_" + "Q7v" * 40  # 128 characters
    await async_page.goto(pages_url + "see/profile_form.html")
    await async_page.fill("#nickname", f"my  token is  {token}")
    snap = await take_snapshot(async_page)
    assert token in snap.render_all()  # under the value budget: not cut to 80 characters

    def redact(text: str) -> str:
        return text.replace(token, "<|TOKEN|>")

    rendered = snap.render_all(redact=redact)
    assert not any(token[i : i + 10] in rendered for i in range(0, 118, 3))
    assert 'value="my token is <|TOKEN|>"' in rendered
