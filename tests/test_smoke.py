from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Page


def test_sync(page: Page, pages_url: str) -> None:
    page.goto(pages_url + "hello.html")
    assert page.title() == "Hello"


async def test_async(async_page: AsyncPage, pages_url: str) -> None:
    await async_page.goto(pages_url + "hello.html")
    assert await async_page.title() == "Hello"


def test_sync_again(page: Page, pages_url: str) -> None:
    page.goto(pages_url + "hello.html")
    assert page.title() == "Hello"
