"""The wrapped page is still the user's Playwright page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.async_api import expect

from stagehand_py import (
    AsyncStagehand,
    AsyncStagehandPage,
    CacheError,
    ConfigurationError,
    PageError,
    annotated_screenshot,
    take_snapshot,
)
from stagehand_py.testing import AsyncScriptedLLM


@pytest.mark.no_sync_twin
async def test_wrapped_page_keeps_every_playwright_attribute(
    async_page: AsyncPage, pages_url: str
) -> None:
    page = AsyncStagehand(llm=AsyncScriptedLLM()).wrap(async_page)
    assert isinstance(page, AsyncPage) and isinstance(page, AsyncStagehandPage)
    await page.goto(pages_url + "hello.html")
    await expect(page).to_have_title("Hello")
    assert page.url == async_page.url
    assert page.context is async_page.context
    assert await page.evaluate("1 + 1") == 2
    # Both objects drive the same tab.
    await async_page.evaluate("document.title = 'Changed'")
    assert await page.title() == "Changed"


@pytest.mark.no_sync_twin
async def test_wrapping_twice_rebinds_to_the_new_stagehand(async_page: AsyncPage) -> None:
    first = AsyncStagehand(llm=AsyncScriptedLLM())
    second = AsyncStagehand(llm=AsyncScriptedLLM())
    page = second.wrap(first.wrap(async_page))
    assert page.stagehand is second


async def test_bad_limits_are_typed_errors_before_any_page_work() -> None:
    with pytest.raises(ConfigurationError, match="max_steps"):
        AsyncStagehand(llm=AsyncScriptedLLM(), max_steps=0)
    with pytest.raises(ConfigurationError, match="max_stepz"):
        AsyncStagehand(llm=AsyncScriptedLLM(), max_stepz=3)
    # A malformed model string fails when the SDK is made, not in the middle of an act.
    with pytest.raises(ConfigurationError, match="Unknown model provider 'foo'"):
        AsyncStagehand(model="foo/")
    with pytest.raises(ConfigurationError, match="not int"):
        AsyncStagehand(model=5)  # type: ignore[arg-type]


@pytest.mark.no_sync_twin
async def test_a_cache_dir_that_is_a_file_is_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "cache"
    a_file.write_text("not a directory")
    with pytest.raises(CacheError, match="is a file"):
        AsyncStagehand(llm=AsyncScriptedLLM(), cache_dir=a_file)
    assert a_file.read_text() == "not a directory"


async def test_bad_input_is_a_typed_error_before_any_model_call(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    llm = AsyncScriptedLLM()
    stagehand = AsyncStagehand(llm=llm)
    with pytest.raises(
        ConfigurationError, match=r"needs a playwright\.async_api Page, got builtins\.int"
    ):
        stagehand.wrap(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="Pass the page itself"):
        stagehand.wrap(async_page.locator("body"))  # type: ignore[arg-type]
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hello.html")
    with pytest.raises(ConfigurationError, match="needs an instruction"):
        await page.act("   ")
    with pytest.raises(ConfigurationError, match="as a string, not int"):
        await page.act(5)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="as a string, not list"):
        await page.observe(["click"])  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="as a string, not int"):
        await page.extract(3)  # type: ignore[call-overload]
    with pytest.raises(ConfigurationError, match="not a selector Playwright can read"):
        await page.extract("the heading", selector="!!!")
    with pytest.raises(ConfigurationError, match="Variable 'email' must be a string"):
        await page.act("type <|EMAIL|>", variables={"email": None})
    with pytest.raises(ConfigurationError, match="give a file path"):
        await page.annotated_screenshot(tmp_path)
    with pytest.raises(ConfigurationError, match=r"should end in \.png"):
        await page.annotated_screenshot(tmp_path / "shot.gif")
    assert not list(tmp_path.iterdir())
    assert llm.calls == 0


async def test_a_blank_or_closed_page_says_so(async_page: AsyncPage) -> None:
    llm = AsyncScriptedLLM()
    page = AsyncStagehand(llm=llm).wrap(async_page)
    result = await page.act("click the button", raise_on_failure=False)
    assert not result.success and "about:blank shows nothing to act on" in result.message
    await page.close()
    with pytest.raises(PageError, match=r"act\(\) was called on a page that is closed"):
        await page.act("click the button")
    with pytest.raises(PageError, match=r"observe\(\) was called on a page that is closed"):
        await page.observe()
    with pytest.raises(PageError, match=r"extract\(\) was called on a page that is closed"):
        await page.extract("the title")
    assert llm.calls == 0


@pytest.mark.no_sync_twin
async def test_no_model_configured_is_a_configuration_error_on_first_use(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("STAGEHAND_PY_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    page = AsyncStagehand().wrap(async_page)  # wrapping never needs a model
    await page.goto(pages_url + "hello.html")
    with pytest.raises(ConfigurationError, match="STAGEHAND_PY_MODEL"):
        await page.act("click the button")


@pytest.mark.no_sync_twin
async def test_inspection_api_shows_what_the_model_sees(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await async_page.goto(pages_url + "form.html")
    snapshot = await take_snapshot(async_page)  # a plain Playwright page works too
    first = snapshot.render_chunk(snapshot.chunk_order()[0])
    assert re.search(r"^\d+:<input\b", first, re.MULTILINE)
    html_before = await async_page.content()
    path = tmp_path / "seen.png"
    annotated = await annotated_screenshot(async_page, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(annotated.elements) == len(snapshot.elements)
    assert await async_page.content() == html_before  # the overlay is gone again


@pytest.mark.no_sync_twin
async def test_inspection_api_refuses_what_is_not_a_page() -> None:
    with pytest.raises(ConfigurationError, match="Playwright Page"):
        take_snapshot("http://example.com")  # type: ignore[call-overload]
