"""scrub_trace() leaves no byte of a secret in any file of a Playwright trace (issue #13,
item 3): recorded on the project's pages, searched member by member."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, Secret, scrub_trace
from tests import secret_values
from tests._async.plan_llm import AsyncPlanLLM, Step

EMAIL, PASSWORD = secret_values.EMAIL, secret_values.PASSWORD


def _members_holding_secrets(trace: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    with zipfile.ZipFile(trace) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            hits = [f for f in secret_values.FORMS if f.encode("utf-8") in data]
            if hits:
                found[name] = hits
    return found


@pytest.mark.no_sync_twin
async def test_scrub_trace_removes_every_form_of_the_secrets(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    llm = AsyncPlanLLM(
        [
            Step("fill", r'^<input\b[^>]*type="email"', ["<|EMAIL|>"], completed=False),
            Step("fill", r'^<input\b[^>]*type="password"', ["<|PASSWORD|>"], completed=False),
            Step("click", r"^<button\b[^>]*>Sign in"),
        ]
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    tracing = async_page.context.tracing
    await tracing.start(screenshots=True, snapshots=True, sources=True)
    await page.goto(pages_url + "hostile/login.html")
    variables = {"email": EMAIL, "password": Secret(PASSWORD)}
    await page.act("sign in", variables=variables)
    # A GET form puts the value in a URL, percent-encoded, in the network log and snapshots.
    await page.goto(pages_url + "hostile/echo.html")
    await page.locator("#email").fill(EMAIL)
    await page.locator("#signup button").click()
    await page.wait_for_url("**/echo.html?email=*")
    trace = tmp_path / "trace.zip"
    await tracing.stop(path=trace)

    before = _members_holding_secrets(trace)
    assert "trace.trace" in before and "trace.network" in before  # the test can fail
    assert scrub_trace(trace, variables, drop_screenshots=True) >= 2

    assert _members_holding_secrets(trace) == {}
    with zipfile.ZipFile(trace) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        events = archive.read("trace.trace").decode("utf-8")
    assert not any(name.startswith("screencast/") for name in names)
    assert '"value": "<|PASSWORD|>"' in events or '"value":"<|PASSWORD|>"' in events
    assert not list(tmp_path.glob(".trace.zip.*"))  # the temporary file is gone
