"""Live fingerprints (dom/fingerprint/) agree with the ones built from the serializer's elements."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py._async.browser.inspect import take_snapshot
from stagehand_py._async.browser.locate import locate
from stagehand_py._async.cache.fingerprint import fingerprint_of_locator, locate_fingerprinted
from stagehand_py._errors import ElementNotFoundError, PageError
from stagehand_py.cache import ElementFingerprint
from stagehand_py.cache._fingerprint import fingerprint_from_element
from tests import secret_values

FORM = """
<h1>Create   your account</h1>
<form>
  <label for="email">Email</label>
  <input id="email" type="email" placeholder="you@example.com">
  <input name="password" type="password" aria-label="Password">
  <textarea data-testid="bio">About me</textarea>
  <select id="plan"><option>Free</option><option>Pro</option></select>
  <input type="checkbox" id="terms"><label for="terms">I agree to the terms</label>
  <div contenteditable="true" id="note">draft</div>
  <a href="/help?topic=signup">Need help signing up? Read the long guide on accounts,
     passwords, two-factor codes, recovery e-mails and everything else that can go wrong</a>
  <button type="submit">Sign <b>up</b></button>
  <div role="button" tabindex="0" aria-label="Close dialog">x</div>
</form>
"""


@pytest.mark.no_sync_twin
async def test_live_fingerprints_equal_serialized_ones(async_page: AsyncPage) -> None:
    await async_page.set_content(FORM)
    snapshot = await take_snapshot(async_page)
    checked = 0
    for element in snapshot.elements:
        if element.tag == "#text" or not element.interactive:
            continue
        locator, _ = await locate(async_page, element)
        live = await fingerprint_of_locator(locator)
        assert live == fingerprint_from_element(element), element.tag
        assert live.matches(fingerprint_from_element(element))
        checked += 1
    assert checked >= 8


@pytest.mark.no_sync_twin
async def test_live_fingerprint_of_a_filled_input_holds_no_value(async_page: AsyncPage) -> None:
    await async_page.set_content(FORM)
    await async_page.fill("#email", secret_values.EMAIL)
    await async_page.fill("[name=password]", secret_values.PASSWORD)
    await async_page.fill("#note", secret_values.PHONE)
    for selector in ("#email", "[name=password]", "#note"):
        dumped = (await fingerprint_of_locator(async_page.locator(selector))).model_dump_json()
        assert not any(value in dumped for value in secret_values.ALL)
    email = await fingerprint_of_locator(async_page.locator("#email"))
    assert email == ElementFingerprint(
        tag="input",
        role="textbox",
        name="you@example.com",
        attributes={"id": "email", "type": "email", "placeholder": "you@example.com"},
    )


@pytest.mark.no_sync_twin
async def test_a_replaced_element_no_longer_matches(async_page: AsyncPage) -> None:
    await async_page.set_content(FORM)
    button = async_page.locator("form > button")
    stored = await fingerprint_of_locator(button)
    assert stored.name == "Sign up" and stored.role == "button"
    await button.evaluate("b => { b.textContent = 'Sign up today'; }")
    assert stored.matches(await fingerprint_of_locator(button))  # same button, new wording
    await button.evaluate("b => { b.textContent = 'Delete account'; }")
    assert not stored.matches(await fingerprint_of_locator(button))  # another button now


async def test_a_vanished_element_is_a_page_error(async_page: AsyncPage) -> None:
    await async_page.set_content(FORM)
    button = async_page.locator("form > button")
    await button.evaluate("b => b.remove()")
    with pytest.raises(PageError, match="page changed"):
        await fingerprint_of_locator(button, timeout_ms=200)


EMAIL_SELECTORS = ["xpath=/html/body/form/input[1]", "xpath=//*[@id='email']"]
PROMO = '<input id="promo" placeholder="Promo code">'


@pytest.mark.no_sync_twin
async def test_locate_passes_over_a_selector_that_now_finds_another_element(
    async_page: AsyncPage,
) -> None:
    await async_page.set_content(FORM)
    stored = await fingerprint_of_locator(async_page.locator("#email"))
    locator, selector = await locate_fingerprinted(async_page, [], EMAIL_SELECTORS, stored)
    assert selector == EMAIL_SELECTORS[0]  # most exact first while the page is unchanged
    # A field inserted above: the positional path now finds it, the id-anchored one does not.
    await async_page.locator("form").evaluate(
        "(f, html) => f.insertAdjacentHTML('afterbegin', html)", PROMO
    )
    locator, selector = await locate_fingerprinted(async_page, [], EMAIL_SELECTORS, stored)
    assert selector == EMAIL_SELECTORS[1]
    assert await locator.get_attribute("id") == "email"


@pytest.mark.no_sync_twin
async def test_locate_fails_when_no_selector_finds_the_element(async_page: AsyncPage) -> None:
    await async_page.set_content(FORM)
    stored = await fingerprint_of_locator(async_page.locator("#email"))
    await async_page.locator("#email").evaluate("(el, html) => { el.outerHTML = html; }", PROMO)
    with pytest.raises(ElementNotFoundError) as raised:
        await locate_fingerprinted(async_page, [], EMAIL_SELECTORS, stored)
    message = str(raised.value)
    assert "a different element: <input> 'Promo code'" in message and "(0 matches)" in message
    assert '<input role=textbox> "you@example.com"' in message
    # Without a fingerprint (a page-level step) the first unique selector is enough.
    _, selector = await locate_fingerprinted(async_page, [], EMAIL_SELECTORS, None)
    assert selector == EMAIL_SELECTORS[0]


async def test_locate_counts_xpaths_as_playwright_does(async_page: AsyncPage) -> None:
    # Top-document XPaths are checked in one page.evaluate of our own (fewer round trips on
    # replay); what it counts must be what Playwright's engine would act on.
    await async_page.set_content(FORM)
    stored = await fingerprint_of_locator(async_page.locator("#terms"))
    selectors = [
        "xpath=//input[",  # malformed: passed over with its error
        "xpath=//label",  # two labels
        "xpath=//h1/text()",  # a text node, no element
        "xpath=//form >> css=#email",  # a chain: left to Playwright, finds another element
        "xpath=//*[@id='terms']",
    ]
    for selector in selectors[1:]:
        expected = {"xpath=//label": 2, "xpath=//h1/text()": 0}.get(selector, 1)
        assert await async_page.locator(selector).count() == expected
    _, selector = await locate_fingerprinted(async_page, [], selectors, stored)
    assert selector == selectors[-1]
    with pytest.raises(ElementNotFoundError) as raised:
        await locate_fingerprinted(async_page, [], selectors[:-1], stored)
    message = str(raised.value)
    assert "xpath=//input[ (error: " in message
    assert "xpath=//label (2 matches)" in message
    assert "xpath=//h1/text() (0 matches)" in message
    assert "xpath=//form >> css=#email (a different element: <input> " in message
