"""check(): a statement judged by the model, compiled into Playwright assertions, replayed with
no model call, failed with Playwright's own message, healed, never written when it failed.

The page (``tests/pages/check/cart.html``) takes its state from the URL fragment, which no
cache key includes: the same page "changes" between a recording run and a replay
(``#total=40.00``, ``#moved``...). The fake model answers from the snapshot it was shown, as a
model would: it finds its elements by their text.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import (
    AsyncStagehand,
    CacheMissError,
    CheckError,
    ConfigurationError,
    StagehandError,
    StagehandTimeoutError,
)
from stagehand_py.cache._manage import entry_diff
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

MODES = pytest.mark.parametrize("mode", ["dom", "aria"])
TOTAL = "the cart total is 42.00 EUR"
FAST = {"action_timeout_ms": 1500}  # how long a failing replayed assertion retries
SLACK_S = 1.0


async def _probe() -> None: ...


STYLE = "async" if inspect.iscoroutinefunction(_probe) else "sync"  # "sync" in the twin


def _model(
    *found: tuple[str, str | None, str | int | None],
    holds: bool = True,
    reason: str = "",
    why_not: str | None = None,
) -> AsyncFunctionLLM:
    """A model that answers each check request with assertions ``(kind, text of the element
    to find in what it was shown or None, expected value)``."""

    def structured(
        messages: list[Message], schema: type[BaseModel], context: RequestContext
    ) -> Any:
        assert schema is CheckAnswer
        assertions = [
            expectation(kind, None if text is None else context.find(text), value)
            for kind, text, value in found
        ]
        return check_answer(holds, *assertions, reason=reason, why_not=why_not)

    return AsyncFunctionLLM(structured=structured)


def _total_model(**options: Any) -> AsyncFunctionLLM:
    return _model(("to_contain_text", "42.00", "42.00 EUR"), **options)


async def _open(stagehand: AsyncStagehand, page: AsyncPage, url: str) -> Any:
    wrapped = stagehand.wrap(page)
    await wrapped.goto(url)
    await wrapped.reload()  # a new fragment alone does not load the page again
    return wrapped


def _entries(cache_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(cache_dir.glob("*.json"))]


@MODES
@pytest.mark.no_sync_twin
async def test_a_statement_that_holds_is_judged_and_compiled(
    async_page: AsyncPage, pages_url: str, mode: str
) -> None:
    llm = _total_model(reason="the total reads 42.00 EUR")
    stagehand = AsyncStagehand(llm=llm, snapshot=mode)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")

    result = await page.check(TOTAL)

    assert result and result.passed and result.compiled and result.why_not_compiled is None
    assert result.reason == "the total reads 42.00 EUR"
    assert any("42.00 EUR" in line for line in result.evidence)
    [assertion] = result.assertions
    assert (assertion.kind, assertion.expected) == ("to_contain_text", "42.00 EUR")
    assert result.llm_calls == 1 and result.cache == "off"
    assert [r.options.kind for r in llm.requests] == ["check"]
    assert "Statement: the cart total is 42.00 EUR" in llm.requests[0].text()
    record = stagehand.history[-1]
    assert (record.kind, record.success, record.llm_calls) == ("check", True, 1)
    assert stagehand.usage.by_kind["check"].requests == 1
    if mode == "dom":  # the span's test id, as Playwright's codegen would pick it
        assert assertion.selectors[0] == 'internal:testid=[data-testid="cart-total"s]'


@MODES
@pytest.mark.no_sync_twin
async def test_a_statement_that_does_not_hold_raises_and_writes_nothing(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    llm = _model(holds=False, reason="the total reads 42.00 EUR, not 50.00 EUR")
    stagehand = AsyncStagehand(llm=llm, snapshot=mode, cache_dir=tmp_path)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")

    with pytest.raises(CheckError) as caught:
        await page.check("the cart total is 50.00 EUR")

    error = caught.value
    assert isinstance(error, AssertionError) and isinstance(error, StagehandError)
    message = str(error)
    assert message.startswith("check('the cart total is 50.00 EUR') failed: the total reads")
    assert error.result.passed is False and error.result.llm_calls == 1
    assert not list(tmp_path.glob("*.json"))  # a failed check is never written
    record = stagehand.history[-1]
    assert (record.kind, record.success, record.llm_calls) == ("check", False, 1)
    assert "CheckError" in record.message


@MODES
@pytest.mark.no_sync_twin
async def test_a_compiled_check_replays_with_no_model_call(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    first = AsyncStagehand(llm=_total_model(), snapshot=mode, cache_dir=tmp_path)
    recorded = await (await _open(first, async_page, pages_url + "check/cart.html")).check(TOTAL)
    assert recorded.cache == "miss" and recorded.compiled
    [entry] = _entries(tmp_path)
    assert entry["kind"] == "check" and entry["actions"] == []
    assert entry["assertions"][0]["expected"] == "42.00 EUR"

    silent = AsyncScriptedLLM()  # any request would raise ScriptExhaustedError
    again = AsyncStagehand(llm=silent, snapshot=mode, cache_dir=tmp_path, cache_mode="require")
    # #late: the total shows 600 ms after the page loads; the replay waits for it.
    page = await _open(again, async_page, pages_url + "check/cart.html#late")
    result = await page.check(TOTAL)

    assert result.passed and result.cache == "hit" and result.llm_calls == 0
    assert silent.calls == 0 and result.assertions == recorded.assertions
    assert again.cache is not None and again.cache.stats.hits == 1
    assert again.history[-1].llm_calls == 0


@MODES
@pytest.mark.no_sync_twin
async def test_a_changed_page_fails_a_compiled_check_with_playwrights_message(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    first = AsyncStagehand(llm=_total_model(), snapshot=mode, cache_dir=tmp_path)
    await (await _open(first, async_page, pages_url + "check/cart.html")).check(TOTAL)

    silent = AsyncScriptedLLM()
    ci = AsyncStagehand(llm=silent, snapshot=mode, cache_dir=tmp_path, cache_mode="require", **FAST)
    page = await _open(ci, async_page, pages_url + "check/cart.html#total=40.00")
    with pytest.raises(CheckError) as caught:
        await page.check(TOTAL)

    message = str(caught.value)
    assert "cache_mode='require', the model was not asked" in message
    assert "expect(" in message and '.to_contain_text("42.00 EUR")' in message
    # Playwright's own expected/actual message:
    assert "Locator expected to contain text '42.00 EUR'" in message
    assert "Actual value:" in message and "40.00 EUR" in message
    assert silent.calls == 0 and caught.value.result.cache == "hit"
    assert len(_entries(tmp_path)) == 1  # the entry stays


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_the_model_finding_it_true_heals_the_entry_keeping_the_previous_version(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    first = AsyncStagehand(llm=_total_model(), snapshot=mode, cache_dir=tmp_path)
    await (await _open(first, async_page, pages_url + "check/cart.html")).check(TOTAL)
    [before] = _entries(tmp_path)

    llm = _total_model()
    again = AsyncStagehand(llm=llm, snapshot=mode, cache_dir=tmp_path, **FAST)
    page = await _open(again, async_page, pages_url + "check/cart.html#moved")
    result = await page.check(TOTAL)

    assert result.passed and result.cache == "healed" and result.llm_calls == 1
    assert any("healed" in note for note in result.notes)
    [after] = _entries(tmp_path)
    assert after["previous"]["assertions"] == before["assertions"]
    assert after["assertions"] != before["assertions"]
    assert again.cache is not None
    diff = entry_diff(again.cache.find(after["key"]))
    assert diff.startswith("healed because: assertion 1 `expect(")
    assert "\n 1. to_contain_text('42.00 EUR')" in diff  # the same assertion, elsewhere:
    assert "\n-   selector: " in diff and "\n+   selector: " in diff

    # The healed entry replays on the redesigned page with no model call.
    silent = AsyncScriptedLLM()
    ci = AsyncStagehand(llm=silent, snapshot=mode, cache_dir=tmp_path, cache_mode="require")
    replayed = await (await _open(ci, async_page, pages_url + "check/cart.html#moved")).check(TOTAL)
    assert replayed.cache == "hit" and silent.calls == 0


@MODES
@pytest.mark.no_sync_twin
async def test_the_model_finding_it_false_on_replay_raises_and_keeps_the_entry(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    first = AsyncStagehand(llm=_total_model(), snapshot=mode, cache_dir=tmp_path)
    await (await _open(first, async_page, pages_url + "check/cart.html")).check(TOTAL)
    [before] = _entries(tmp_path)

    llm = _model(holds=False, reason="the total reads 40.00 EUR")
    again = AsyncStagehand(llm=llm, snapshot=mode, cache_dir=tmp_path, **FAST)
    page = await _open(again, async_page, pages_url + "check/cart.html#total=40.00")
    with pytest.raises(CheckError) as caught:
        await page.check(TOTAL)

    message = str(caught.value)
    assert "failed: the total reads 40.00 EUR" in message
    assert "Its compiled assertions failed too (the cache entry is kept)" in message
    assert llm.calls == 1
    assert _entries(tmp_path) == [before]  # kept as it was: the assertions were right


@MODES
@pytest.mark.no_sync_twin(keep=["dom"])
async def test_an_uncompilable_statement_is_judged_every_run_and_refused_by_require(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    statement = "the cart looks tidy"
    llm = _model(reason="the rows are aligned", why_not="it is about how the page looks")
    stagehand = AsyncStagehand(llm=llm, snapshot=mode, cache_dir=tmp_path)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")

    first = await page.check(statement)
    second = await page.check(statement)

    for result in (first, second):
        assert result.passed and not result.compiled and result.assertions == []
        assert result.why_not_compiled == "it is about how the page looks"
        assert result.cache == "miss" and result.llm_calls == 1
    assert llm.calls == 2  # judged by the model on every run
    [entry] = _entries(tmp_path)
    assert entry["uncompiled"] == "it is about how the page looks"
    assert "assertions" not in entry
    code = first.to_playwright_code()
    assert "pass  # not compiled: the model judges this statement on every run" in code

    silent = AsyncScriptedLLM()
    ci = AsyncStagehand(llm=silent, snapshot=mode, cache_dir=tmp_path, cache_mode="require")
    with pytest.raises(CacheMissError) as caught:
        await ci.wrap(page).check(statement)
    assert caught.value.reason == "uncompiled"
    assert "could not be compiled into Playwright assertions" in str(caught.value)
    assert "it is about how the page looks" in str(caught.value)
    assert silent.calls == 0


@MODES
@pytest.mark.no_sync_twin(keep=["aria"])
async def test_assertions_weaker_than_the_statement_are_not_compiled(
    async_page: AsyncPage, pages_url: str, mode: str, tmp_path: Path
) -> None:
    # The model proposes only that the total is visible: a replay would pass at 40.00 EUR.
    llm = _model(("to_be_visible", "42.00", None))
    stagehand = AsyncStagehand(llm=llm, snapshot=mode, cache_dir=tmp_path)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")
    result = await page.check(TOTAL)
    assert result.passed and not result.compiled
    assert result.why_not_compiled is not None
    assert "weaker than the statement" in result.why_not_compiled
    assert "'42.00'" in result.why_not_compiled

    # So the changed page is never passed by a replay.
    ci = AsyncStagehand(
        llm=AsyncScriptedLLM(), snapshot=mode, cache_dir=tmp_path, cache_mode="require"
    )
    changed = await _open(ci, async_page, pages_url + "check/cart.html#total=40.00")
    with pytest.raises(CacheMissError):
        await changed.check(TOTAL)


async def test_a_count_and_a_state_compile_and_fail_when_the_page_changes(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    statement = "the cart lists 3 items and gift wrap is checked"
    llm = _model(("to_have_count", "Linen cushion", 3), ("to_be_checked", "gift", None))
    first = AsyncStagehand(llm=llm, cache_dir=tmp_path)
    result = await (await _open(first, async_page, pages_url + "check/cart.html")).check(statement)
    assert result.compiled, result.why_not_compiled
    assert [a.kind for a in result.assertions] == ["to_have_count", "to_be_checked"]
    assert result.assertions[0].selectors[0] == "internal:role=listitem"

    ci = AsyncStagehand(llm=AsyncScriptedLLM(), cache_dir=tmp_path, cache_mode="require", **FAST)
    for state, wanted in (("items=2", "Locator expected to have count '3'"), ("nogift", "")):
        page = await _open(ci, async_page, pages_url + f"check/cart.html#{state}")
        with pytest.raises(CheckError, match="did not pass") as caught:
            await page.check(statement)
        assert wanted in str(caught.value)


@pytest.mark.no_sync_twin
async def test_variables_never_reach_the_model_the_cache_or_the_error(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    name = secret_values.EMAIL
    statement = "the page says the order is saved for <|NAME|>"
    llm = _model(("to_have_text", "Saved for", "Saved for <|NAME|>"))
    stagehand = AsyncStagehand(llm=llm, cache_dir=tmp_path)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")
    await page.fill("#name", name)
    await page.click("text=Save name")

    result = await page.check(statement, variables={"name": name})

    assert result.compiled and result.assertions[0].expected == "Saved for <|NAME|>"
    sent = "\n".join(r.text() for r in llm.requests)
    assert "Saved for <|NAME|>" in sent and name not in sent
    assert name not in (tmp_path / f"{_entries(tmp_path)[0]['key']}.json").read_text("utf-8")
    assert name not in result.model_dump_json()
    replayed = await page.check(statement, variables={"name": name})
    assert replayed.cache == "hit" and llm.calls == 1

    # The page now shows the value with more around it: the replay fails, redacted.
    await page.fill("#name", name + " (unconfirmed)")
    await page.click("text=Save name")
    ci = AsyncStagehand(llm=AsyncScriptedLLM(), cache_dir=tmp_path, cache_mode="require", **FAST)
    with pytest.raises(CheckError) as caught:
        await ci.wrap(page).check(statement, variables={"name": name})
    shown = str(caught.value) + caught.value.result.model_dump_json()
    assert "Saved for <|NAME|> (unconfirmed)" in shown
    assert name not in shown
    assert all(name not in r.summary() for r in [*stagehand.history, *ci.history])


@pytest.mark.no_sync_twin
async def test_generated_expect_code_runs_as_plain_playwright(
    async_page: AsyncPage, pages_url: str
) -> None:
    statement = "the Pay now button is enabled and the total is 42.00 EUR"
    llm = _model(("to_be_enabled", "Pay now", None), ("to_contain_text", "42.00", "42.00 EUR"))
    page = await _open(AsyncStagehand(llm=llm), async_page, pages_url + "check/cart.html")
    result = await page.check(statement)
    assert result.compiled, result.why_not_compiled

    code = result.to_playwright_code(STYLE, url=pages_url + "check/cart.html")
    assert f"from playwright.{STYLE}_api import Page, expect" in code
    assert 'expect(page.get_by_role("button", name="Pay now", exact=True)).to_be_enabled()' in code
    assert 'expect(page.get_by_test_id("cart-total")).to_contain_text("42.00 EUR")' in code
    namespace: dict[str, Any] = {}
    exec(compile(code, "<generated>", "exec"), namespace)
    fresh = await async_page.context.new_page()
    await namespace["run"](fresh)  # passes: the statement holds
    await fresh.goto(pages_url + "check/cart.html#total=40.00")
    await fresh.reload()
    no_goto = result.to_playwright_code(STYLE)
    exec(compile(no_goto, "<generated>", "exec"), namespace)
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"40\.00 EUR"):
        await namespace["run"](fresh)
    assert time.monotonic() - started < 10


@pytest.mark.no_sync_twin
async def test_playwrights_own_check_of_a_selector_still_works(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncScriptedLLM()
    page = await _open(AsyncStagehand(llm=llm), async_page, pages_url + "check/cart.html#nogift")
    assert not await page.is_checked("#gift")
    assert await page.check("#gift") is None  # Playwright's Page.check: ticks the box
    assert await page.is_checked("#gift")
    await page.uncheck("#gift")
    await page.check("main input[type=checkbox]", timeout=2000)
    assert await page.is_checked("#gift") and llm.calls == 0


async def test_bad_arguments_are_typed_errors(async_page: AsyncPage, pages_url: str) -> None:
    stagehand = AsyncStagehand(llm=AsyncScriptedLLM())
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")
    with pytest.raises(ConfigurationError, match="undefined variable"):
        await page.check("the page greets <|NAME|>")
    with pytest.raises(ConfigurationError, match="needs a statement about the page"):
        await page.check("   ")
    with pytest.raises(ConfigurationError, match="as a string"):
        await stagehand.check(page, None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="timeout_s"):
        await page.check("the total is shown", timeout_s=-1)
    with pytest.raises(ConfigurationError, match="raise_on_failure"):
        await stagehand.check(page, "the total is shown", raise_on_failure=False)  # type: ignore[call-arg]


class _HungLLM:
    """A model whose every request hangs (longer than any test waits)."""

    model = "hung"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(self, messages: Any, tools: Any, **options: Any) -> Any:
        raise AssertionError("check() makes no chat request")

    async def structured(self, messages: Any, schema: Any, **options: Any) -> Any:
        self.calls += 1
        await asyncio.sleep(20)
        raise AssertionError("a hung request was waited for")


async def test_a_hung_model_is_given_up_at_the_deadline(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = _HungLLM()
    stagehand = AsyncStagehand(llm=llm)
    page = await _open(stagehand, async_page, pages_url + "check/cart.html")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match=r"check\(\) ran out of time after 2 s"):
        await page.check(TOTAL, timeout_s=2)
    assert time.monotonic() - started < 2 + SLACK_S
    record = stagehand.history[-1]
    assert (record.kind, record.success, record.llm_calls) == ("check", False, 1)


async def test_a_busy_page_is_stopped_at_the_deadline_of_a_first_run_and_of_a_replay(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    llm = _model(("to_have_text", "Idle.", "Idle."))
    stagehand = AsyncStagehand(llm=llm, cache_dir=tmp_path)
    page = stagehand.wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html?ms=8000")
    assert (await page.check("the report state says Idle.")).compiled

    # A replay (require: no model) on the page once it holds its main thread.
    await page.click("#build")
    ci = AsyncStagehand(llm=AsyncScriptedLLM(), cache_dir=tmp_path, cache_mode="require")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError):
        await ci.wrap(page).check("the report state says Idle.", timeout_s=2)
    assert time.monotonic() - started < 2 + SLACK_S

    # A first run on a page busy from the start.
    await page.goto(pages_url + "hostile/spin.html?on_load&ms=8000", wait_until="commit")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match="busy"):
        await page.check("the report is ready", timeout_s=2)
    assert time.monotonic() - started < 2 + SLACK_S
    assert stagehand.history[-1].kind == "check" and not stagehand.history[-1].success
