"""Stored selectors back to one Playwright locator: first unique match wins."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ElementNotFoundError
from stagehand_py._async.browser.inspect import take_snapshot
from stagehand_py._async.browser.locate import frame_scope, locate, locate_selectors


async def test_first_selector_matching_exactly_one_wins(
    async_page: AsyncPage, pages_url: str
) -> None:
    await async_page.goto(pages_url + "form.html")
    selectors = [
        "xpath=//*[@id='no-such-element']",  # gone
        "css=input",  # ambiguous
        "xpath=//[",  # malformed
        "css=#email",
        "css=#phone",
    ]
    locator, used = await locate_selectors(async_page, [], selectors)
    assert used == "css=#email"
    assert await locator.get_attribute("name") == "email"


@pytest.mark.no_sync_twin
async def test_nothing_resolves_names_what_was_tried(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "form.html")
    selectors = ["xpath=//*[@id='missing']", "css=input"]
    with pytest.raises(ElementNotFoundError) as caught:
        await locate_selectors(async_page, [], selectors)
    message = str(caught.value)
    assert "xpath=//*[@id='missing'] (0 matches)" in message
    assert "css=input (" in message and "matches)" in message
    assert "fresh snapshot" in message
    assert caught.value.selectors == selectors


@pytest.mark.no_sync_twin
async def test_no_selectors_at_all(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "hello.html")
    with pytest.raises(ElementNotFoundError, match="no selectors were stored"):
        await locate_selectors(async_page, [], [])


@pytest.mark.no_sync_twin
async def test_frame_path_scopes_selectors(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "frames.html")
    frame = ["css=#outer-frame", "css=#inner-frame"]
    scope = await frame_scope(async_page, frame)
    assert await scope.locator("#frame-input").count() == 1
    assert await async_page.locator("#frame-input").count() == 0  # not in the top document
    locator, used = await locate_selectors(async_page, frame, ["css=#frame-input"])
    assert used == "css=#frame-input"
    await locator.fill("via frame path")
    assert await locator.input_value() == "via frame path"
    with pytest.raises(ElementNotFoundError, match="inside frame css=#outer-frame > css=#inner"):
        await locate_selectors(async_page, frame, ["css=#email"])


@pytest.mark.no_sync_twin
async def test_locate_snapshot_element(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "dropdowns.html")
    snap = await take_snapshot(async_page)
    [size] = [e for e in snap.elements if e.attributes.get("id") == "size"]
    locator, used = await locate(async_page, size)
    assert used == size.selectors[0]
    await locator.select_option("Large")
    assert await async_page.text_content("#size-value") == "l"
