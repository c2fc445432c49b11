"""What a pytest run leaves behind holds no form of a variable (issue #13, items 2 and 3): the
traces pytest-playwright keeps for tests that used variables are scrubbed by the plugin, and a
failing test's report (the "stagehand" section, a traceback printed with the SDK's local
variables, JUnit XML) carries placeholders only. The inner session runs in a subprocess, as
users run it."""

from __future__ import annotations

import zipfile

import pytest

from tests import secret_values

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

pytest_plugins = ["pytester"]

INNER_TESTS = """
import os
from stagehand_py import take_snapshot
from stagehand_py.testing import do_action


def test_sign_up(stagehand_page, stagehand_fake):
    stagehand_page.set_content(
        '<label>Email <input id="email" type="email"></label><button>Go</button>'
    )
    email = next(e.index for e in take_snapshot(stagehand_page).elements if e.tag == "input")
    stagehand_fake.queue(
        do_action("fill", email, ["<|EMAIL|>"], completed=True), {"completed": True}
    )
    stagehand_page.act("type <|EMAIL|>", variables={"email": os.environ["INNER_SECRET"]})
    assert stagehand_page.locator("#email").input_value() == os.environ["INNER_SECRET"]


def test_without_variables(stagehand_page):
    stagehand_page.set_content("<p>nothing secret</p>")
"""


def test_traces_of_tests_that_used_variables_are_scrubbed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INNER_SECRET", secret_values.EMAIL)
    pytester.makepyfile(test_inner=INNER_TESTS)
    output = pytester.path / "results"
    result = pytester.runpytest_subprocess(
        "-p", "no:playwright-asyncio", "-p", "no:cacheprovider", "--stagehand-fake",
        "--tracing", "on", "--output", str(output),
    )  # fmt: skip
    result.assert_outcomes(passed=2)

    traces = sorted(output.rglob("trace*.zip"))
    assert len(traces) == 2, traces
    placeholders = 0
    for trace in traces:
        with zipfile.ZipFile(trace) as archive:
            for name in archive.namelist():
                data = archive.read(name)
                leaked = [f for f in secret_values.FORMS if f.encode() in data]
                assert not leaked, (trace, name, leaked)
                placeholders += data.count(b"<|EMAIL|>")
    assert placeholders > 0  # the value was there, and was replaced


FAILING_TESTS = """
import os
from stagehand_py import take_snapshot
from stagehand_py.testing import do_action, skip_section


def test_sign_up_then_continue(stagehand_page, stagehand_fake):
    stagehand_page.goto(os.environ["INNER_PAGES"] + "hostile/echo.html")
    snap = take_snapshot(stagehand_page)
    email = next(e.index for e in snap.elements if e.tag == "input")
    button = next(e.index for e in snap.elements if e.tag == "button")
    stagehand_fake.queue(
        do_action("fill", email, ["<|EMAIL|>"]),
        do_action("click", button, completed=True),
        {"completed": True},
    )
    stagehand_page.act("sign up with <|EMAIL|>", variables={"email": os.environ["INNER_SECRET"]})
    # The page now shows the value in its URL and text; this act has no variables and fails
    # from inside the SDK, whose frames pytest prints with their locals (-l).
    stagehand_fake.queue(skip_section("nothing to continue"))
    stagehand_page.act("continue")
"""


@pytest.mark.parametrize("traceback", ["long", "native"])
def test_a_failing_test_reports_placeholders_only(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, pages_url: str, traceback: str
) -> None:
    monkeypatch.setenv("INNER_SECRET", secret_values.EMAIL)
    monkeypatch.setenv("INNER_PAGES", pages_url)
    pytester.makepyfile(test_inner=FAILING_TESTS)
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess(
        "-p", "no:playwright-asyncio", "-p", "no:cacheprovider", "--stagehand-fake",
        "-l", f"--tb={traceback}", f"--junitxml={junit}", "-o", "junit_logging=all",
    )  # fmt: skip
    result.assert_outcomes(failed=1)

    report = result.stdout.str()
    assert "ActError" in report and "act('continue') -> FAILED" in report
    assert "email=<|EMAIL|>" in report  # the section's page line: redacted session-wide
    xml = junit.read_text("utf-8")
    assert "ActError" in xml
    for text in (report, result.stderr.str(), xml):
        assert not [f for f in secret_values.FORMS if f in text]
