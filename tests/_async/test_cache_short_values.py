"""A short variable value ("3", "12345", "Al") is cached like a long one: placeholders where
it showed (the URL, an element's name, a positional selector), no form of it in the file, and
replayed with no model call. An act whose entry cannot be stored safely says so on its result.
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests._async.test_check import _model as check_model

STEPS = [
    Step("fill", r'^<input\b[^>]*id="entry"', ["<|ENTRY|>"], completed=False),
    Step("click", r"^<button\b[^>]*>Confirm"),
]
INSTRUCTION = "enter <|ENTRY|> and confirm"
_OURS = frozenset({"key", "created_at", "updated_at", "format_version"})  # hex and dates


def _texts(data: Any) -> Iterator[str]:
    """Every text of a cache file's JSON, keys included, less our digest and timestamps."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            if key not in _OURS:
                yield key
                yield from _texts(value)
    elif isinstance(data, list):
        for value in data:
            yield from _texts(value)


def _forms_found(directory: Path, value: str) -> list[str]:
    """Texts of the cache files under ``directory`` holding ``value`` as a word, in any case,
    as written, percent-, entity- or JSON-encoded (for a value of 5 characters or more, also
    inside a longer word)."""
    forms = {value, quote(value, safe=""), quote_plus(value), html.escape(value)}
    forms.add(json.dumps(value)[1:-1])
    edge = "" if len(value) >= 5 else r"(?<![0-9a-z])"
    tail = "" if len(value) >= 5 else r"(?![0-9a-z])"
    patterns = [re.compile(edge + re.escape(form.casefold()) + tail) for form in forms]
    found = []
    for path in directory.rglob("*.json"):
        for text in _texts(json.loads(path.read_text("utf-8"))):
            if any(pattern.search(text.casefold()) for pattern in patterns):
                found.append(text)
    return found


@pytest.mark.parametrize("value", ["3", "12345", "Al"], ids=["quantity", "zip", "name"])
@pytest.mark.no_sync_twin(keep=["name"])
async def test_a_short_value_is_cached_as_placeholders_and_replayed(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, value: str
) -> None:
    url = f"{pages_url}hostile/short_values.html?echo={value}"
    llm = AsyncPlanLLM(STEPS)
    page = AsyncStagehand(llm=llm, cache_dir=tmp_path).wrap(async_page)
    await page.goto(url)
    first = await page.act(INSTRUCTION, variables={"entry": value})

    assert first.success, first.message
    assert first.cache == "miss" and first.not_cached is None and not first.notes
    [entry_file] = list(tmp_path.glob("*.json"))
    assert _forms_found(tmp_path, value) == []
    stored = json.loads(entry_file.read_text("utf-8"))
    # Where the value showed, the file holds its placeholder.
    assert stored["url"].endswith("?echo=<|ENTRY|>")
    assert stored["actions"][1]["fingerprint"]["name"] == "Confirm <|ENTRY|>"
    if value == "3":  # the field is the third block: its position is written 5-2
        assert stored["actions"][0]["selectors"][0].endswith("/div[5-2]/input[1]")

    replayer = AsyncPlanLLM([])  # any model call would show in .calls
    page = AsyncStagehand(llm=replayer, cache_dir=tmp_path).wrap(async_page)
    await page.goto(url)
    again = await page.act(INSTRUCTION, variables={"entry": value})

    assert again.success and again.cache == "hit", again.message
    assert replayer.calls == 0 and again.llm_calls == 0
    assert await page.locator("#status").inner_text() == f"Confirmed: {value}"
    if value == "3":
        assert again.actions[0].selector.endswith("/div[5-2]/input[1]")  # the same element
    assert _forms_found(tmp_path, value) == []


@pytest.mark.parametrize("value", ["Al", secret_values.EMAIL], ids=["short", "long"])
@pytest.mark.no_sync_twin(keep=["long"])
async def test_an_act_whose_entry_cannot_be_stored_safely_says_so(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    value: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The value written into the instruction itself: the key would hold it, so nothing is
    stored, and the result (not only a log line) says why, naming the field, not the value."""
    page = AsyncStagehand(llm=AsyncPlanLLM(STEPS), cache_dir=tmp_path).wrap(async_page)
    await page.goto(f"{pages_url}hostile/short_values.html")
    with caplog.at_level(logging.WARNING, logger="stagehand_py"):
        result = await page.act(
            f"enter <|ENTRY|> for {value} and confirm", variables={"entry": value}
        )

    assert result.success, result.message
    assert result.cache == "miss" and not list(tmp_path.glob("*.json"))
    assert result.not_cached is not None and "instruction" in result.not_cached
    assert [note for note in result.notes if note.startswith("Not cached: ")]
    shown = [result.not_cached, *result.notes, *(r.getMessage() for r in caplog.records)]
    assert not [text for text in shown if re.search(rf"\b{re.escape(value)}\b", text)]


@pytest.mark.parametrize("name", ["Al", "7"], ids=["name", "digit"])
@pytest.mark.no_sync_twin
async def test_a_check_with_a_short_value_is_cached_as_its_placeholder(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, name: str
) -> None:
    statement = "the page says the order is saved for <|NAME|>"
    llm = check_model(("to_have_text", "Saved for", "Saved for <|NAME|>"))
    stagehand = AsyncStagehand(llm=llm, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "check/cart.html")
    await page.fill("#name", name)
    await page.click("text=Save name")

    first = await page.check(statement, variables={"name": name})

    assert first.compiled and first.cache == "miss" and not first.notes
    assert _forms_found(tmp_path, name) == []
    again = await page.check(statement, variables={"name": name})
    assert again.cache == "hit" and llm.calls == 1
