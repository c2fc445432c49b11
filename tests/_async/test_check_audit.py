"""check() audited against bad model answers, secrets and weak compiled checks: a count the
model writes in odd digits is refused, not a crash; a variable's value the model writes out
is kept as its placeholder; a URL assertion never prints a value; an assertion on a state the
statement does not name is not stored, so a replay cannot pass a page where it is false."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, CacheMissError, CheckError
from stagehand_py.llm._messages import Message
from stagehand_py.prompts.check import CheckAnswer
from stagehand_py.testing import (
    AsyncFunctionLLM,
    AsyncScriptedLLM,
    RequestContext,
    check_answer,
    expectation,
)
from tests import secret_values

# check()'s path is generated code: the async tests cover its sync twin.
pytestmark = pytest.mark.no_sync_twin

CART = "check/cart.html"
FAST = {"action_timeout_ms": 1500}


def _model(kind: str, text: str | None, value: str | int | None) -> AsyncFunctionLLM:
    """A model that says the statement holds, with one assertion ``kind`` on the shown
    element whose text is ``text`` (None: no element), expecting ``value``."""

    def structured(
        messages: list[Message], schema: type[BaseModel], context: RequestContext
    ) -> Any:
        assert schema is CheckAnswer
        element = None if text is None else context.find(text)
        return check_answer(True, expectation(kind, element, value), reason="it holds")

    return AsyncFunctionLLM(structured=structured)


async def _open(stagehand: AsyncStagehand, page: AsyncPage, url: str) -> Any:
    wrapped = stagehand.wrap(page)
    await wrapped.goto(url)
    await wrapped.reload()  # a new fragment alone does not load the page again
    return wrapped


def _shown_forms(value: str) -> set[str]:
    """The value as written, and as a regular expression of it prints (escaped, repr'd)."""
    escaped = re.escape(value)
    return {value, escaped, repr(escaped)[1:-1]}


@pytest.mark.parametrize(
    "count", ["\u00b2", "9" * 5000, 10**5000], ids=["superscript", "5000-digits", "huge-int"]
)
async def test_a_count_the_model_writes_in_odd_digits_is_refused_not_a_crash(
    async_page: AsyncPage, pages_url: str, count: str | int
) -> None:
    llm = _model("to_have_count", "Linen cushion", count)
    page = await _open(AsyncStagehand(llm=llm), async_page, pages_url + CART)

    result = await page.check("the cart lists 3 items")

    assert result.passed and not result.compiled  # judged by the model, not compiled
    assert result.why_not_compiled is not None and "whole number" in result.why_not_compiled


@pytest.mark.parametrize("kind", ["to_have_text", "to_contain_text"])
async def test_a_variables_value_the_model_writes_out_is_kept_as_its_placeholder(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, kind: str
) -> None:
    name = secret_values.EMAIL
    llm = _model(kind, "Saved for", f"Saved for {name}")  # the value, not <|NAME|>
    stagehand = AsyncStagehand(llm=llm, cache_dir=tmp_path)
    page = await _open(stagehand, async_page, pages_url + CART)
    await page.fill("#name", name)
    await page.click("text=Save name")

    result = await page.check(
        "the page says the order is saved for <|NAME|>", variables={"name": name}
    )

    shown = result.model_dump_json() + repr(result) + result.to_playwright_code()
    assert name not in shown
    assert result.compiled, result.why_not_compiled
    assert result.assertions[0].expected == "Saved for <|NAME|>"
    [entry] = tmp_path.glob("*.json")
    assert name not in entry.read_text("utf-8")


@pytest.mark.parametrize("run", ["first run", "replay"])
async def test_a_url_assertion_never_prints_a_variables_value(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, run: str
) -> None:
    token = secret_values.EMAIL  # "." escaped in a regular expression: \.
    statement = "the URL carries <|TOKEN|>"
    llm = _model("to_have_url", None, "<|TOKEN|>")
    if run == "first run":  # the URL does not carry it: the model's assertion fails now
        page = await _open(AsyncStagehand(llm=llm), async_page, pages_url + CART)
        result = await page.check(statement, variables={"token": token})
        assert result.why_not_compiled is not None and "to_have_url" in result.why_not_compiled
        said = result.why_not_compiled + result.model_dump_json() + repr(result)
    else:  # compiled where the URL carries it, replayed where it no longer does
        first = AsyncStagehand(llm=llm, cache_dir=tmp_path)
        page = await _open(first, async_page, pages_url + f"{CART}#{token}")
        assert (await page.check(statement, variables={"token": token})).compiled
        ci = AsyncStagehand(
            llm=AsyncScriptedLLM(), cache_dir=tmp_path, cache_mode="require", **FAST
        )
        page = await _open(ci, async_page, pages_url + f"{CART}#elsewhere")
        with pytest.raises(CheckError) as caught:
            await page.check(statement, variables={"token": token})
        said = str(caught.value) + caught.value.result.reason + repr(caught.value.result)
        assert "to_have_url" in said
    assert not [form for form in _shown_forms(token) if form in said]


@pytest.mark.parametrize(
    ("statement", "kind", "text"),
    [
        ("the total shows no error", "to_be_enabled", "Pay now"),
        ("the total reads no error", "not_to_be_checked", "Gift wrap"),
    ],
)
async def test_an_assertion_on_an_unnamed_state_is_not_replayed_as_the_statement(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, statement: str, kind: str, text: str
) -> None:
    first = AsyncStagehand(llm=_model(kind, text, None), cache_dir=tmp_path)
    result = await (await _open(first, async_page, pages_url + f"{CART}#nogift")).check(statement)
    assert result.passed and not result.compiled  # the model judges it on every run
    assert result.why_not_compiled is not None and "weaker" in result.why_not_compiled

    # So a page whose total shows an error is never passed by a replay with no model.
    ci = AsyncStagehand(llm=AsyncScriptedLLM(), cache_dir=tmp_path, cache_mode="require")
    page = await _open(ci, async_page, pages_url + f"{CART}#nogift&total=Error")
    with pytest.raises(CacheMissError):
        await page.check(statement)
