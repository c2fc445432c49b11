"""A failing act/extract shows the user's own line and the error, not the SDK's insides.

The SDK's public entry points and loops set ``__tracebackhide__`` (as Playwright's do), so
pytest cuts their frames out of the traceback it prints. Run in an inner pytest process: this
suite's own sync Playwright session may be live in this process.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

pytest_plugins = ["pytester"]

INNER = """
import pytest
from playwright.sync_api import sync_playwright
from pydantic import BaseModel
from stagehand_py import Stagehand, find_chromium
from stagehand_py._chromium import launch_args
from stagehand_py.testing import ScriptedLLM, extract_answer, skip_section


class Price(BaseModel):
    amount: float


@pytest.fixture
def raw_page():
    with sync_playwright() as p:
        chromium = find_chromium(headless=True)
        browser = p.chromium.launch(executable_path=chromium, args=launch_args())
        yield browser.new_page()
        browser.close()


def test_act_fails(raw_page):
    page = Stagehand(llm=ScriptedLLM(skip_section())).wrap(raw_page)
    page.set_content("<button>Save</button>")
    page.act("click the Save button")  # USER LINE ACT


def test_extract_fails(raw_page):
    page = Stagehand(llm=ScriptedLLM(*[extract_answer({"amount": "many"})] * 3)).wrap(raw_page)
    page.set_content("<p>Price: a lot</p>")
    page.extract("the price", schema=Price)  # USER LINE EXTRACT
"""


@pytest.mark.parametrize("style", ["auto", "short", "long"])
def test_sdk_frames_are_hidden_from_pytest_tracebacks(
    pytester: pytest.Pytester, style: str
) -> None:
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess(
        "-p", "no:playwright-asyncio", "-p", "no:cacheprovider", f"--tb={style}"
    )
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "USER LINE ACT" in out and "USER LINE EXTRACT" in out
    assert "ActError" in out and "ExtractError" in out
    # A frame of the package reads "<path>/stagehand_py/<module>.py:<line>".
    shown = [line for line in out.splitlines() if re.search(r"stagehand_py/\S*\.py:\d+", line)]
    assert shown == [], "\n".join(shown)
