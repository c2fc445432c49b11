"""A cached replay that types a variable proves where the field's form sends in the fill itself.

The step's element check reads, in the page's world, whether the field's form stays on the
page's origin (one XPath condition). Where it does, the fill goes through the field with that
condition attached: Playwright's isolated world proves it again in the query that types the
value, so no separate read is needed, and a page whose own world lies gets nothing typed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, CacheMissError
from stagehand_py._async.browser.scripts import run_page_script
from stagehand_py._async.browser.secret_guard import STAYS_HOME
from stagehand_py.cache._fingerprint import load_fingerprint_js
from tests import secret_values
from tests._async.isolated_reads import count_isolated_reads
from tests._async.plan_llm import AsyncPlanLLM, Step

# Per page: each field id, and whether its form sends only to the page's own origin.
# Top-document fields only: the condition is used for nothing else.
FIELDS = {
    "targets/own.html": {
        "no-action": True, "no-form": True, "blank-action": True, "rooted-path": True,
        "relative-path": True,
    },
    "hostile/lying_form.html": {"member-email": True},
    "targets/far.html": {
        "absolute": False, "protocol-relative": False, "backslash": False, "tab": False,
        "newline": False, "owned-elsewhere": False,
    },
    "targets/formaction.html": {"inside": False, "outside": False},
    "targets/base.html": {"rooted": False, "relative": False},
    "targets/disguised_owner.html": {"email": False},
}  # fmt: skip


async def _page_world_says(page: AsyncPage, xpath: str) -> Any:
    asked = {"xpaths": [xpath], "facts": True, "guard": STAYS_HOME.removeprefix("xpath=")}
    encoded = await run_page_script(page, "fingerprint", load_fingerprint_js(), asked)
    [answer] = json.loads(encoded)
    return answer["facts"]["home"]


@pytest.mark.parametrize("path", FIELDS)
@pytest.mark.no_sync_twin
async def test_the_condition_holds_in_both_worlds_exactly_where_the_form_stays_home(
    async_page: AsyncPage, pages_url: str, path: str
) -> None:
    await async_page.goto(pages_url + path)
    found: dict[str, tuple[int, Any]] = {}
    for field in FIELDS[path]:
        xpath = f"//*[@id='{field}']"
        proven = await async_page.locator(f"xpath={xpath}").locator(STAYS_HOME).count()
        found[field] = proven, await _page_world_says(async_page, xpath)

    assert found == {field: (1 if stays else 0, stays) for field, stays in FIELDS[path].items()}


# (page, field id, what the recorded step matches in the snapshot)
OWN_ORIGIN_FORMS = [
    ("hostile/lying_form.html", "member-email", r"^<input\b[^>]*email"),
    ("targets/own.html", "rooted-path", r"^<input\b[^>]*rooted-path"),
]


async def _record(page: AsyncPage, url: str, pattern: str, cache_dir: Path) -> None:
    recorder = AsyncStagehand(llm=AsyncPlanLLM([Step("fill", pattern, ["<|EMAIL|>"])]),
                              cache_dir=cache_dir).wrap(page)  # fmt: skip
    await recorder.goto(url)
    first = await recorder.act("type <|EMAIL|> as the email", variables=_variables())
    assert first.cache == "miss" and first.success, first.message


def _variables() -> dict[str, str]:
    return {"email": secret_values.EMAIL}


@pytest.mark.parametrize(("path", "field", "pattern"), OWN_ORIGIN_FORMS)
@pytest.mark.no_sync_twin
async def test_a_replayed_fill_proves_its_form_with_no_read_of_its_own(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    path: str,
    field: str,
    pattern: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _record(async_page, pages_url + path, pattern, tmp_path)
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(pages_url + path)
    reads = count_isolated_reads(monkeypatch)

    result = await page.act("type <|EMAIL|> as the email", variables=_variables())

    assert result.cache == "hit" and result.success and silent.calls == 0
    assert reads == []
    assert await async_page.locator(f"#{field}").input_value() == secret_values.EMAIL


@pytest.mark.parametrize("lie", ["lie-evaluate", "lie-result"])
@pytest.mark.no_sync_twin
async def test_a_page_whose_own_world_lies_about_its_form_gets_nothing_typed(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, lie: str
) -> None:
    url = pages_url + "hostile/lying_form.html"
    await _record(async_page, url, r"^<input\b[^>]*email", tmp_path)
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto("about:blank")
    await page.goto(f"{url}#{lie}")
    assert await _page_world_says(async_page, "//*[@id='member-email']") is True  # the lie
    assert "collect.invalid" in await async_page.eval_on_selector("#member", "f => f.action")

    with pytest.raises(CacheMissError) as missed:
        await page.act("type <|EMAIL|> as the email", variables=_variables(), action_timeout_ms=500)

    assert missed.value.reason == "stale", missed.value
    assert "not proven to send to this page's origin" in str(missed.value)
    assert secret_values.EMAIL not in str(missed.value)
    assert await async_page.locator("#member-email").input_value() == ""
    assert silent.calls == 0
