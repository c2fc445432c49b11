"""The pytest plugin scrubs the traces pytest-playwright keeps for tests that used variables
(issue #13, item 3). The inner session runs in a subprocess, as users run it."""

from __future__ import annotations

import zipfile

import pytest

from tests import secret_values

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
