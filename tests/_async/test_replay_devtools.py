"""On Chromium a replayed step checks its element through the page's DevTools session.

The check is the one page call a replayed step makes besides its action. Playwright's
``evaluate`` sets up a helper in each new document on its first call; the DevTools session
every public call opens (to interrupt a busy page) runs the same page script without it. The
answer must be the same either way, a page that breaks the script must still get its step
replayed (the check falls back to Playwright's own engine), and a busy page must not hold the
replay past its deadline.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage, StagehandTimeoutError
from stagehand_py._async.browser.interrupt import attach_interrupter
from stagehand_py._async.browser.scripts import run_page_script
from stagehand_py._async.browser.secret_guard import STAYS_HOME
from stagehand_py.cache._fingerprint import load_fingerprint_js
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests._async.test_replay_form_proof import FIELDS

SLACK_S = 1.0
SIGNUP = "fill the signup form with <|EMAIL|> and <|PASSWORD|> and submit it"
SIGNUP_STEPS = [
    Step("fill", r"^<input\b[^>]*first", ["Ada"]),
    Step("fill", r"^<input\b[^>]*email", ["<|EMAIL|>"]),
    Step("fill", r"^<input\b[^>]*password", ["<|PASSWORD|>"]),
    Step("click", r"^<button\b[^>]*>.*Submit"),
]
NOTE = "type quarterly into the note"
NOTE_STEPS = [Step("fill", r"^<input\b[^>]*note", ["quarterly"])]


def _variables() -> dict[str, str]:
    return {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}


async def _record(
    page: AsyncPage, url: str, instruction: str, steps: list[Step], cache: Path
) -> None:
    recorder = AsyncStagehand(llm=AsyncPlanLLM(steps), cache_dir=cache).wrap(page)
    await recorder.goto(url)
    first = await recorder.act(instruction, variables=_variables())
    assert first.cache == "miss" and first.success, first.message


async def _note_replay(
    page: AsyncPage, pages_url: str, cache: Path
) -> tuple[AsyncStagehandPage, AsyncPlanLLM]:
    """The note step recorded on the report page, and the page reloaded to replay it with a
    model that must not be asked (``require``)."""
    url = pages_url + "hostile/spin.html?ms=8000"
    await _record(page, url, NOTE, NOTE_STEPS, cache)
    silent = AsyncPlanLLM([])
    replaying = AsyncStagehand(llm=silent, cache_dir=cache, cache_mode="require").wrap(page)
    await replaying.goto(url)
    return replaying, silent


def _count_page_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many Playwright evaluates and DevTools evaluates are made from now on."""
    made = {"evaluate": 0, "devtools": 0}
    evaluates = {cls: cls.evaluate for cls in (AsyncPage, AsyncFrame)}
    send = AsyncCDPSession.send

    for cls, original in evaluates.items():

        async def evaluate(self: Any, *args: Any, _o: Any = original, **kwargs: Any) -> Any:
            made["evaluate"] += 1
            return await _o(self, *args, **kwargs)

        monkeypatch.setattr(cls, "evaluate", evaluate)

    async def counted_send(self: AsyncCDPSession, method: str, *args: Any, **kwargs: Any) -> Any:
        if method == "Runtime.evaluate":
            made["devtools"] += 1
        return await send(self, method, *args, **kwargs)

    monkeypatch.setattr(AsyncCDPSession, "send", counted_send)
    return made


# (page, instruction, recorded steps, the fields and the values the replay must type)
REPLAYS = [
    ("form.html", SIGNUP, SIGNUP_STEPS,
     {"#first-name": "Ada", "#email": secret_values.EMAIL, "#password": secret_values.PASSWORD}),
    ("hostile/spin.html?ms=8000", NOTE, NOTE_STEPS, {"#note": "quarterly"}),
]  # fmt: skip


@pytest.mark.parametrize(("path", "instruction", "steps", "typed"), REPLAYS)
@pytest.mark.no_sync_twin
async def test_each_replayed_step_checks_its_element_in_one_devtools_call(
    async_page: AsyncPage,
    pages_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    instruction: str,
    steps: list[Step],
    typed: dict[str, str],
) -> None:
    await _record(async_page, pages_url + path, instruction, steps, tmp_path)
    silent = AsyncPlanLLM([])
    page = AsyncStagehand(llm=silent, cache_dir=tmp_path, cache_mode="require").wrap(async_page)
    await page.goto(pages_url + path)
    made = _count_page_calls(monkeypatch)

    result = await page.act(instruction, variables=_variables())

    assert result.cache == "hit" and result.success and silent.calls == 0
    assert made == {"evaluate": 0, "devtools": len(steps)}
    for selector, value in typed.items():
        assert await async_page.locator(selector).input_value() == value


@pytest.mark.parametrize("path", FIELDS)
@pytest.mark.no_sync_twin
async def test_the_check_answers_the_same_through_devtools_and_through_playwright(
    async_page: AsyncPage, pages_url: str, path: str
) -> None:
    await async_page.goto(pages_url + path)
    asked = {
        "xpaths": [f"//*[@id='{field}']" for field in FIELDS[path]] + ["//input", "//nothing"],
        "facts": True,
        "guard": STAYS_HOME.removeprefix("xpath="),
    }
    script = load_fingerprint_js()
    plain = await run_page_script(async_page, "fingerprint", script, asked, devtools=True)
    await attach_interrupter(async_page)  # the session a public call opens
    through = await run_page_script(async_page, "fingerprint", script, asked, devtools=True)
    assert json.loads(through) == json.loads(plain)
    assert len(json.loads(plain)) == len(asked["xpaths"])


# A page that breaks what the check's script uses: the answer is not a list of checks, or
# the script throws. The step must still be found (through Playwright's engine) and done.
BREAKERS = [
    # As old libraries did: every array turns into something else in JSON.
    "() => { Array.prototype.toJSON = function () { return 'an array'; }; }",
    "() => { JSON.stringify = () => { throw new Error('no JSON here'); }; }",
]


@pytest.mark.parametrize("breaker", BREAKERS, ids=["array-tojson", "stringify-throws"])
async def test_a_page_that_breaks_the_check_still_gets_its_step_replayed(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, breaker: str
) -> None:
    page, silent = await _note_replay(async_page, pages_url, tmp_path)
    await async_page.evaluate(breaker)

    result = await page.act(NOTE, variables=_variables())

    assert result.cache == "hit" and result.success and silent.calls == 0
    assert await async_page.locator("#note").input_value() == "quarterly"


# How the page came to be busy when the replay starts: its own timer, or a click it answers
# with the long computation.
BUSY = {
    "timer": "setTimeout(() => holdTheMainThread(8000), 0)",
    "click": "document.getElementById('build').click()",
}


@pytest.mark.parametrize("how", BUSY)
async def test_a_replay_whose_check_meets_a_busy_page_ends_at_its_deadline(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, how: str
) -> None:
    page, _ = await _note_replay(async_page, pages_url, tmp_path)
    await async_page.evaluate(BUSY[how])

    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError):
        await page.act(NOTE, variables=_variables(), timeout_s=2)
    assert time.monotonic() - started < 2 + SLACK_S
    # The page was interrupted: it answers at once, and nothing was typed.
    assert await async_page.locator("#state").inner_text(timeout=1000) != ""
    assert await async_page.locator("#note").input_value() == ""
