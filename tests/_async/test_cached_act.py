"""The action cache end to end: miss, hit with zero model calls, heal, removal, secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import ActError, AsyncStagehand
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

FORM_STEPS = [
    Step("fill", r"^<input\b[^>]*first", ["Ada"]),
    Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
    Step("fill", r"^<input\b[^>]*password", ["<|PASSWORD|>"]),
    Step("click", r"^<button\b[^>]*>.*Submit"),
]
VARIABLES = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
INSTRUCTION = "fill the signup form with <|EMAIL|> and <|PASSWORD|> and submit it"


async def _first_run(page: AsyncPage, url: str, cache_dir: Path) -> AsyncStagehand:
    stagehand = AsyncStagehand(llm=AsyncPlanLLM(FORM_STEPS), cache_dir=cache_dir)
    wrapped = stagehand.wrap(page)
    await wrapped.goto(url)
    result = await wrapped.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "miss" and result.success
    return stagehand


async def test_second_run_replays_with_zero_model_calls(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    stored = json.loads(entry_file.read_text("utf-8"))
    assert [a["method"] for a in stored["actions"]] == ["fill", "fill", "fill", "click"]
    assert all(len(a["selectors"]) >= 2 for a in stored["actions"])
    assert stored["actions"][1]["arguments"] == ["<|EMAIL|>"]
    assert stored["actions"][1]["fingerprint"]["tag"] == "input"

    other_email = "grace@navy.test"
    replayer = AsyncPlanLLM([])  # any model call would be visible in .calls
    stagehand = AsyncStagehand(llm=replayer, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables={**VARIABLES, "email": other_email})
    assert result.success and result.cache == "hit"
    assert replayer.calls == 0 and result.llm_calls == 0
    assert other_email in await page.locator("#result").inner_text()
    assert stagehand.cache is not None and stagehand.cache.stats.hits == 1


async def test_a_changed_page_heals_and_rewrites_the_entry(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    [entry_file] = list(tmp_path.glob("*.json"))
    before = json.loads(entry_file.read_text("utf-8"))

    healer = AsyncPlanLLM(FORM_STEPS[2:])  # the model only needs to redo what broke
    stagehand = AsyncStagehand(llm=healer, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    # A redesign renamed the password field: its cached selectors and fingerprint fail.
    await page.evaluate(
        """() => {
            const old = document.querySelector('input[type=password]');
            const box = document.createElement('div');
            const field = old.cloneNode();
            field.id = 'secret-v2'; field.name = 'secret_v2';
            field.setAttribute('placeholder', 'Your password');
            box.append(field); old.replaceWith(box);
            const label = document.querySelector('label[for="' + old.id + '"]');
            if (label) label.htmlFor = 'secret-v2';
        }"""
    )
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.success, result.message
    assert result.cache == "healed" and result.healed
    assert "healed" in result.message.lower()
    assert healer.calls >= 1
    after = json.loads(entry_file.read_text("utf-8"))
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] != before["updated_at"]
    assert any("secret" in s for s in after["actions"][2]["selectors"])
    assert stagehand.cache is not None and stagehand.cache.stats.healed == 1


async def test_failed_acts_never_write(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    stagehand = AsyncStagehand(llm=AsyncPlanLLM([Step("click", "not there")]), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "form.html")
    with pytest.raises(ActError):
        await page.act("press the launch button")
    assert list(tmp_path.iterdir()) == []


async def test_a_replay_that_cannot_heal_removes_its_entry(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    stagehand = AsyncStagehand(llm=AsyncPlanLLM([Step("click", "nothing")]), cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(url)
    await page.evaluate("() => document.querySelector('form').remove()")
    with pytest.raises(ActError) as caught:
        await page.act(INSTRUCTION, variables=VARIABLES)
    assert "stale cache entry removed" in caught.value.result.message
    assert list(tmp_path.glob("*.json")) == []


async def test_no_variable_value_is_ever_written_to_the_cache(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    await _first_run(async_page, pages_url + "form.html", tmp_path)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in secret_values.ALL:
                assert secret.encode() not in data, path


async def test_a_hit_needs_no_model_configured_at_all(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pages_url + "form.html"
    await _first_run(async_page, url, tmp_path)
    for name in ("STAGEHAND_PY_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    page = AsyncStagehand(cache_dir=tmp_path).wrap(async_page)  # CI without a key
    await page.goto(url)
    result = await page.act(INSTRUCTION, variables=VARIABLES)
    assert result.cache == "hit" and result.llm_calls == 0
