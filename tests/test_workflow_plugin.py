"""The pytest plugin's ``--stagehand-history-dir`` option (and its environment variable)
reach the session SDK's workflow history."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow  # starts processes or runs long: left out of the inner loop

pytest_plugins = ["pytester"]

INNER = """
import os
from pathlib import Path


def test_history_dir(stagehand):
    assert stagehand.workflow_history is not None
    assert stagehand.workflow_history.directory == Path(os.environ["EXPECTED_HISTORY"])
"""


def test_the_history_option_and_its_environment_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_inner=INNER)
    option_dir = pytester.path / "from-option"
    env_dir = pytester.path / "from-env"
    monkeypatch.setenv("STAGEHAND_PY_HISTORY_DIR", str(env_dir))

    monkeypatch.setenv("EXPECTED_HISTORY", str(option_dir))
    common = ("-p", "no:playwright-asyncio", "-p", "no:cacheprovider", "--stagehand-fake")
    result = pytester.runpytest_subprocess(*common, f"--stagehand-history-dir={option_dir}")
    result.assert_outcomes(passed=1)

    monkeypatch.setenv("EXPECTED_HISTORY", str(env_dir))
    result = pytester.runpytest_subprocess(*common)
    result.assert_outcomes(passed=1)
