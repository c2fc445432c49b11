"""``cache_url=``: which part of the page URL keys a cache entry, on real acts.

The pages come from two made-up hosts (answered by a route from tests/pages), so the origin
is not a loopback one and ``"path"`` differs from the default ``"auto"``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage
from playwright.async_api import Route as AsyncRoute

from stagehand_py import AsyncStagehand, CacheMissError
from tests._async.plan_llm import AsyncPlanLLM, Step

FORM = Path(__file__).resolve().parent.parent / "pages" / "form.html"
EU = "http://eu.shop.test/signup?lang=en"
US = "http://us.shop.test/signup?lang=en"
SUBMIT = "submit the signup form"


async def _serve_form(page: AsyncPage) -> None:
    async def answer(route: AsyncRoute) -> None:
        await route.fulfill(path=FORM, content_type="text/html; charset=utf-8")

    await page.route(lambda url: ".shop.test/" in url, answer)


@pytest.mark.no_sync_twin
async def test_cache_url_path_keys_entries_by_path_on_every_host(
    async_page: AsyncPage, tmp_path: Path
) -> None:
    await _serve_form(async_page)
    first = AsyncStagehand(
        llm=AsyncPlanLLM([Step("click", r"^<button\b[^>]*>.*Submit")]),
        cache_dir=tmp_path,
        cache_url="path",
    )
    page = first.wrap(async_page)
    await page.goto(EU)
    assert (await page.act(SUBMIT)).cache == "miss"
    [entry] = [json.loads(p.read_text("utf-8")) for p in tmp_path.glob("*.json")]
    assert entry["url"] == "/signup?lang=en"  # no host in the key

    # Another host, same path: the entry replays with no model call.
    silent = AsyncPlanLLM([])
    replay = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_url="path", cache_mode="require")
    again = replay.wrap(async_page)
    await again.goto(US)
    result = await again.act(SUBMIT)
    assert result.cache == "hit" and silent.calls == 0
    assert await again.locator("#result").get_attribute("data-submitted") == "true"

    # By default ("auto") only a loopback origin is dropped: this host is part of the key.
    strict = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require")
    other = strict.wrap(async_page)
    await other.goto(US)
    with pytest.raises(CacheMissError):
        await other.act(SUBMIT)
    assert silent.calls == 0
